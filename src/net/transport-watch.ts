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
// transport was last heard. Only while watched: a link costs no stats call otherwise.
//
// Nothing heard is proven only by readings that could have heard: a probe sent after the
// reading that set the counters' baseline (its callback: the counters were read before it),
// then TRANSPORT_DEAF_MS of readings each asked on time (at most a poll and TRANSPORT_LATE_MS
// after the one before) and answered on time (within TRANSPORT_LATE_MS), none of them
// grown: the far end did not acknowledge it (`unanswered`). A reading asked or answered late
// (our own tab starved: its timers, its stats calls and perhaps its network thread behind
// what came in) proves nothing: it begins the run again from its callback; what it saw grow
// is heard all the same. Pure; the link (webrtc-link.ts) sends and reads. Times in ms.

/** The counters are read this often while watched. */
export const TRANSPORT_POLL_MS = 125;
/** A probe goes at a reading at least this long after the last one (so at every second reading, 250 ms apart) while watched: its acknowledgement comes within a round trip plus 200 ms. */
export const TRANSPORT_PROBE_MS = 200;

/** A probe unanswered this long, by readings on time, proves the far end deaf (a live one acknowledges within a round trip plus the 200 ms delayed ack). */
export const TRANSPORT_DEAF_MS = 400;
/** A reading answered this long after it was asked, or asked this long past its poll after the one before, is late: it proves nothing unanswered. */
export const TRANSPORT_LATE_MS = TRANSPORT_POLL_MS;

/** The far end proven deaf: a probe sent at `probedAt` still unanswered by a reading on time asked at `at`. */
export interface TransportUnanswered {
  probedAt: number;
  at: number;
}

/** A connection watched at the transport (WebRtcLink in a browser). */
export interface TransportProbe {
  /** Probe the far end and read the counters until `untilMs` (clock time; extends a watch under way); false: this link cannot be watched (now). */
  watchTransport(untilMs: number): boolean;
  /**
   * When a watch last saw anything come in from the far end (clock time, at the reading that
   * saw it), or undefined: never, or a runtime whose counters do not count acknowledgements.
   */
  transportHeardAt(): number | undefined;
  /** The latest proof that the far end answers nothing (cleared by anything heard and by a new watch), or undefined. */
  transportUnanswered(): TransportUnanswered | undefined;
}

/** Whether `link` can be watched at the transport. */
export const isTransportProbe = (link: object): link is TransportProbe =>
  typeof (link as Partial<TransportProbe>).watchTransport === 'function' &&
  typeof (link as Partial<TransportProbe>).transportHeardAt === 'function' &&
  typeof (link as Partial<TransportProbe>).transportUnanswered === 'function';

export class TransportWatch {
  private until = -Infinity;
  private probedAt = -Infinity;
  /** The counter at the last reading of this watch; undefined: the next reading is a baseline. */
  private base: number | undefined;
  heardAt: number | undefined;
  /**
   * The readings that heard nothing since `from` (the callback of the reading that set the
   * baseline): `probedAt` the first probe sent after it (NaN: none yet), `askedAt` when the
   * last of them was asked.
   */
  private quiet: { from: number; probedAt: number; askedAt: number } | undefined;
  unanswered: TransportUnanswered | undefined;

  /** Watch until `untilMs`; true when a watch starts now (the shell starts its timer). */
  extend(now: number, untilMs: number): boolean {
    const idle = !this.watching(now);
    this.until = Math.max(this.until, untilMs);
    if (!idle || !this.watching(now)) return false;
    this.base = undefined;
    this.probedAt = -Infinity;
    this.quiet = this.unanswered = undefined;
    return true;
  }

  watching(now: number): boolean {
    return now < this.until;
  }

  /** A tick of the watch's timer: 'stop' once it is over, else whether a probe goes now (the counters are read either way). */
  tick(now: number): 'stop' | 'probe' | 'read' {
    if (!this.watching(now)) return 'stop';
    if (now - this.probedAt < TRANSPORT_PROBE_MS) return 'read';
    this.probed(now);
    return 'probe';
  }

  /**
   * The counter of what came in from the far end (path-watch.ts connectionCounters `bytesIn`),
   * read at `now` (the callback) for a reading asked at `askedAt`. True when the shell sends a
   * probe now: the watch's first baseline is set, and a probe sent after it proves something
   * (the one of the watch's first tick may have been answered before the counters were read).
   */
  sample(now: number, bytesIn: number, askedAt = now): boolean {
    const first = this.base === undefined;
    const grew = !first && bytesIn > this.base!;
    this.base = bytesIn;
    if (grew) {
      this.heardAt = now;
      this.unanswered = undefined;
    }
    const q = this.quiet;
    const onTime = q !== undefined && now - askedAt <= TRANSPORT_LATE_MS && askedAt - q.askedAt <= TRANSPORT_POLL_MS + TRANSPORT_LATE_MS;
    if (first || grew || !onTime) {
      this.quiet = { from: now, probedAt: NaN, askedAt };
      if (first) this.probed(now);
      return first;
    }
    q.askedAt = askedAt;
    if (askedAt - q.probedAt >= TRANSPORT_DEAF_MS) this.unanswered = { probedAt: q.probedAt, at: askedAt };
    return false;
  }

  /** A probe goes now. */
  private probed(now: number): void {
    this.probedAt = now;
    if (this.quiet && Number.isNaN(this.quiet.probedAt) && now >= this.quiet.from) this.quiet.probedAt = now;
  }
}
