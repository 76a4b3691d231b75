import { describe, expect, it } from 'vitest';
import { FairShare, WINDOW_MS } from './fair-share';

describe('FairShare', () => {
  it("judges each source's spend lately against the rate over the sources asking", () => {
    const f = new FairShare(10, 16); // 10 a second
    // Alone, a source has nobody to share with: whatever it spent, it is within.
    for (let i = 0; i < 12; i++) {
      expect(f.within('heavy', 0)).toBe(true);
      f.spent('heavy', 0);
    }
    // A second source asking: the share is 5 each over the window; it has spent nothing, the first 12.
    expect(f.within('light', 10)).toBe(true);
    expect(f.within('heavy', 10)).toBe(false);
    // Two windows on, what was spent is forgotten.
    expect(f.within('heavy', 2 * WINDOW_MS + 10)).toBe(true);
  });

  it('a source that asks is counted among those sharing for this window and the next, then no more', () => {
    const f = new FairShare(12, 16);
    for (const s of ['a', 'b', 'c']) f.within(s, 0);
    for (let i = 0; i < 4; i++) f.spent('a', 0);
    // 12 a second over 1 s among 3: 4 each; 'a' spent 4.
    expect(f.within('a', 0)).toBe(false);
    // In the next window 'b' and 'c' still count (asked in the one before): the share over
    // 1.5 s is 18 / 3 = 6, and 'a' spent 4.
    expect(f.within('a', WINDOW_MS + 500)).toBe(true);
    // Two windows on, only 'a' asked lately: alone, it is within whatever it spent.
    for (let i = 0; i < 10; i++) f.spent('a', 2 * WINDOW_MS);
    expect(f.within('a', 2 * WINDOW_MS)).toBe(true);
  });
});
