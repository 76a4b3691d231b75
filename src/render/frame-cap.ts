// A limit on how many frames a page draws a second (the player's "Frame rate limit" setting,
// or `?fps=N` for one page load). Animation frames come as fast as the display refreshes, and
// each drawn frame costs the page's CPU (and with software WebGL a whole core): a tab that
// also hosts regions, a laptop on battery or a phone leaves that CPU to the world instead.
// Frames are due on a schedule one interval apart, each taken a little early for the
// display's timing jitter, so a 30 fps limit on a 60 Hz display draws every second refresh
// rather than alternating one and three, and the rate never exceeds the limit over time.
export class FrameCap {
  private next = -Infinity;
  private minMs = 0;
  private maxFps = 0;

  /** `maxFps` 0: no limit (every animation frame). */
  constructor(maxFps = 0) {
    this.set(maxFps);
  }

  /** A new limit restarts the schedule; the same one again changes nothing (callers may set it every frame). */
  set(maxFps: number): void {
    if (maxFps === this.maxFps) return;
    this.maxFps = maxFps;
    this.minMs = maxFps > 0 ? 1000 / maxFps : 0;
    this.next = -Infinity;
  }

  /** Whether the animation frame at `now` (ms) is drawn; when it is, the next is due an interval later. */
  due(now: number): boolean {
    if (this.minMs === 0) return true;
    if (now < this.next - JITTER_MS) return false;
    // A frame later than a whole interval (a stalled tab) restarts the schedule: no burst to catch up.
    this.next = now - this.next > this.minMs ? now + this.minMs : this.next + this.minMs;
    return true;
  }
}

/** Animation frames arrive a millisecond or two off their interval. */
const JITTER_MS = 3;
