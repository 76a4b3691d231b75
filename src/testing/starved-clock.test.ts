import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/virtual-clock';
import { seededRandom } from '../core/seeded-random';
import { StarvedTurns } from './starved-clock';

describe('StarvedTurns', () => {
  it('runs what comes due in a spell at the end of the task under way, in order; straight through outside', async () => {
    const base = new VirtualClock();
    const turns = new StarvedTurns(base, seededRandom(1));
    const clock = turns.clock();
    const ran: { i: number; due: number; at: number }[] = [];
    const at = (i: number, ms: number) => clock.setTimeout(() => ran.push({ i, due: ms, at: base.now() }), ms);
    at(0, 10);
    await base.advance(20);
    expect(ran).toEqual([{ i: 0, due: 10, at: 10 }]);
    turns.starve(5000, 50, 400);
    const start = base.now();
    for (let i = 1; i <= 200; i++) at(i, (i * 37) % 4000);
    await base.advance(6000);
    expect(ran).toHaveLength(201);
    const late = ran.slice(1).map((r) => r.at - start - r.due);
    expect(Math.min(...late)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...late)).toBeLessThan(400);
    expect(late.filter((d) => d > 0).length).toBeGreaterThan(150);
    // Due earlier, run no later: the order of timers holds.
    const byDue = ran.slice(1).sort((a, b) => a.due - b.due);
    for (let k = 1; k < byDue.length; k++) expect(byDue[k]!.at).toBeGreaterThanOrEqual(byDue[k - 1]!.at);
    // After the spell: on time again.
    const after = base.now();
    at(999, 10);
    await base.advance(20);
    expect(ran.at(-1)).toEqual({ i: 999, due: 10, at: after + 10 });
    expect(turns.turnOf(after + 1000)).toBe(after + 1000);
  });
});
