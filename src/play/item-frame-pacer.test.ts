import { describe, expect, it } from 'vitest';
import { ItemFramePacer } from './item-frame-pacer';

const VSYNC = 1000 / 60;

/**
 * A page drawing every `every`-th refresh (`every` = 3: 20 fps), world = local time; an item
 * due at `at`. Returns the time of the frame that first drew it and the longest gap between
 * drawn frames. A held or skipped frame costs nothing: the next refresh follows.
 */
function run(every: number, at: number, pace: boolean): { shown: number; longest: number } {
  const p = new ItemFramePacer();
  let t = 0, lastDrawn = NaN, longest = 0, shown = NaN;
  // A frame shows the item from when its world time reaches `at`.
  while (Number.isNaN(shown) && t < at + 1000) {
    const choice = pace ? p.choose(t, t, [at]) : (at <= t ? 'due' : 'draw');
    if (choice === 'hold') { t += VSYNC; continue; }
    if (!Number.isNaN(lastDrawn)) longest = Math.max(longest, t - lastDrawn);
    lastDrawn = t;
    p.drawn(t, t);
    if (at <= t && t > 500) shown = t;
    t += every * VSYNC;
  }
  return { shown, longest };
}

describe('ItemFramePacer', () => {
  it('a page at 20 fps holds before an item is due, so the item shows within a refresh of its time, not a frame', () => {
    for (const at of [1001, 1010, 1030, 1049]) {
      const plain = run(3, at, false), paced = run(3, at, true);
      expect(paced.shown - at).toBeGreaterThanOrEqual(0);
      expect(paced.shown - at).toBeLessThan(VSYNC + 0.01);
      expect(plain.shown - at).toBeLessThan(3 * VSYNC + 0.01);
      // What it costs: one gap between drawn frames, at most a frame plus a refresh longer.
      expect(paced.longest).toBeLessThanOrEqual(2 * 3 * VSYNC + VSYNC + 0.01);
    }
    // Without pacing some of these show most of a frame late.
    expect(Math.max(...[1001, 1010, 1030].map((at) => run(3, at, false).shown - at))).toBeGreaterThan(2 * VSYNC);
  });

  it('a page drawing every refresh never holds', () => {
    const p = new ItemFramePacer();
    for (let i = 0, t = 0; i < 100; i++, t += VSYNC) {
      expect(p.choose(t, t, [t + 5, t + 20])).not.toBe('hold');
      p.drawn(t, t);
    }
    expect(p.held).toBe(0);
  });

  it('an item first shows in the frame that reaches its time: due, once', () => {
    const p = new ItemFramePacer();
    expect(p.choose(0, 0, [10])).toBe('draw'); // nothing known of the frame rate yet: no hold
    p.drawn(0, 0);
    expect(p.choose(50, 50, [10])).toBe('due');
    p.drawn(50, 50);
    expect(p.choose(100, 100, [10])).toBe('draw');
  });

  it('a stall (a hidden tab, a blocked main thread) is not taken for the frame interval: no frame is held for it', () => {
    // A page under a 15 fps limit on a 60 Hz display: one refresh in four drawn, the others
    // not (FrameLoop: notDrawn), so no gap between drawn frames is kept; then the main thread
    // is blocked for 5.5 s right after a drawn frame.
    const p = new ItemFramePacer();
    let t = 0;
    for (let i = 0; i < 40; i++, t += VSYNC) {
      p.choose(t, t, []);
      if (i % 4 === 3) p.drawn(t, t);
      else p.skipped();
    }
    p.drawn(t, t);
    t += 5500;
    expect(p.choose(t, t, [])).toBe('draw');
    p.drawn(t, t);
    expect(p.frameGap()).toBeLessThan(1000);
    // An item announced 2 s ahead: the frames before it are drawn (the player moves), not held.
    const at = t + 2000;
    let held = 0;
    for (t += VSYNC; t < at - 4 * VSYNC; t += VSYNC) if (p.choose(t, t, [at]) === 'hold') held++;
    expect(held).toBe(0);
  });
});
