import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { REGION_BLOCKS } from '../region/region-key';
import { HostPins, PIN_RANK, subscriberRank } from './host-pins';

const id = (n: number): NodeId => Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? n : 0));

function pins(max: number) {
  const pinned = new Set<string>();
  const p = new HostPins({ connect: (x) => void pinned.add(idToHex(x)), unpin: (x) => void pinned.delete(idToHex(x)) }, max);
  return { p, pinned };
}

describe('host pins by rank', () => {
  it('pins while there is room, then a better rank takes the place of the worst held and an equal one waits', () => {
    const { p, pinned } = pins(3);
    p.want(id(1), PIN_RANK.watcher);
    p.want(id(2), PIN_RANK.backup);
    p.want(id(3), PIN_RANK.watcher);
    expect(pinned.size).toBe(3);
    p.want(id(4), PIN_RANK.watcher);
    expect(pinned.has(idToHex(id(4)))).toBe(false);
    p.want(id(5), PIN_RANK.editor);
    expect(pinned.has(idToHex(id(5)))).toBe(true);
    expect(pinned.size).toBe(3);
    expect(pinned.has(idToHex(id(2)))).toBe(true);
    // A held watcher seen editing is an editor now: an editor coming later does not take its place.
    p.want(id(1), PIN_RANK.editor);
    p.want(id(3), PIN_RANK.editor);
    p.want(id(6), PIN_RANK.editor);
    expect([...pinned].sort()).toEqual([id(1), id(2), id(5)].map(idToHex).sort());
  });

  it('the sweep keeps the best-ranked, held ones first among equals, and lets go of the rest', () => {
    const { p, pinned } = pins(2);
    p.want(id(1), PIN_RANK.watcher);
    p.want(id(2), PIN_RANK.watcher);
    const w = (n: number, rank: 0 | 1 | 2) => [idToHex(id(n)), { id: id(n), rank }] as const;
    p.keepOnly(new Map([w(3, PIN_RANK.watcher), w(2, PIN_RANK.watcher), w(1, PIN_RANK.watcher)]));
    expect([...pinned].sort()).toEqual([id(1), id(2)].map(idToHex).sort());
    p.keepOnly(new Map([w(3, PIN_RANK.editor), w(2, PIN_RANK.watcher), w(4, PIN_RANK.backup)]));
    expect([...pinned].sort()).toEqual([id(3), id(4)].map(idToHex).sort());
    p.keepOnly(new Map());
    expect(pinned.size).toBe(0);
  });

  it('a subscriber is an editor standing in the region or within EDIT_NEAR_BLOCKS of it', () => {
    const r = { rx: 1, rz: 0 };
    expect(subscriberRank(r, undefined)).toBe(PIN_RANK.watcher);
    expect(subscriberRank(r, { x: REGION_BLOCKS + 3, z: 5 })).toBe(PIN_RANK.editor);
    expect(subscriberRank(r, { x: REGION_BLOCKS - 8, z: 5 })).toBe(PIN_RANK.editor);
    expect(subscriberRank(r, { x: REGION_BLOCKS - 9, z: 5 })).toBe(PIN_RANK.watcher);
    expect(subscriberRank(r, { x: 2 * REGION_BLOCKS + 20, z: 5 })).toBe(PIN_RANK.watcher);
    expect(subscriberRank(r, { x: REGION_BLOCKS + 3, z: -4 })).toBe(PIN_RANK.editor);
  });
});
