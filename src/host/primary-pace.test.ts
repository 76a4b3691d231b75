// The silence a backup allows its primary, from the primary's recent pace on its own.
import { describe, expect, it } from 'vitest';
import { PrimaryPace } from './primary-pace';

const O = { failoverMs: 600, slowPrimaryFactor: 2, slowPrimaryMaxMs: 2400, slowPrimaryHalfLifeMs: 10_000 };

describe('PrimaryPace', () => {
  it('keeps failoverMs for a primary on time, and allows twice its longest recent gap for a slow one', () => {
    const p = new PrimaryPace(O);
    for (let t = 0; t <= 2000; t += 100) p.heard(t, false);
    expect(p.silenceLimit(2000)).toBe(600);
    p.heard(2500, false);
    expect(p.silenceLimit(2500)).toBe(1000);
  });

  it('counts no gap the primary announced (idle beats), and starts over for a new primary', () => {
    const p = new PrimaryPace(O);
    p.heard(0, false);
    p.heard(2000, true);
    expect(p.silenceLimit(2000)).toBe(600);
    p.heard(3000, false);
    expect(p.silenceLimit(3000)).toBe(2000);
    p.reset();
    expect(p.silenceLimit(3000)).toBe(600);
  });

  it("halves a gap's weight every half-life and never allows past the cap", () => {
    const p = new PrimaryPace(O);
    p.heard(0, false);
    p.heard(1000, false);
    expect(p.silenceLimit(1000)).toBe(2000);
    expect(p.silenceLimit(11_000)).toBe(1000);
    p.heard(20_000, false);
    expect(p.silenceLimit(20_000)).toBe(2400);
  });
});
