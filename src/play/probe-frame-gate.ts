// When a drawing page sends its clock probes (agree/world-clock.ts `sendAt`). A reply is
// timed when the page's code runs, not when it arrives: one that lands during a frame
// (57 ms of main-thread work at 17 fps on software GL) waits for the frame to end, and that
// wait reads as a longer way back, which no exchange of timestamps can tell from a clock
// offset: the estimate ran ~11 ms late (docs/ITEMS.md). Looking for an idle period
// (requestIdleCallback) found one in 10 of 84 rounds on the loaded machine.
//
// So the page makes its own idle period: a probe round waits for the next frame, goes out at
// the top of it, and that frame is skipped (nothing drawn, its callback returns at once):
// the main thread has nothing to do until the next vsync (16.7 ms), far longer than a round
// trip on loopback or a LAN, so the reply is read as it arrives. The cost is one skipped
// frame per round (every 2 s once synchronised; the first 8 rounds 100 ms apart). One gate
// serves both of the page's clocks, its player's and its host's (agree/host-items.ts), so
// their rounds share the skipped frames. A page
// that draws no frames (hidden) sends after `waitMs`, counted as `late`. A frame that must
// be drawn (an item first shows in it: skipping it would show the item a frame late) keeps
// the rounds for the frame after.
import type { Clock, TimerHandle } from '../core/clock';

/** Rounds held at most (two clocks' rounds, the player's and the host's, come every 100 ms at the fastest, frames far more often). */
const MAX_HELD = 4;
/** A round waits at most this long for a frame to skip (a hidden page draws none). */
export const PROBE_WAIT_MS = 1000;

export class ProbeFrameGate {
  /** Rounds sent at the top of a skipped frame, and after waiting `waitMs` for a frame in vain. */
  readonly rounds = { idle: 0, late: 0 };
  /** Frames that would have been skipped but had to be drawn (the rounds waited one frame more). */
  deferred = 0;
  private held: { go: () => void; timer: TimerHandle }[] = [];

  constructor(private readonly clock: Clock, private readonly waitMs: number) {}

  /** WorldClock's `sendAt`: `go` sends the round (reading its send time as it does). */
  sendAt(go: () => void): void {
    const entry = { go, timer: undefined as TimerHandle };
    entry.timer = this.clock.setTimeout(() => this.release(entry, 'late'), this.waitMs);
    this.held.push(entry);
    if (this.held.length > MAX_HELD) this.release(this.held[0]!, 'late');
  }

  /**
   * At the top of each frame: sends the held rounds and returns true when there were any
   * (the caller skips the frame, so the replies find the main thread idle). `mustDraw`: this
   * frame is to be drawn whatever is held (the rounds wait for the next one).
   */
  beforeFrame(mustDraw = false): boolean {
    if (this.held.length === 0) return false;
    if (mustDraw) {
      this.deferred++;
      return false;
    }
    for (const entry of [...this.held]) this.release(entry, 'idle');
    return true;
  }

  private release(entry: { go: () => void; timer: TimerHandle }, how: 'idle' | 'late'): void {
    const i = this.held.indexOf(entry);
    if (i < 0) return;
    this.held.splice(i, 1);
    this.clock.clearTimeout(entry.timer);
    this.rounds[how]++;
    entry.go();
  }
}
