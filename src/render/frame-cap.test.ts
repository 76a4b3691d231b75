import { describe, expect, it } from 'vitest';
import { FrameCap } from './frame-cap';

/** Frames drawn of `seconds` of animation frames at `hz`, each up to `jitter` ms late. */
function drawn(cap: FrameCap, hz: number, seconds: number, jitter = 0): number {
  let n = 0;
  for (let i = 0; i < hz * seconds; i++) if (cap.due((i * 1000) / hz + (i % 3 === 1 ? jitter : 0))) n++;
  return n;
}

describe('frame cap', () => {
  it('draws every animation frame without a limit', () => {
    expect(drawn(new FrameCap(0), 60, 2)).toBe(120);
  });

  it('draws at most the limit, every other refresh for 30 on 60 Hz even with jitter', () => {
    expect(drawn(new FrameCap(30), 60, 2, 1.5)).toBe(60);
    expect(drawn(new FrameCap(10), 60, 2, 1.5)).toBe(20);
    expect(drawn(new FrameCap(20), 144, 1)).toBeLessThanOrEqual(20);
  });

  it('a limit above the display rate changes nothing, and a new limit applies at once', () => {
    const cap = new FrameCap(120);
    expect(drawn(cap, 60, 1)).toBe(60);
    cap.set(120); // the same limit again keeps the schedule: 2 ms after the last frame drawn is not due
    expect(cap.due(985)).toBe(false);
    cap.set(0);
    let n = 0;
    for (let t = 2000; t < 2100; t += 1) if (cap.due(t)) n++;
    expect(n).toBe(100);
  });
});
