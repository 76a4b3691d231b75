// Whether a link's network path died under it (a home's NAT forgot its mapping, its public
// address moved), judged from its connection's byte counters, not from the far end's pages:
// a far tab that is starved or throttled sends no frames, but its browser's network thread
// still acknowledges every SCTP packet we send (and answers ICE), so bytes keep coming in
// at the transport. A path is dead when we sent and nothing at all came back: not a frame,
// not an acknowledgement, for `deadMs`, with what we sent due an answer for `ackDueMs`.
// Without it a dead path is found by the DHT's probe (a PING unanswered for its 4 s RPC
// timeout) or its 15 s heartbeat timeout, and ICE itself says 'disconnected' only after 5 s
// of unanswered checks (bench/lab, docs/TESTING.md "Networks change").
// Our own absence judges nothing: a sample after a gap (this tab starved, throttled or
// suspended) starts afresh, since the silence may be ours to read late. Pure; times in ms.

/**
 * A browser's links: a path silent this long, with sends unanswered, is dead. A live one
 * answers within a round trip plus the delayed-ack wait (200 ms), even from a starved tab.
 */
export const PATH_DEAD_MS = 2000;

export interface PathWatchOptions {
  /** Nothing received for this long, with sends unanswered: the path is dead. */
  deadMs: number;
  /** What we sent must have been due an answer this long (an acknowledgement takes one round trip plus the delayed-ack wait). */
  ackDueMs: number;
  /** Two samples further apart than this (our timers ran late): start afresh, judge nothing. */
  maxGapMs: number;
}

interface Sample { at: number; bytesIn: number; bytesOut: number }

export class PathWatch {
  private last: Sample | undefined;
  private heardAt = -Infinity;
  /** Since when bytes we sent wait for anything back; undefined: nothing owed. */
  private owedSince: number | undefined;

  constructor(private readonly o: PathWatchOptions) {}

  /** A frame from the far end came (the path carries): nothing owed. */
  heard(at: number): void {
    this.heardAt = Math.max(this.heardAt, at);
    this.owedSince = undefined;
  }

  /** Forget the counters (no sample for a while, or none wanted): the next sample is a first one. */
  reset(): void {
    this.last = undefined;
    this.owedSince = undefined;
  }

  /**
   * The connection's total bytes received and sent at `at`; true when the path is judged
   * dead. A first sample, or one after a gap, only sets the baseline.
   */
  sample(at: number, bytesIn: number, bytesOut: number): boolean {
    const prev = this.last;
    this.last = { at, bytesIn, bytesOut };
    if (prev === undefined || at - prev.at > this.o.maxGapMs) {
      // After a gap the silence so far is not the far end's to answer for.
      if (prev !== undefined) this.heardAt = at;
      this.owedSince = undefined;
      return false;
    }
    if (bytesIn > prev.bytesIn) {
      this.heard(at);
      return false;
    }
    if (bytesOut > prev.bytesOut) this.owedSince ??= prev.at;
    return this.owedSince !== undefined && at - this.owedSince >= this.o.ackDueMs && at - this.heardAt >= this.o.deadMs;
  }
}

/** Total bytes received and sent by a connection, from its stats (plain objects, as link-path.ts reads them); undefined when they give none. */
export function connectionBytes(report: Iterable<{ type?: unknown; [k: string]: unknown }>): { bytesIn: number; bytesOut: number } | undefined {
  let bytesIn = 0, bytesOut = 0, seen = false;
  const all = [...report];
  // The transport's counters cover every candidate pair it used (ICE may switch pairs when a
  // mapping changes); a runtime without them gives the pairs' own.
  const transports = all.filter((s) => s.type === 'transport' && typeof s.bytesReceived === 'number');
  for (const s of transports.length ? transports : all.filter((s) => s.type === 'candidate-pair' && typeof s.bytesReceived === 'number')) {
    bytesIn += s.bytesReceived as number;
    bytesOut += typeof s.bytesSent === 'number' ? s.bytesSent : 0;
    seen = true;
  }
  return seen ? { bytesIn, bytesOut } : undefined;
}
