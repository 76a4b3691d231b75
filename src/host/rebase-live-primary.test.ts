// A stranger rebase (docs/TRUST.md rule 6) over a set whose primary answers: the round's
// evidence (claim-round.ts `alive`) and the election's wait (election.ts `afterClaim`,
// `mayRebase`) on their own, as in the 8-bot world where cfb883, outside e10's set
// {8bd31c, 80b48e, 60094f} (its majority beyond the region's 3 nearest, so `rebasable`),
// claimed e11: the primary 8bd31c refused 'alive primary', its backups 'primary alive'
// (bare refusals), and the round was read as the set's silence. Starved, the claimant sent
// nothing for 15 s, then claimed e12 as a rebase, which 8bd31c refused again, 'alive
// primary', and its own grant and dccb35's certified: two chains (e12.. beside e11, e17).
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { type ClaimTerms, type EpochCert, type GrantSig } from '../region/epoch-cert';
import { claimTargets, ClaimRound } from './claim-round';
import { Election } from './election';

const id = (n: number): NodeId => new Uint8Array(20).fill(n);
// SELF: the claimant (cfb883); P: e10's primary (8bd31c); B1, B2: its backups; G: a granter outside e10 (dccb35).
const [SELF, P, B1, B2, G] = [id(1), id(2), id(3), id(4), id(5)];
const sig = (who: NodeId): GrantSig => ({ id: who, a: 0, k: new Uint8Array(65), s: new Uint8Array(72) });
const e10: EpochCert = { e: 10, primary: P, hosts: [P, B1, B2], grants: [] };
const REBASE = { rebaseMs: 10_000, rebaseRestoredMs: 120_000 };
/** The claimant's 3 nearest (claim-round.ts `alive`): no refusal here names a granted epoch. */
const NEAR: ReadonlySet<string> = new Set([SELF, G, P].map(idToHex));

/** The claimant's round over `e10` in which the primary and both backups refuse, naming nothing new (they hold e10, as the claimant does). */
function roundWithLivePrimary(e: number): ClaimRound {
  const terms: ClaimTerms = { e, primary: SELF, hosts: [G, SELF, P], prev: { e: 10, hosts: e10.hosts } };
  const r = new ClaimRound(terms, sig(SELF), new Set(claimTargets(terms, [], SELF).keys()));
  r.addGrant(idToHex(G), sig(G));
  for (const h of [G, P, B1, B2]) r.answered.add(idToHex(h));
  r.refusal(idToHex(P), false, 10); // 'alive primary'
  r.refusal(idToHex(B1), false, 10); // 'primary alive'
  r.refusal(idToHex(B2), false, 10); // 'primary alive'
  return r;
}

describe('rebase over a live primary', () => {
  it('a round in which the previous set\'s primary answered is no evidence of that set\'s silence, so no stranger rebase follows rebaseMs later', () => {
    const el = new Election(SELF);
    el.adoptCert(e10);
    const r = roundWithLivePrimary(11);
    expect(r.fault()).toBe('no-previous-majority');
    // The primary counts as alive, its bare-refusing backups do not: 1 of 3.
    expect([...r.alive(e10, NEAR)].sort()).toEqual([idToHex(G), idToHex(P)].sort());
    el.afterClaim({ known: e10, certified: false, answered: r.alive(e10, NEAR), fault: r.fault() ?? undefined, learned: [], highestRefusal: 10 }, 1_972, REBASE.rebaseMs);
    // The claimant is starved: no round in between. 15 s later (farKnown: e10's majority is
    // beyond the region's 3 nearest, cert-checker.ts `rebasable`) it may claim a rebase,
    // and the round that carries it is answered by the live primary once more.
    // It holds its claims back meanwhile: they would only duel with the primary's re-check.
    expect(el.deferred(1_972 + REBASE.rebaseMs)).toBe(true);
    const rebase = el.mayRebase(16_810, REBASE, true);
    expect(rebase, 'no rebase over a primary that answered our last claim').toBe(false);
    expect(el.prevGone, 'a live primary answered: the set is not silent').toBeUndefined();
  });

  it('a primary whose backups say nothing is one vote of three: rebaseMs of such rounds lets the rebase come', () => {
    const el = new Election(SELF);
    el.adoptCert(e10);
    // One live id of the attacker's, primary of a chain of its own ids anchored near the key,
    // refuses every claim; the other ids of the chain say nothing (hosting-sybil.test.ts).
    const alone = (e: number) => {
      const terms: ClaimTerms = { e, primary: SELF, hosts: [G, SELF, P], prev: { e: 10, hosts: e10.hosts } };
      const r = new ClaimRound(terms, sig(SELF), new Set(claimTargets(terms, [], SELF).keys()));
      r.addGrant(idToHex(G), sig(G));
      for (const h of [G, P]) r.answered.add(idToHex(h));
      r.refusal(idToHex(P), false, 10);
      return r;
    };
    const r = alone(11);
    expect([...r.alive(e10, NEAR)], 'the primary alone of its set').toEqual([idToHex(G)]);
    el.afterClaim({ known: e10, certified: false, answered: r.alive(e10, NEAR), fault: r.fault() ?? undefined, learned: [], highestRefusal: 10 }, 1_972, REBASE.rebaseMs);
    expect(el.prevGone).toEqual({ e: 10, since: 1_972 });
    const again = alone(12);
    el.afterClaim({ known: e10, certified: false, answered: again.alive(e10, NEAR), fault: again.fault() ?? undefined, learned: [], highestRefusal: 11 }, 8_000, REBASE.rebaseMs);
    expect(el.mayRebase(1_972 + REBASE.rebaseMs, REBASE, true), 'one live id holds no set off').toBe(true);
  });

  it('over a learnt far chain (keys an attacker drew) the primary\'s answer is one vote of three: rebaseMs of such rounds still lets the rebase come', () => {
    const el = new Election(SELF);
    el.adoptCert(e10, undefined, 'learnt');
    const outcome = (r: ClaimRound) => ({ known: e10, certified: false, answered: r.alive(e10, NEAR), fault: r.fault() ?? undefined, learned: [], highestRefusal: 10, knownFar: true });
    el.afterClaim(outcome(roundWithLivePrimary(11)), 1_972, REBASE.rebaseMs);
    expect(el.prevGone).toEqual({ e: 10, since: 1_972 });
    el.afterClaim(outcome(roundWithLivePrimary(12)), 8_000, REBASE.rebaseMs);
    expect(el.mayRebase(1_972 + REBASE.rebaseMs - 1, REBASE, true)).toBe(false);
    expect(el.mayRebase(1_972 + REBASE.rebaseMs, REBASE, true), 'one live key of the attacker\'s holds no region off').toBe(true);
  });
});
