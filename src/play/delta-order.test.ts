import { describe, expect, it } from 'vitest';
import { DeltaOrder, MAX_EARLY, REORDER_MS } from './delta-order';

const delta = (from: number, to: number) => ({ t: 'DELTA' as const, rx: 0, rz: 0, e: 1, from, to, entries: new Uint8Array(0) });
const seqs = (ds: { from: number; to: number }[]) => ds.map((d) => `${d.from}-${d.to}`);

describe('DeltaOrder: DELTAs in order of seq, swaps waited out', () => {
  it('a DELTA that came before the one it follows waits for it; both apply in order, nobody is asked again', () => {
    const o = new DeltaOrder();
    const early = o.take(delta(3, 4), 0, 0);
    expect(early).toEqual({ apply: [], resubscribe: false });
    const late = o.take(delta(1, 2), 0, 30);
    expect(seqs(late.apply)).toEqual(['1-2', '3-4']);
    expect(late.resubscribe).toBe(false);
    expect(o.due(30 + REORDER_MS)).toBe(false);
  });

  it('a gap that does not fill within REORDER_MS is asked for, once', () => {
    const o = new DeltaOrder();
    expect(o.take(delta(5, 6), 3, 100).apply).toEqual([]);
    expect(o.due(100 + REORDER_MS - 1)).toBe(false);
    expect(o.due(100 + REORDER_MS)).toBe(true);
    expect(o.due(100 + REORDER_MS + 1)).toBe(false);
  });

  it('a beat ahead of our deltas waits for its DELTA; the DELTA arriving clears it', () => {
    const o = new DeltaOrder();
    expect(o.beat(7, 6, 0)).toBe(false);
    expect(seqs(o.take(delta(7, 7), 6, 20).apply)).toEqual(['7-7']);
    expect(o.beat(7, 7, REORDER_MS + 50)).toBe(false);
    expect(o.due(REORDER_MS * 3)).toBe(false);
    // A beat whose DELTA never comes: asked for at the first beat (or watchdog) past REORDER_MS.
    expect(o.beat(9, 7, 1000)).toBe(false);
    expect(o.beat(9, 7, 1000 + REORDER_MS / 2)).toBe(false);
    expect(o.beat(9, 7, 1000 + REORDER_MS)).toBe(true);
  });

  it('a copy of what we hold changes nothing; more than MAX_EARLY early DELTAs are asked for at once', () => {
    const o = new DeltaOrder();
    expect(o.take(delta(1, 2), 2, 0)).toEqual({ apply: [], resubscribe: false });
    let asked = false;
    for (let i = 0; i <= MAX_EARLY; i++) asked = o.take(delta(10 + 2 * i, 11 + 2 * i), 2, i).resubscribe;
    expect(asked).toBe(true);
    // What waited was dropped with the ask (the snapshot brings it).
    expect(o.take(delta(3, 9), 2, 50).apply.map((d) => d.to)).toEqual([9]);
  });
});
