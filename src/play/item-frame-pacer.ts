// Which frames a drawing page draws around an item's appearance. A page shows an item on its
// first frame whose world time reaches the item's `at`; at 20 fps (software GL on a loaded
// machine) that frame comes up to 50 ms after `at`, while pages drawing at 60 fps show it
// within 17 ms: the spawn skew between tabs is the slow page's frame interval
// (docs/ITEMS.md "What the tab figures measure"). A slow page's frames are slow because each
// one's drawing takes several display refreshes; a frame it does not draw costs nothing, and
// the next animation frame comes at the next refresh. So when an item is due before the next
// frame would come, the page holds (draws nothing) until the first refresh at or past `at`,
// and draws that one: the item shows within a refresh of its time, at the cost of one frame
// shown longer (the gap between drawn frames grows by at most the typical gap plus a refresh).
// A page whose frames come every refresh never holds: its next frame is already the first one
// at or past `at`.

/** Drawn-frame gaps kept to judge the page's frame interval (their median). */
const GAPS_KEPT = 9;
/** Animation-frame intervals kept to judge the display's refresh (their smallest). */
const TICKS_KEPT = 30;
/** A refresh is taken to be at most this long (60 Hz); a page that never skipped a frame has seen none shorter than its frames. */
const REFRESH_MS = 1000 / 60;
/**
 * A gap between drawn frames longer than this is a stall (a hidden tab, a main thread blocked
 * by a long task), not the page's frame interval. Kept, it would be the median while the gaps
 * are few (a page under a frame rate limit keeps only those between two frames drawn one
 * refresh apart), and every frame would be held for the whole 2 s an item is announced ahead:
 * the player standing still (no frame drawn, no step) until the item shows.
 */
const STALL_MS = 1000;

export type FrameChoice = 'draw' | 'due' | 'hold';

export class ItemFramePacer {
  /** Frames held (not drawn) so that an item's first frame falls on its time. */
  held = 0;
  private lastWorld = -Infinity;
  private lastDrawn = NaN;
  private lastTick = NaN;
  private skippedSince = false;
  private readonly gaps: number[] = [];
  private readonly ticks: number[] = [];

  /** `holds`: false never holds (only says which frames are due: figures side by side). */
  constructor(private readonly holds = true) {}

  /**
   * At the top of an animation frame at local time `frameMs`, world time `now`: 'due' when an
   * item of `ats` (the appearance times of the items near the player, those announced
   * included) first shows in this frame (it must be drawn); 'hold' when one is due before the
   * next frame would come but after this one (draw nothing: the next refresh comes sooner);
   * else 'draw'.
   */
  choose(frameMs: number, now: number, ats: Iterable<number>): FrameChoice {
    if (!Number.isNaN(this.lastTick)) keep(this.ticks, frameMs - this.lastTick, TICKS_KEPT);
    this.lastTick = frameMs;
    let next = Infinity;
    for (const at of ats) {
      if (at > this.lastWorld && at <= now) return 'due';
      if (at > now) next = Math.min(next, at);
    }
    // Not holding would show it at about now + gap; holding, within a refresh of `next`.
    if (this.holds && next - now < this.frameGap() - this.refresh()) {
      this.held++;
      this.skippedSince = true;
      return 'hold';
    }
    return 'draw';
  }

  /** This frame was not drawn for another reason (a clock probe round went out in it). */
  skipped(): void {
    this.skippedSince = true;
  }

  /** A frame was drawn at local time `frameMs`, showing world time `now`. */
  drawn(frameMs: number, now: number): void {
    const gap = frameMs - this.lastDrawn;
    if (!this.skippedSince && gap <= STALL_MS) keep(this.gaps, gap, GAPS_KEPT);
    this.lastDrawn = frameMs;
    this.lastWorld = now;
    this.skippedSince = false;
  }

  /** The page's typical interval between drawn frames (0 until known). */
  frameGap(): number {
    if (this.gaps.length === 0) return 0;
    const s = [...this.gaps].sort((a, b) => a - b);
    return s[s.length >> 1]!;
  }

  /** The display's refresh interval: the shortest recent animation-frame interval, 60 Hz at the longest. */
  refresh(): number {
    return Math.min(REFRESH_MS, ...this.ticks);
  }
}

function keep(xs: number[], x: number, most: number): void {
  xs.push(x);
  if (xs.length > most) xs.shift();
}
