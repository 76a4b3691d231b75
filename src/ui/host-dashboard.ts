// The hosting page's dashboard: what this hosting tab does for the world, for someone who
// leaves it open overnight. Pure rendering of a snapshot the page gathers every 2 s
// (app/host.ts), plus the host's own choices (world, storage cap) handed back through
// callbacks; no game logic here. Every figure also sits in a data-* attribute for tests.
import { countPaths, type CandidateType, type PathCounts } from '../net/link-path';
import { Sparkline } from './sparkline';

export interface HostRegionRow {
  name: string;
  role: 'primary' | 'backup';
  /** Player tabs subscribed (as this tab knows them). */
  players: number;
  /** As primary: who stands in the region (name, 6 hex of the node id), bounded; a backup knows no names. */
  present: readonly { name: string; id: string }[];
  /** How many stand there in all (more than `present` lists when it is cut short). */
  presentCount: number;
  editsPerSec: number;
  entries: number;
}

export interface HostDashboardData {
  world: string;
  nodeId: string;
  /** 'starting' | 'online' | 'alone' (the peer's status). */
  status: string;
  /** path: how the link is carried (net/link-path.ts pathKind), undefined while unknown; bytes: carried both ways so far. */
  links: { hex: string; rttMs: number | null; path?: CandidateType; bytes?: number }[];
  networkSize: number;
  regions: HostRegionRow[];
  tickHz: number;
  uptimeMs: number;
  /** Totals since the page opened. */
  edits: { accepted: number; confirmed: number; refused: number; takenOver: number; handedOn: number };
  traffic: { inBytes: number; outBytes: number };
  /** navigator.storage figures; undefined where the browser does not say. */
  storage: { usage: number | undefined; quota: number | undefined; persisted: boolean | undefined; capMb: number };
  history: { links: readonly number[]; inKBps: readonly number[]; outKBps: readonly number[]; editsPerSec: readonly number[] };
  invite: string;
  /** A problem worth showing (no relay, no store), if any. */
  problem?: string;
}

export interface HostDashboardActions {
  /** Host another world (the page reloads). */
  chooseWorld(world: string): void;
  /** Warn above this many MB of this site's storage. */
  setStorageCap(mb: number): void;
}

/** Who stands in a region, for its row: names with short ids, or why there are none (a backup hears no positions). */
export function presentText(r: Pick<HostRegionRow, 'role' | 'present' | 'presentCount'>): string {
  if (r.role !== 'primary') return 'known to the primary';
  const who = r.present.map((p) => `${p.name} (${p.id})`).join(', ');
  const more = r.presentCount > r.present.length ? ` and ${r.presentCount - r.present.length} more` : '';
  return who + more || '-';
}

/** Warn when usage passes this share of the quota (or of the cap). */
const NEAR_FULL = 0.9;

