// A voter that lies inside a vote (docs/ITEMS.md "A lying voter"): it tells each honest voter
// that it backs that voter's own candidate, so with 3 voters each honest one counts a
// majority (itself and the liar) and decides, differently. Signatures do not stop this (the
// liar signs both sides, each side holds a majority's), but every ledger that meets both
// records keeps the same one, so the hosts, and the players through their state, end with one
// owner.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../core/seeded-random';
import { candidateKey, ItemLedger, type ClaimCandidate, type ItemCandidate, type SpawnCandidate } from './item-ledger';
import type { VoteMessage } from './vote-messages';
import { Vote, type Decision } from './vote';
import { VoterSet } from './voter-set';

const AREA = { ax: 0, az: 0, x0: 0, z0: 0, size: 64 };
const set = new VoterSet(2, ['liar', 'h1', 'h2']);
const VOTE = 'take:0,0/0:0';
const claim = (who: string): ClaimCandidate => ({ t: 'c', who, x: 10.5, y: 20, z: 10.5 });
const spawned: SpawnCandidate = { t: 's', slot: 0, kind: 'gem', x: 10.5, y: 20, z: 10.5, at: 1000, by: 'h1' };

/** Honest voter `self` hears the claim of `who` first, then the liar backing and proposing it: its decision. */
function deceived(self: string, who: string): Decision<ItemCandidate> | undefined {
  const v = new Vote<ItemCandidate>({ id: VOTE, voters: set, self, key: candidateKey, rng: seededRandom(1) });
  v.receive(who, { t: 'CLAIM', vote: VOTE, c: claim(who) });
  const lie = (t: 'REPORT' | 'PROPOSE'): VoteMessage<ItemCandidate> => ({ t, vote: VOTE, set: set.tag, round: 1, c: claim(who) });
  v.receive('liar', lie('REPORT'));
  v.receive('liar', lie('PROPOSE'));
  return v.decided;
}

function ledgerWith(owner: Decision<ItemCandidate>): ItemLedger {
  const l = new ItemLedger('w', AREA);
  l.applySpawn('spawn:0,0:0', { c: spawned, round: 1, proof: 0b011 }, set);
  l.applyPickup(VOTE, owner, set);
  return l;
}

describe('a lying voter among 3', () => {
  it('splits a pickup vote between the honest voters, and every ledger meeting both sides keeps one owner', () => {
    const d1 = deceived('h1', 'alice');
    const d2 = deceived('h2', 'bob');
    // The split itself: each honest voter decided, each for another claimant (the engine tolerates crashes, not lies).
    expect(d1?.c).toMatchObject({ who: 'alice' });
    expect(d2?.c).toMatchObject({ who: 'bob' });
    const [l1, l2] = [ledgerWith(d1!), ledgerWith(d2!)];
    expect([l1.item('0,0/0')!.owner, l2.item('0,0/0')!.owner]).toEqual(['alice', 'bob']);
    // The hosts share their states (and the primary its state with the players): either order, one owner.
    const s1 = l1.toState(), s2 = l2.toState();
    l1.merge(s2);
    l2.merge(s1);
    expect(l1.item('0,0/0')!.owner).toBe(l2.item('0,0/0')!.owner);
    expect(l1.toState()).toEqual(l2.toState());
    // A player that held the other side's record takes the same one from either host's state.
    const player = ledgerWith(d2!);
    player.merge(l1.toState());
    expect(player.item('0,0/0')!.owner).toBe(l1.item('0,0/0')!.owner);
    expect(l1.stats['conflicting-decision'] + l2.stats['conflicting-decision']).toBe(2); // each saw the split
  });

  it('a split spawn (two items for one slot) ends as one item wherever both meet', () => {
    const other: SpawnCandidate = { ...spawned, kind: 'apple', x: 30.5, by: 'h2' };
    const a = new ItemLedger('w', AREA), b = new ItemLedger('w', AREA);
    a.applySpawn('spawn:0,0:0', { c: spawned, round: 1, proof: 0b011 }, set);
    b.applySpawn('spawn:0,0:0', { c: other, round: 1, proof: 0b101 }, set);
    const [sa, sb] = [a.toState(), b.toState()];
    a.merge(sb);
    b.merge(sa);
    expect(a.toState()).toEqual(b.toState());
    expect(a.items).toHaveLength(1);
  });
});
