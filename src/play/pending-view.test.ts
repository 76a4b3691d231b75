import { describe, expect, it } from 'vitest';
import { RegionState, type Entry } from '../region/region-state';
import { MAX_PENDING, PendingView } from './pending-view';

const at = (key: number, id: number, e: number, s: number): Entry => ({ key, id, e, s });

describe('PendingView', () => {
  it('shows an ordered edit at once, apart from the state, and lets it go silently when its commit shows the same block', () => {
    const v = new PendingView(5000);
    const state = new RegionState();
    expect(v.take([at(7, 3, 2, 5)], 4, 0).shown).toEqual([at(7, 3, 2, 5)]);
    expect(v.at(7)?.id).toBe(3);
    expect(state.get(7)).toBeUndefined(); // never in the committed state
    state.merge([at(7, 3, 2, 5)]);
    expect(v.settle(2, { e: 2, s: 5 }, state)).toEqual([]); // committed as shown: nothing to redraw
    expect(v.size).toBe(0);
  });

  it('takes back an entry the state moved past without holding it', () => {
    const v = new PendingView(5000);
    const state = RegionState.from([at(7, 1, 1, 9)]);
    v.take([at(7, 3, 2, 5), at(8, 4, 2, 6)], 0, 0);
    // A new epoch's snapshot that lacks both: block 7 back to its old edit, 8 to the terrain.
    expect(v.settle(3, { e: 3, s: 0 }, state)).toEqual([{ key: 7, entry: at(7, 1, 1, 9) }, { key: 8, entry: undefined }]);
    expect(v.size).toBe(0);
  });

  it('keeps a pending edit newer than a commit of the same block, and ignores one the commit already covers', () => {
    const v = new PendingView(5000);
    const state = new RegionState();
    v.take([at(7, 3, 2, 7)], 4, 0);
    state.merge([at(7, 1, 2, 5)]);
    expect(v.settle(2, { e: 2, s: 5 }, state)).toEqual([]);
    expect(v.at(7)?.s).toBe(7); // still shown over the older commit
    // A PENDING overtaken by its DELTA, and an older pending edit of a shown block: not drawn.
    expect(v.take([at(9, 2, 2, 5), at(7, 2, 2, 6)], 5, 0).shown).toEqual([]);
    expect(v.at(7)?.s).toBe(7);
  });

  it('takes back what nothing commits within the time limit', () => {
    const v = new PendingView(1000);
    const state = new RegionState();
    v.take([at(7, 3, 2, 5)], 0, 0);
    expect(v.expire(900, state)).toEqual([]);
    expect(v.expire(1001, state)).toEqual([{ key: 7, entry: undefined }]);
    expect(v.size).toBe(0);
  });

  it(`holds at most ${MAX_PENDING} blocks per region`, () => {
    const v = new PendingView(5000);
    const many = Array.from({ length: MAX_PENDING + 10 }, (_, i) => at(i, 1, 1, i + 1));
    const { shown, refused } = v.take(many, 0, 0);
    expect(shown.length).toBe(MAX_PENDING);
    expect(refused).toBe(10);
    expect(v.size).toBe(MAX_PENDING);
    // A newer edit of a block already shown still replaces it.
    expect(v.take([at(0, 2, 1, 10_000)], 0, 0).shown.length).toBe(1);
  });
});
