import { describe, expect, it } from 'vitest';
import { seededRandom } from '../core/seeded-random';
import { VoteBus, type BusNode } from '../testing/vote-bus';
import { ItemLedger, type ClaimCandidate, type ItemCandidate, type SpawnCandidate } from './item-ledger';
import { ItemVotes, type ItemEffect } from './item-votes';
import type { VoteEffect } from './vote';
import { VoterSet } from './voter-set';

const AREA = { ax: 0, az: 0, x0: 0, z0: 0, size: 64 };

function hosts(n = 3) {
  const set = new VoterSet(4, Array.from({ length: n }, (_, i) => `h${i}`));
  let now = 0;
  const votes = set.ids.map((self, i) => new ItemVotes({ self, voters: set, ledger: new ItemLedger('w', AREA), rng: seededRandom(i + 1), now: () => now }));
  const spawned: string[] = [], taken: string[] = [];
  // The bus takes vote effects; spawned / taken effects are noted here.
  const node = (v: ItemVotes): BusNode<ItemCandidate> => ({ receive: (from, msg) => note(v.receive(from, msg)) });
  const note = (fx: ItemEffect[]): VoteEffect<ItemCandidate>[] => {
    for (const e of fx) {
      if ('spawned' in e) spawned.push(e.spawned.id);
      if ('taken' in e) taken.push(e.taken.owner!);
    }
    return fx.filter((e): e is Extract<ItemEffect, { send: unknown }> => 'send' in e);
  };
  const bus = new VoteBus<ItemCandidate>(new Map(set.ids.map((id, i) => [id, node(votes[i]!)])));
  return { set, votes, bus, note, spawned, taken, setNow: (t: number) => (now = t) };
}

const claim = (who: string, x = 10.5, z = 10.5): ClaimCandidate => ({ t: 'c', who, x, y: 20, z });

describe('ItemVotes', () => {
  it('rival spawn proposals: one item, in every ledger; then rival claims: one owner everywhere', () => {
    const { votes, bus, note, spawned, taken, setNow } = hosts();
    votes.forEach((v, i) => bus.put(`h${i}`, note(v.proposeSpawn(() => 20)))); // all three propose slot 0 at once
    bus.run();
    const ids = votes.map((v) => v.ledger.items.map((i) => `${i.id} ${i.x} ${i.z} ${i.kind}`));
    expect(new Set(ids.map((x) => x.join())).size).toBe(1);
    expect(ids[0]!.length).toBe(1);
    expect(spawned.length).toBe(3);
    const it = votes[0]!.ledger.items[0]!;
    setNow(it.at);
    const vote = votes[0]!.ledger.pickupVoteId(it.id)!;
    ['alice', 'bob', 'carol'].forEach((p, i) => bus.put(p, [{ send: { t: 'CLAIM', vote, c: claim(p, it.x, it.z) }, to: [`h${i}`] }]));
    for (let t = 0; t < 50 && taken.length < 3; t++) {
      bus.run();
      votes.forEach((v, i) => bus.put(`h${i}`, note(v.tick())));
    }
    bus.run();
    expect(new Set(votes.map((v) => v.ledger.item(it.id)!.owner)).size).toBe(1);
    expect(['alice', 'bob', 'carol']).toContain(votes[0]!.ledger.item(it.id)!.owner);
  });

  it('refuses and counts: a spawn claimed by a player, a voter proposing outside the area, a non-voter, a far claim', () => {
    const { votes, setNow } = hosts();
    const h = votes[0]!;
    const spawn = (x: number): SpawnCandidate => ({ t: 's', slot: 0, kind: 'gem', x, y: 20, z: 5, at: 2000, by: 'h1' });
    expect(h.receive('player', { t: 'CLAIM', vote: 'spawn:0,0:0', c: spawn(5) })).toEqual([]);
    expect(h.stats.nonVoter).toBe(1);
    expect(h.receive('h1', { t: 'REPORT', vote: 'spawn:0,0:0', set: 4, round: 1, c: spawn(500) })).toEqual([]);
    expect(h.stats.badCandidate).toBe(1);
    expect(h.ledger.stats['outside-area']).toBe(1);
    expect(h.receive('mallory', { t: 'REPORT', vote: 'spawn:0,0:0', set: 4, round: 1, c: spawn(5) })).toEqual([]);
    expect(h.stats.nonVoter).toBe(2);
    expect(h.receive('h1', { t: 'REPORT', vote: 'spawn:9,9:0', set: 4, round: 1, c: spawn(5) })).toEqual([]);
    expect(h.stats.wrongVote).toBe(1);
    expect(h.openVotes).toBe(0);
    // A far claim on a real item: refused by the ledger, no vote round starts.
    h.ledger.applySpawn('spawn:0,0:0', { c: spawn(5), round: 1, proof: 0b11 }, h['o'].voters);
    setNow(2000);
    expect(h.receive('far', { t: 'CLAIM', vote: 'take:0,0/0:0', c: claim('far', 15, 5) })).toEqual([]);
    expect(h.ledger.stats['too-far']).toBe(1);
  });

  it('a voter that missed the spawn holds the pickup frames, learns the spawn from the repeated DECIDED, and joins the pickup', () => {
    const { votes, bus, note, setNow } = hosts();
    bus.put('h0', note(votes[0]!.proposeSpawn(() => 20)));
    bus.run((f) => f.to !== 'h2'); // h2 hears nothing of the spawn
    expect(votes[2]!.ledger.items.length).toBe(0);
    bus.queue.length = 0;
    const it = votes[0]!.ledger.items[0]!;
    setNow(it.at);
    const vote = votes[0]!.ledger.pickupVoteId(it.id)!;
    bus.put('alice', [{ send: { t: 'CLAIM', vote, c: claim('alice', it.x, it.z) }, to: ['h2'] }]);
    bus.run();
    expect(votes[2]!.stats.waited).toBe(1); // held: h2 does not know the item yet
    votes.forEach((v, i) => bus.put(`h${i}`, note(v.tick()))); // h0, h1 repeat their spawn DECIDED
    bus.run();
    expect(votes[2]!.ledger.item(it.id)).toBeDefined();
    for (let t = 0; t < 20 && !votes.every((v) => v.ledger.item(it.id)?.owner); t++) {
      votes.forEach((v, i) => bus.put(`h${i}`, note(v.tick())));
      bus.run();
    }
    expect(votes.map((v) => v.ledger.item(it.id)?.owner)).toEqual(['alice', 'alice', 'alice']);
  });
});