export const fmtUptime = (ms: number): string => {
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  return d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${s % 60} s` : `${s} s`;
};

export const fmtBytes = (b: number): string =>
  b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(2)} GB` : b >= 2 ** 20 ? `${(b / 2 ** 20).toFixed(1)} MB` : b >= 1024 ? `${(b / 1024).toFixed(1)} kB` : `${b} B`;

/** A link's path in a host's words. */
const PATH_WORDS: Record<CandidateType, string> = {
  host: 'direct (host)',
  prflx: 'direct, address learned in checks (prflx)',
  srflx: 'through NAT (srflx)',
  relay: 'through TURN (relay)',
};

/** The share of the live links' bytes that went through a TURN relay (0 with no bytes). */
export function relayedShare(links: HostDashboardData['links']): number {
  const total = links.reduce((n, l) => n + (l.bytes ?? 0), 0);
  return total === 0 ? 0 : links.reduce((n, l) => n + (l.path === 'relay' ? l.bytes ?? 0 : 0), 0) / total;
}

/** "2 direct (host) · 1 through TURN (relay), 40% of link traffic": the links counted by how they are carried. */
export function pathSummary(n: PathCounts, relayed: number): string {
  const parts = (['host', 'prflx', 'srflx'] as const).filter((k) => n[k] > 0).map((k) => `${n[k]} ${PATH_WORDS[k]}`);
  parts.push(`${n.relay} ${PATH_WORDS.relay}, ${Math.round(relayed * 100)}% of link traffic`);
  if (n.unknown > 0) parts.push(`${n.unknown} not known yet`);
  return parts.join(' · ');
}

export class HostDashboard {
  private readonly root: HTMLElement;
  private readonly fields = new Map<string, HTMLElement>();
  private readonly charts: { links: Sparkline; traffic: Sparkline; edits: Sparkline };
  private invite = '';

  constructor(container: HTMLElement, actions: HostDashboardActions) {
    this.root = document.createElement('div');
    this.root.className = 'host-dashboard';
    this.root.innerHTML = `
      <h1>Voxel Populi · hosting</h1>
      <p class="lead">This tab keeps part of the world alive: the regions below are served from here.
      Leave it open (it may stay in the background); closing it hands them to other hosts.</p>
      <div class="problem" hidden></div>
      <div class="warn" hidden></div>
      <div class="charts"></div>
      <dl>
        <dt>World</dt><dd data-f="world"></dd>
        <dt>Node</dt><dd data-f="node"></dd>
        <dt>Up for</dt><dd data-f="uptime"></dd>
        <dt>Network</dt><dd data-f="network"></dd>
        <dt>Links</dt><dd data-f="links"></dd>
        <dt>Traffic</dt><dd data-f="traffic"></dd>
        <dt>Tick</dt><dd data-f="tick"></dd>
        <dt>Edits</dt><dd data-f="edits"></dd>
        <dt>Failovers</dt><dd data-f="failovers"></dd>
        <dt>Storage</dt><dd data-f="storage"></dd>
      </dl>
      <h2>Regions</h2>
      <table class="regions"><thead><tr><th>region</th><th>role</th><th>players</th><th>who stands there</th><th>edits/s</th><th>edits kept</th></tr></thead><tbody></tbody></table>
      <h2>Settings</h2>
      <form class="settings">
        <label>World <input name="world" pattern="[\\w.\\-]{1,64}" required size="16" /></label>
        <button type="submit">Host this world</button>
        <label>Warn above <input name="cap" type="number" min="10" max="1000000" step="10" size="7" /> MB of storage</label>
      </form>
      <p><button type="button" class="copy">Copy an invite link</button> <span class="copied"></span></p>`;
    for (const el of this.root.querySelectorAll<HTMLElement>('[data-f]')) this.fields.set(el.dataset.f!, el);
    const charts = this.root.querySelector<HTMLElement>('.charts')!;
    this.charts = {
      links: new Sparkline(charts, 'Links', ''),
      traffic: new Sparkline(charts, 'Traffic', 'kB/s'),
      edits: new Sparkline(charts, 'Edits', '/s'),
    };
    this.root.querySelector('.copy')!.addEventListener('click', () => {
      const said = this.root.querySelector<HTMLElement>('.copied')!;
      navigator.clipboard?.writeText(this.invite).then(() => (said.textContent = 'copied'), () => (said.textContent = this.invite));
    });
    const form = this.root.querySelector<HTMLFormElement>('.settings')!;
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const w = (form.elements.namedItem('world') as HTMLInputElement).value.trim();
      if (/^[\w.-]{1,64}$/.test(w)) actions.chooseWorld(w);
    });
    (form.elements.namedItem('cap') as HTMLInputElement).addEventListener('change', (e) => {
      const mb = Number((e.target as HTMLInputElement).value);
      if (Number.isFinite(mb) && mb >= 10) actions.setStorageCap(mb);
    });
    container.append(this.root);
  }

  private set(field: string, text: string): void {
    const el = this.fields.get(field);
    if (el && el.textContent !== text) el.textContent = text;
  }

  render(figures: HostDashboardData): void {
    this.invite = figures.invite;
    const form = this.root.querySelector<HTMLFormElement>('.settings')!;
    for (const [name, value] of [['world', figures.world], ['cap', String(figures.storage.capMb)]] as const) {
      const input = form.elements.namedItem(name) as HTMLInputElement;
      if (document.activeElement !== input && !input.value) input.value = value;
    }
    this.set('world', figures.world);
    this.set('node', figures.nodeId);
    this.set('uptime', fmtUptime(figures.uptimeMs));
    this.set('network', `${figures.status} · about ${figures.networkSize} nodes in the network (estimated from this tab's routing table)`);
    const rtts = figures.links.map((l) => l.rttMs).filter((x): x is number => x !== null).sort((a, b) => a - b);
    const rtt = rtts.length > 0 ? ` · round trip median ${rtts[Math.floor(rtts.length / 2)]!.toFixed(1)} ms, max ${rtts.at(-1)!.toFixed(1)} ms` : '';
    const paths = countPaths(figures.links.map((l) => l.path));
    const relayed = relayedShare(figures.links);
    this.set('links', `${figures.links.length} live${rtt}\n${pathSummary(paths, relayed)}\n${figures.links.map((l) => `${l.hex.slice(0, 8)} ${l.rttMs === null ? '…' : `${l.rttMs.toFixed(1)} ms`}${l.path ? ` ${l.path}` : ''}`).join('   ')}`);
    const history = figures.history;
    this.set('traffic', `in ${fmtBytes(figures.traffic.inBytes)} (${(history.inKBps.at(-1) ?? 0).toFixed(1)} kB/s) · out ${fmtBytes(figures.traffic.outBytes)} (${(history.outKBps.at(-1) ?? 0).toFixed(1)} kB/s)`);
    const primaries = figures.regions.filter((r) => r.role === 'primary').length;
    this.set('tick', primaries > 0 ? `${figures.tickHz.toFixed(1)} Hz per primary region` : 'idle (no primary region)');
    this.set('edits', `${figures.edits.accepted} accepted, ${figures.edits.confirmed} confirmed, ${figures.edits.refused} refused`);
    this.set('failovers', `${figures.edits.takenOver} regions taken over, ${figures.edits.handedOn} handed on`);
    this.renderStorage(figures.storage);
    this.renderRegions(figures.regions);
    this.charts.links.draw([{ values: history.links, colour: '#9fd3ff', label: 'now' }]);
    this.charts.traffic.draw([{ values: history.inKBps, colour: '#8fe388', label: 'in' }, { values: history.outKBps, colour: '#ffb86b', label: 'out' }]);
    this.charts.edits.draw([{ values: history.editsPerSec, colour: '#f7e07a', label: 'now' }]);
    const problem = this.root.querySelector<HTMLElement>('.problem')!;
    problem.hidden = !figures.problem;
    problem.textContent = figures.problem ?? '';
    Object.assign(this.root.dataset, {
      primary: String(primaries),
      backup: String(figures.regions.length - primaries),
      links: String(figures.links.length),
      rtts: String(rtts.length),
      pathsHost: String(paths.host),
      pathsPrflx: String(paths.prflx),
      pathsSrflx: String(paths.srflx),
      pathsRelay: String(paths.relay),
      pathsUnknown: String(paths.unknown),
      relayedShare: relayed.toFixed(3),
      edits: String(figures.edits.accepted),
      entries: String(figures.regions.reduce((n, r) => n + r.entries, 0)),
      bytesIn: String(figures.traffic.inBytes),
      bytesOut: String(figures.traffic.outBytes),
      networkSize: String(figures.networkSize),
      persisted: String(figures.storage.persisted),
    });
  }

  private renderStorage(storage: HostDashboardData['storage']): void {
    const used = storage.usage === undefined ? 'unknown' : fmtBytes(storage.usage);
    const quota = storage.quota === undefined ? '' : ` of ${fmtBytes(storage.quota)} allowed`;
    const kept = storage.persisted === undefined ? 'persistence: asking…' : storage.persisted ? 'persistent (the browser will not clear it to free space)' : 'not persistent (the browser may clear it when space runs low)';
    this.set('storage', `${used}${quota} · your cap ${storage.capMb} MB · ${kept}`);
    const warn = this.root.querySelector<HTMLElement>('.warn')!;
    const capBytes = storage.capMb * 2 ** 20;
    const words = storage.usage === undefined ? ''
      : storage.quota !== undefined && storage.usage > NEAR_FULL * storage.quota ? `Storage almost full: ${used}${quota}. New edits may fail to be kept; free space or host a smaller world.`
        : storage.usage > capBytes ? `Storage above your cap: ${used} (cap ${storage.capMb} MB).`
          : storage.usage > NEAR_FULL * capBytes ? `Storage near your cap: ${used} of ${storage.capMb} MB.` : '';
    warn.hidden = !words;
    warn.textContent = words;
  }

  private renderRegions(rows: HostRegionRow[]): void {
    const body = this.root.querySelector<HTMLElement>('.regions tbody')!;
    const sorted = [...rows].sort((a, b) => (a.role === b.role ? a.name.localeCompare(b.name) : a.role === 'primary' ? -1 : 1));
    // Redrawn only when something shown changed (a table rebuilt every 2 s loses a selection).
    const shown = JSON.stringify(sorted.map((r) => [r.name, r.role, r.players, r.present, r.presentCount, r.editsPerSec.toFixed(2), r.entries]));
    if (body.dataset.shown === shown) return;
    body.dataset.shown = shown;
    // Names are the players' own words: text nodes only, never markup.
    body.replaceChildren(...sorted.map((r) => {
      const tr = document.createElement('tr');
      tr.dataset.region = r.name;
      tr.dataset.role = r.role;
      const cells = [r.name, r.role, String(r.players), presentText(r), r.editsPerSec.toFixed(2), String(r.entries)];
      tr.append(...cells.map((text) => {
        const td = document.createElement('td');
        td.textContent = text;
        return td;
      }));
      tr.children[3]!.classList.add('present');
      return tr;
    }));
    if (sorted.length === 0) {
      const td = document.createElement('td');
      td.colSpan = 6;
      td.textContent = 'none yet: regions come to this tab as players use the world near its node id';
      body.replaceChildren(document.createElement('tr'));
      body.firstElementChild!.append(td);
    }
  }
}
