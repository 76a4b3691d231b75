// An attacker of the test kit that holds many node ids minted with work and sends their keys
// over many links, to cycle them through a node's key memory (core/key-memory.ts; docs/TRUST.md
// "Keys a node has not met"). Each key stands for the id it comes with, so the node derives
// it (one scrypt) and remembers it, up to the memory's per-source bound a link; through
// kept / perSource links they push every other key out of the least recently used memory.
// What minting costs the attacker: ~2^ID_WORK_BITS scrypts an id in a tab (core/id-work.ts).
// The memory stores what the derivation gave, so here the ids are drawn and tagged with
// their own key bytes: the memory's bounds, not the scrypt, are what such a test measures.
import { idToHex, randomId, type NodeId } from '../core/node-id';
import type { KeyMemory } from '../core/key-memory';
import type { Random } from '../core/seeded-random';

export interface MintedId {
  /** The key, as the memory tags it. */
  tag: string;
  id: NodeId;
}

/** `n` minted ids and their keys. */
export function mintedIds(n: number, rand: Random): MintedId[] {
  return Array.from({ length: n }, () => {
    const id = randomId(rand);
    return { tag: `key:${idToHex(id)}`, id };
  });
}

/**
 * Sends `ids` to `memory` over `links` links (`${prefix}${i}`, dealt round the links) as a
 * node's checkers meet them: a key not remembered is derived, then kept. Returns how many
 * were derived.
 */
export function cycleMintedIds(memory: Pick<KeyMemory, 'get' | 'keep'>, ids: readonly MintedId[], links: number, prefix = 'link:minter'): number {
  let derived = 0;
  for (const [i, m] of ids.entries()) {
    if (memory.get(m.tag)) continue;
    derived++;
    memory.keep(m.tag, m.id, `${prefix}${i % links}`);
  }
  return derived;
}
