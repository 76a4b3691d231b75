import { describe, expect, it } from 'vitest';
import { clampStep, MOTION_RULES, MotionTracker } from './motion-tracker';

describe('motion tracker', () => {
  it('takes plausible moves as they are', () => {
    const t = new MotionTracker();
    t.report('a', { x: 0, y: 70, z: 0 }, 0);
    expect(t.report('a', { x: 1, y: 70, z: 1 }, 100)).toEqual({ x: 1, y: 70, z: 1 });
    // A long fall is plausible; flying up as fast is not.
    expect(t.report('a', { x: 1, y: 40, z: 1 }, 600)).toEqual({ x: 1, y: 40, z: 1 });
    expect(t.clamped).toBe(0);
  });

  it('moves its belief towards a jump too far, at the fastest speed allowed', () => {
    const t = new MotionTracker();
    t.report('a', { x: 0, y: 70, z: 0 }, 0);
    const p = t.report('a', { x: 1000, y: 70, z: 0 }, 1000);
    expect(p.x).toBeCloseTo(MOTION_RULES.maxSpeed + MOTION_RULES.slack, 5);
    expect(t.clamped).toBe(1);
    // Upwards is capped like horizontal speed.
    expect(clampStep({ x: 0, y: 0, z: 0 }, { x: 0, y: 500, z: 0 }, 1000).pos.y).toBeCloseTo(MOTION_RULES.maxSpeed + MOTION_RULES.slack, 5);
    // An honest teleport catches up: the belief keeps moving towards the reports.
    let q = p;
    for (let s = 2; s < 100 && q.x < 1000; s++) q = t.report('a', { x: 1000, y: 70, z: 0 }, s * 1000);
    expect(q.x).toBe(1000);
  });

  it('forgets stale beliefs and bounds how many players it tracks', () => {
    const t = new MotionTracker({ ...MOTION_RULES, maxPlayers: 2 });
    t.report('a', { x: 0, y: 70, z: 0 }, 0);
    expect(t.report('a', { x: 5000, y: 70, z: 0 }, MOTION_RULES.forgetMs + 1).x).toBe(5000);
    t.report('b', { x: 0, y: 0, z: 0 }, 0);
    t.report('c', { x: 0, y: 0, z: 0 }, 0);
    // 'a' was the oldest report: forgotten, so its next report is taken as it is.
    expect(t.report('a', { x: -5000, y: 0, z: 0 }, MOTION_RULES.forgetMs + 2).x).toBe(-5000);
  });
});
