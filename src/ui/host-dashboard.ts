// The hosting page's dashboard: what this hosting tab does for the world, refreshed every
// second. Pure rendering of a snapshot the page gathers (app/host.ts); no game logic here.

export interface HostDashboardData {
  world: string;
  nodeId: string;
  /** 'starting' | 'online' | 'alone' (the peer's status). */
  status: string;
  links: { hex: string; rttMs: number | null }[];
  primary: string[];
  backup: string[];
  tickHz: number;
  uptimeMs: number;
  /** host_* / client_* / wire_* counters (window.voxel.hosting.stats()). */
  stats: Record<string, number>;
  invite: string;
  /** A problem worth showing (no relay, no store), if any. */
  problem?: string;
}

const fmtUptime = (ms: number): string => {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${s % 60} s` : `${s} s`;
};

const regionList = (names: string[]): string => (names.length === 0 ? 'none' : [...names].sort().join('  ·  '));

export class HostDashboard {
  private readonly root: HTMLElement;
  private readonly fields = new Map<string, HTMLElement>();
  private readonly copy: HTMLButtonElement;
  private invite = '';

  constructor(container: HTMLElement) {
    this.root = document.createElement('div');
    this.root.className = 'host-dashboard';
    this.root.innerHTML = `
      <h1>Voxel Populi · hosting</h1>
      <p class="lead">This tab keeps part of the world alive: the regions below are served from here.
      Leave it open (it may stay in the background); closing it hands them to other hosts.</p>
      <div class="problem" hidden></div>
      <dl>
        <dt>World</dt><dd data-f="world"></dd>
        <dt>Node</dt><dd data-f="node"></dd>
        <dt>Network</dt><dd data-f="network"></dd>
        <dt>Primary of</dt><dd data-f="primary"></dd>
        <dt>Backup of</dt><dd data-f="backup"></dd>
        <dt>Tick</dt><dd data-f="tick"></dd>
        <dt>Edits</dt><dd data-f="edits"></dd>
        <dt>Failovers</dt><dd data-f="failovers"></dd>
        <dt>Up for</dt><dd data-f="uptime"></dd>
      </dl>
      <p><button type="button" class="copy">Copy an invite link</button> <span class="copied"></span></p>`;
    for (const el of this.root.querySelectorAll<HTMLElement>('[data-f]')) this.fields.set(el.dataset.f!, el);
    this.copy = this.root.querySelector<HTMLButtonElement>('.copy')!;
    this.copy.addEventListener('click', () => {
      const said = this.root.querySelector<HTMLElement>('.copied')!;
      navigator.clipboard?.writeText(this.invite).then(() => (said.textContent = 'copied'), () => (said.textContent = this.invite));
    });
    container.append(this.root);
  }

  private set(field: string, text: string): void {
    const el = this.fields.get(field);
    if (el && el.textContent !== text) el.textContent = text;
  }

  render(d: HostDashboardData): void {
    const s = d.stats;
    const n = (k: string) => s[k] ?? 0;
    this.invite = d.invite;
    this.set('world', d.world);
    this.set('node', d.nodeId);
    const rtts = d.links.map((l) => l.rttMs).filter((x): x is number => x !== null).sort((a, b) => a - b);
    const rtt = rtts.length > 0 ? `, median round trip ${Math.round(rtts[Math.floor(rtts.length / 2)]!)} ms` : '';
    this.set('network', `${d.status} · ${d.links.length} live links${rtt}`);
    this.set('primary', `${d.primary.length} regions: ${regionList(d.primary)}`);
    this.set('backup', `${d.backup.length} regions: ${regionList(d.backup)}`);
    this.set('tick', d.primary.length > 0 ? `${d.tickHz.toFixed(1)} Hz per primary region` : 'idle (no primary region)');
    this.set('edits', `${n('host_editsAccepted')} accepted, ${n('host_confirms')} confirmed, ${n('host_editsRejected')} refused`);
    this.set('failovers', `${n('host_claimsWon')} regions taken over, ${n('host_stepDowns')} handed on`);
    this.set('uptime', fmtUptime(d.uptimeMs));
    const problem = this.root.querySelector<HTMLElement>('.problem')!;
    problem.hidden = !d.problem;
    problem.textContent = d.problem ?? '';
    this.root.dataset.primary = String(d.primary.length);
    this.root.dataset.backup = String(d.backup.length);
  }
}
