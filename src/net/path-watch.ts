// Whether a link's network path died under it (a home's NAT forgot its mapping, its public
// address moved), judged from its connection's counters, not from the far end's pages. What
// tells a dead path from a slow peer: a far tab that is starved or throttled sends few or no
// frames, but its browser's network thread (not the page's: DevTools' CPU throttling and a
// busy page slow the page's main thread only) still acknowledges every SCTP packet we send,
// so the transport's bytes in keep moving while we send. A dead path brings in none. So a
// path is dead when we sent and nothing came back: not a frame, not a DTLS record (data or
// acknowledgement), for `deadMs`, with what we sent due an answer for `ackDueMs`. ICE checks
// and answers are no answer (connectionCounters). A peer that answers nothing for that long at the
// transport (a frozen process, not a slow page) is dialled anew: the DHT's own probe would
// drop it 2 s later anyway.
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
   * The connection's counters at `at` (connectionCounters: `bytesIn` anything the far end
   * sent us, `bytesOut` what we sent); true when the path is judged dead. A first sample,
   * or one after a gap, only sets the baseline.
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

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/**
 * What a connection heard from the far end and sent it, from its stats (plain objects, as
 * link-path.ts reads them); undefined when they give no byte counts. `bytesIn`: bytes
 * received (data and acknowledgements; ICE checks are not counted); `bytesOut`: bytes sent.
 */
export function connectionCounters(report: Iterable<{ type?: unknown; [k: string]: unknown }>): { bytesIn: number; bytesOut: number } | undefined {
  let bytesIn = 0, bytesOut = 0, seen = false;
  const all = [...report];
  const pairs = all.filter((s) => s.type === 'candidate-pair');
  // The transport's counters cover every candidate pair it used (ICE may switch pairs when a
  // mapping changes); a runtime without them gives the pairs' own.
  const transports = all.filter((s) => s.type === 'transport' && typeof s.bytesReceived === 'number');
  for (const s of transports.length ? transports : pairs.filter((s) => typeof s.bytesReceived === 'number')) {
    bytesIn += num(s.bytesReceived);
    bytesOut += num(s.bytesSent);
    seen = true;
  }
  // Not the pairs' STUN checks and answers: they prove an ICE agent answers on some pair, not
  // that our data moves. In bench/lab's path death (e2e/lab.test.ts), 2.5 s after the direct
  // path died Chromium checked its other pairs, a relay candidate's pair answered through the
  // TURN server, and ICE selected it at 3.6 s while the far end (node-datachannel) kept
  // sending to the dead address: every answer kept the watch from judging, until the DHT's
  // probe closed the link at ~5 s. A live far end acknowledges the data we owe it from its
  // network thread, whatever its page does, and those acknowledgements are bytes in.
  return seen ? { bytesIn, bytesOut } : undefined;
}
