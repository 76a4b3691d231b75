// A claimant's take of its granters' states (granted-states.ts): majority of one set, or a
// valid proof, else dropped; proofs checked only when needed; bounds.
import { describe, expect, it } from 'vitest';
import { encodeEntries, type Entry, type Stamp } from '../region/region-state';
import type { EpochCert } from '../region/epoch-cert';
import { PLACEABLE } from '../world/blocks';
import { GrantedStates } from './granted-states';
import type { StateProof } from '../region/entry-proofs';

const ID = PLACEABLE[0]!;
/** Block `n` at y 100 (y = 0 is the world floor: never offerable). */
const at = (n: number) => 100 * 256 + n;
const entry = (n: number, s: number, e = 3): Entry => ({ key: at(n), id: ID, e, s });
const cert = { e: 3 } as EpochCert;
const proof = (list: Entry[], good = true, e = 3): StateProof => ({ e, f: 1, t: 9, b: encodeEntries(list), s: new Uint8Array([good ? 1 : 0]) });
const hosts = ['a', 'b', 'c'];

async function outcome(g: GrantedStates, mine: Map<number, Stamp> = new Map(), sets = [hosts]) {
  const checked: StateProof[] = [];
  const out = await g.outcome((k) => mine.get(k), sets, (p) => {
    checked.push(p);
    return Promise.resolve(p.s[0] === 1);
  });
  return { ...out, checked };
}

describe('GrantedStates', () => {
  it('adopts an entry a majority of one set sent identically, drops one a single host sent', async () => {
    const g = new GrantedStates(100);
    g.add('a', [entry(1, 1), entry(2, 2)]);
    g.add('b', [entry(1, 1), entry(2, 3)]);
    const out = await outcome(g);
    expect(out.adopt).toEqual([entry(1, 1)]);
    expect([out.agreed, out.proven, out.unproven]).toEqual([1, 0, 2]);
  });

  it('counts a host only in the sets that name it', async () => {
    const g = new GrantedStates(100);
    g.add('x', [entry(1, 1)]);
    g.add('a', [entry(1, 1)]);
    expect((await outcome(g)).adopt, 'x is in no set').toEqual([]);
    expect((await outcome(g, new Map(), [hosts, ['x', 'a']])).adopt).toEqual([entry(1, 1)]);
  });

  it('adopts what a valid proof of one granter holds, checking only proofs that vouch for an entry no majority agreed on', async () => {
    const g = new GrantedStates(100);
    g.add('a', [entry(1, 1), entry(5, 5)], [proof([entry(1, 1)]), proof([entry(4, 4)]), proof([entry(6, 6)], false)], [cert]);
    g.add('b', [entry(1, 1)]);
    const out = await outcome(g);
    // Block 1 agreed (a, b): its proof is never checked. Block 4 only in a valid proof; 6 in a
    // bad one; 5 held by a alone, in no proof.
    expect(out.adopt.map((x) => x.key).sort()).toEqual([at(1), at(4)]);
    expect(out.checked.map((p) => p.b)).toEqual([encodeEntries([entry(4, 4)]), encodeEntries([entry(6, 6)])]);
    expect([out.agreed, out.proven, out.unproven]).toEqual([1, 1, 2]);
  });

  it('takes nothing we hold as new, nothing against the world rules, nothing stamped after the proof epoch', async () => {
    const g = new GrantedStates(100);
    const floor: Entry = { key: 1, id: ID, e: 3, s: 1 };
    g.add('a', [], [proof([entry(1, 1), entry(2, 2), floor, entry(3, 1, 4)])], [cert]);
    const out = await outcome(g, new Map([[at(2), { e: 3, s: 7 }]]));
    expect(out.adopt).toEqual([entry(1, 1)]);
  });

  it('is bounded per granter: entries past the bound and undecodable proofs are dropped and counted', async () => {
    const g = new GrantedStates(3);
    g.add('a', [entry(1, 1), entry(2, 1)], [proof([entry(3, 1), entry(4, 1)]), { ...proof([]), b: new Uint8Array(5) }]);
    g.add('a', [entry(5, 1), entry(6, 1)]);
    expect(g.dropped).toBe(3);
    g.add('b', [entry(1, 1), entry(2, 1), entry(5, 1)]);
    expect((await outcome(g)).adopt.map((x) => x.key)).toEqual([at(1), at(2), at(5)]);
  });
});
