import { describe, expect, it } from 'vitest';
import { chunkKey } from '../world/coords';
import { columnsInView, updateView } from './chunk-view';

describe('chunk view', () => {
  it('orders columns nearest-first, the player column first', () => {
    const cols = columnsInView({ cx: 3, cz: -2 }, 8);
    expect(cols[0]).toEqual({ cx: 3, cz: -2 });
    const d = cols.map((c) => Math.hypot(c.cx - 3, c.cz + 2));
    for (let i = 1; i < d.length; i++) expect(d[i]!).toBeGreaterThanOrEqual(d[i - 1]!);
    expect(Math.max(...d)).toBeLessThanOrEqual(8.5);
    // A disc of radius 8 holds fewer than the 17 x 17 square but far more than the inner square.
    expect(cols.length).toBeLessThan(289);
    expect(cols.length).toBeGreaterThan(15 * 15 - 30);
    expect(new Set(cols.map((c) => chunkKey(c.cx, c.cz))).size).toBe(cols.length);
  });

  it('loads only what is missing and unloads past distance + hysteresis', () => {
    const first = updateView({ cx: 0, cz: 0 }, new Set(), 2, 1);
    expect(first.unload).toEqual([]);
    const loaded = new Set(first.load.map((c) => chunkKey(c.cx, c.cz)));
    // Step 1 chunk east: nothing unloads yet (hysteresis), a new edge loads.
    const step = updateView({ cx: 1, cz: 0 }, loaded, 2, 1);
    expect(step.unload).toEqual([]);
    expect(step.load.length).toBeGreaterThan(0);
    expect(step.load.every((c) => !loaded.has(chunkKey(c.cx, c.cz)))).toBe(true);
    // Walk 2 more east: the west edge (x = -2) is now 4 away > 3 and unloads.
    const far = updateView({ cx: 3, cz: 0 }, loaded, 2, 1);
    expect(far.unload).toContainEqual({ cx: -2, cz: 0 });
    expect(far.unload).not.toContainEqual({ cx: 1, cz: 0 });
  });
});
