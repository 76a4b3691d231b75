// A dial's offer sent through a relay can reach a far end that cannot hear it: a router
// that forgot its mappings (restarted, or its table flushed) drops the relay's frames to
// the far end until that end sends on its relay socket again (relay-bootstrap.ts keepalive,
// a few seconds), and a socket found dead is replaced, with whatever the relay had queued
// on it. The offer then waits for TCP's retransmissions, or is lost, and the dial times out
// (15 s) having asked once. So a dial whose offer is unanswered sends it again, with its
// candidates, every few seconds: once the far end hears the relay again, the next copy
// reaches it. The far end takes a copy of an offer it has as nothing (the same SDP) and
// drops candidates it has taken already (SeenCandidates), so a copy that arrives after the
// first costs nothing but the frames.
import type { Clock, TimerHandle } from '../core/clock';
import type { SignalBlob } from './transport';

/** Signals kept for resending: an offer and a browser's handful of candidates (more are not resent). */
const MAX_KEPT = 16;
/** Remote candidates remembered per connection to drop copies; beyond this, copies pass (the stack takes a duplicate as nothing). */
const MAX_SEEN = 64;

/** One dial's signals to the far end, resent while nothing answered. */
export class OfferResend {
  private readonly kept: SignalBlob[] = [];
  private timer: TimerHandle | undefined;
  private left: number;
  private stopped = false;

  /** `resend` gets the signals sent so far, every `everyMs` from the first, at most `times` times, until `answered` or `stop`. */
  constructor(
    private readonly clock: Clock,
    private readonly everyMs: number,
    times: number,
    private readonly resend: (blobs: readonly SignalBlob[]) => void,
  ) {
    this.left = times;
  }

  /** A signal of ours to the far end: kept for resending; the first one starts the clock. */
  sent(blob: SignalBlob): void {
    if (this.stopped) return;
    if (this.kept.length < MAX_KEPT) this.kept.push(blob);
    if (this.timer === undefined) this.arm();
  }

  /** The far end answered (or the dial ended): nothing more is resent. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
  }

  private arm(): void {
    if (this.stopped || this.left <= 0) return;
    this.timer = this.clock.setTimeout(() => {
      if (this.stopped) return;
      this.left--;
      this.resend(this.kept);
      this.arm();
    }, this.everyMs);
  }
}

/** The remote candidates a connection has taken, to drop the copies a resend brings. */
export class SeenCandidates {
  private readonly seen = new Set<string>();

  /** True the first time `candidate` (its a=candidate line) is seen; false for a copy. */
  first(candidate: string): boolean {
    if (this.seen.has(candidate)) return false;
    if (this.seen.size < MAX_SEEN) this.seen.add(candidate);
    return true;
  }
}
