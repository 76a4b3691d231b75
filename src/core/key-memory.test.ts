// The key memory's bounds (key-memory.ts) against an attacker of the test kit that cycles
// minted ids over many links (testing/minted-ids.ts), at a small scale (64 keys, 8 a source,
// 16 kept apart; the realm's are 2,048, 256 and 1,024: key-ids.ts): keys that stand for their
// ids are kept, 8 a link, so 9 links' worth pushes every other key out of the least recently
// used memory. The keys of ids a part of the node still needs (its own, its contacts', its
// links', the hosts' of the regions it holds or follows) are kept apart: an honest host's
// key is still answered from memory; without the guard (the memory as it was), it is not.
import { describe, expect, it } from 'vitest';
import { idToHex, randomId, type NodeId } from './node-id';
import { seededRandom } from './seeded-random';
import { KeyMemory } from './key-memory';
import { cycleMintedIds, mintedIds } from '../testing/minted-ids';

const SIZES = { kept: 64, perSource: 8, guarded: 16 };

function world(seed: number, guard = true) {
  const rand = seededRandom(seed);
  const needed = new Set<string>();
  const memory = new KeyMemory(SIZES, (id) => guard && needed.has(idToHex(id)));
  const meet = (tag: string, id: NodeId, via: string) => {
    const had = memory.get(tag) !== undefined;
    if (!had) memory.keep(tag, id, via);
    return had;
  };
  return { rand, needed, memory, meet };
}

describe('the key memory, while an attacker cycles minted ids through it over many links', () => {
  it("an honest host's key and our own stay remembered; a stranger's is pushed out (and the host's too, unguarded)", () => {
    for (const guard of [true, false]) {
      const w = world(28, guard);
      const [own, host, stranger] = [randomId(w.rand), randomId(w.rand), randomId(w.rand)];
      w.needed.add(idToHex(own)).add(idToHex(host));
      w.memory.keep('key:own', own); // our identity, loaded
      w.meet('key:host', host, idToHex(host));
      w.meet('key:stranger', stranger, 'link:stranger');
      // 40 links, 8 minted ids each, twice over with fresh ids: 640 keys derived and kept.
      for (let round = 0; round < 2; round++) expect(cycleMintedIds(w.memory, mintedIds(40 * SIZES.perSource, w.rand), 40)).toBe(40 * SIZES.perSource);
      expect(w.memory.size).toBeLessThanOrEqual(SIZES.kept + SIZES.guarded);
      expect(w.meet('key:stranger', stranger, 'link:stranger'), "the stranger's key").toBe(false);
      expect(w.memory.get('key:own') !== undefined, `our own key, guard ${guard}`).toBe(guard);
      expect(w.meet('key:host', host, idToHex(host)), `the honest host's key, guard ${guard}`).toBe(guard);
      if (guard) expect(w.memory.counts.sheltered).toBe(2);
    }
  });

  it("a guarded key is kept over its source's bound; past the room kept apart, keys no longer guarded go first", () => {
    const w = world(29);
    const hosts = mintedIds(SIZES.guarded + 4, w.rand);
    for (const h of hosts) w.needed.add(idToHex(h.id));
    // All came over one link (a primary relaying its set's certificates): kept past its 8.
    for (const h of hosts) w.memory.keep(h.tag, h.id, 'link:primary');
    expect(hosts.every((h) => w.memory.get(h.tag) !== undefined)).toBe(true);
    expect(w.memory.counts.unkept).toBe(0);
    // Four are no longer needed (their region let go); the attacker floods.
    for (const h of hosts.slice(0, 4)) w.needed.delete(idToHex(h.id));
    cycleMintedIds(w.memory, mintedIds(20 * SIZES.perSource, w.rand), 20);
    expect(hosts.slice(4).filter((h) => w.memory.get(h.tag) === undefined).map((h) => idToHex(h.id)), 'guarded keys lost').toEqual([]);
    expect(w.memory.counts.unsheltered, 'the room kept apart never overflowed: the unguarded went first').toBe(0);
    expect(hosts.slice(0, 4).filter((h) => w.memory.get(h.tag) !== undefined).length, 'keys no longer guarded').toBe(0);
  });
});
