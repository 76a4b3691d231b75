// The hosting page's figures over time: counters (bytes in and out, edits) turned into
// rates, and the last minutes of links, traffic and edits kept for its charts. DOM-free,
// sampled by the page on its worker-driven clock, so a hidden tab keeps a true history.

export const HOST_HISTORY_DEFAULTS = {
  /** Samples kept per series (one per sample call; the page samples every 2 s: 10 minutes). */
  keep: 300,
};

export interface HostSample {
  /** ms, on the page clock. */
  at: number;
  links: number;
  bytesIn: number;
  bytesOut: number;
  /** Edits kept by this tab's hosted regions, primary or backup (their growth is the edit rate through this tab). */
  edits: number;
  /** Per hosted region: entries in its edit log (edits/s is their growth). */
  regionEntries: Record<string, number>;
}

export interface HostSeries {
  links: number[];
  inKBps: number[];
  outKBps: number[];
  editsPerSec: number[];
}

export class HostHistory {
  readonly series: HostSeries = { links: [], inKBps: [], outKBps: [], editsPerSec: [] };
  /** Edits per second of each region over the last sample interval. */
  regionRates: Record<string, number> = {};
  private last: HostSample | undefined;
  private readonly keep: number;

  constructor(options: Partial<typeof HOST_HISTORY_DEFAULTS> = {}) {
    this.keep = { ...HOST_HISTORY_DEFAULTS, ...options }.keep;
  }

  push(s: HostSample): void {
    const prev = this.last;
    this.last = s;
    if (!prev || s.at <= prev.at) return;
    const secs = (s.at - prev.at) / 1000;
    // Counters never shrink; one that did was reset (a new session): no negative rates.
    const rate = (now: number, before: number) => Math.max(0, now - before) / secs;
    this.add('links', s.links);
    this.add('inKBps', rate(s.bytesIn, prev.bytesIn) / 1024);
    this.add('outKBps', rate(s.bytesOut, prev.bytesOut) / 1024);
    this.add('editsPerSec', rate(s.edits, prev.edits));
    this.regionRates = Object.fromEntries(Object.entries(s.regionEntries).map(([r, n]) => [r, prev.regionEntries[r] === undefined ? 0 : rate(n, prev.regionEntries[r])]));
  }

  /** The latest value of a series (0 before two samples). */
  latest(k: keyof HostSeries): number {
    return this.series[k].at(-1) ?? 0;
  }

  private add(k: keyof HostSeries, v: number): void {
    const a = this.series[k];
    a.push(v);
    if (a.length > this.keep) a.shift();
  }
}
