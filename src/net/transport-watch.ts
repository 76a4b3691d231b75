// Whether a connection's far end still answers at the transport while its page says nothing.
// A browser tab whose main thread is starved or blocked still has its renderer's network
// thread acknowledge every SCTP packet we send (within a round trip plus the 200 ms delayed
// ack) and answer ICE checks; a crashed renderer or a killed or frozen process answers
// nothing (path-watch.ts). Measured on Chromium (two tabs, one blocked 1.5 s in a synchronous
// request): with nothing sent to it, the far end's counters stood still for the whole block;
// with a small frame sent every 250 ms, an acknowledgement came back ~200 ms after each; after
// its renderer crashed, nothing. So while a higher layer waits on a silent peer it asks for a
// watch: we send the peer a probe (frames.ts FrameKind.Probe: read as nothing, never as a bad
// frame, by a peer that said it reads them) every TRANSPORT_PROBE_MS and
// read the connection's counters every TRANSPORT_POLL_MS, and a growth seen is the time the
// transport was last heard. Only while watched: a link costs no stats call otherwise. Pure;
// the link (webrtc-link.ts) sends and reads. Times in ms.

/** The counters are read this often while watched. */
export const TRANSPORT_POLL_MS = 125;
/** A probe goes at a reading at least this long after the last one (so at every second reading, 250 ms apart) while watched: its acknowledgement comes within a round trip plus 200 ms. */
export const TRANSPORT_PROBE_MS = 200;

/** A connection watched at the transport (WebRtcLink in a browser). */
export interface TransportProbe {
  /** Probe the far end and read the counters until `untilMs` (clock time; extends a watch under way); false: this link cannot be watched (now). */
  watchTransport(untilMs: number): boolean;
  /**
   * When a watch last saw anything come in from the far end (clock time, at the reading that
   * saw it), or undefined: never, or a runtime whose counters do not count acknowledgements.
   */
  transportHeardAt(): number | undefined;
}

/** Whether `link` can be watched at the transport. */
export const isTransportProbe = (link: object): link is TransportProbe =>
  typeof (link as Partial<TransportProbe>).watchTransport === 'function' && typeof (link as Partial<TransportProbe>).transportHeardAt === 'function';

export class TransportWatch {
  private until = -Infinity;
  private probedAt = -Infinity;
  /** The counter at the last reading of this watch; undefined: the next reading is a baseline. */
  private base: number | undefined;
  heardAt: number | undefined;

  /** Watch until `untilMs`; true when a watch starts now (the shell starts its timer). */
  extend(now: number, untilMs: number): boolean {
    const idle = !this.watching(now);
    this.until = Math.max(this.until, untilMs);
    if (!idle || !this.watching(now)) return false;
    this.base = undefined;
    this.probedAt = -Infinity;
    return true;
  }

  watching(now: number): boolean {
    return now < this.until;
  }

  /** A tick of the watch's timer: 'stop' once it is over, else whether a probe goes now (the counters are read either way). */
  tick(now: number): 'stop' | 'probe' | 'read' {
    if (!this.watching(now)) return 'stop';
    if (now - this.probedAt < TRANSPORT_PROBE_MS) return 'read';
    this.probedAt = now;
    return 'probe';
  }

  /** The counter of what came in from the far end (path-watch.ts connectionCounters `bytesIn`), read at `now`. */
  sample(now: number, bytesIn: number): void {
    if (this.base !== undefined && bytesIn > this.base) this.heardAt = now;
    this.base = bytesIn;
  }
}
