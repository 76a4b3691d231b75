import { describe, expect, it } from 'vitest';
import { seededRandom } from '../core/seeded-random';
import { VoteBus, type BusNode } from '../testing/vote-bus';
import { MAX_CANDIDATES, type VoteMessage } from './vote-messages';
import { newVoteStats } from './vote-stats';
import { Vote, type VoteOptions } from './vote';
import { VoteWatcher } from './vote-watcher';
import { VoterSet } from './voter-set';

const key = (c: string) => c;
const ID = 'item-1';

function setup(n: number, extra: Partial<VoteOptions<string>> = {}, seed = 1) {
  const set = new VoterSet(3, Array.from({ length: n }, (_, i) => `v${i}`));
  const stats = newVoteStats();
  const voters = set.ids.map((self, i) => new Vote<string>({ id: ID, voters: set, self, key, rng: seededRandom(seed * 16 + i), stats, ...extra }));
  const nodes = new Map<string, BusNode<string>>(set.ids.map((id, i) => [id, voters[i]!]));
  const bus = new VoteBus<string>(nodes);
  return { set, stats, voters, nodes, bus };
}

const claim = (c: string): VoteMessage<string> => ({ t: 'CLAIM', vote: ID, c });

describe('Vote', () => {
  it('one claim: every voter backs it and decides it in round 1; the claimant hears of it', () => {
    const { set, voters, nodes, bus } = setup(3);
    const w = new VoteWatcher<string>({ id: ID, voters: set, key, claim: 'alice' });
    nodes.set('alice', w);
    bus.put('alice', w.start());
    bus.run();
    expect(voters.map((x) => x.decided?.c)).toEqual(['alice', 'alice', 'alice']);
    expect(voters.map((x) => x.decided?.round)).toEqual([1, 1, 1]);
    expect(w.decided?.c).toBe('alice');
  });

  it('a claimant learns the owner from f + 1 proposals, without any DECIDED (three trips, not four)', () => {
    const { set, voters, nodes, bus } = setup(3);
    const w = new VoteWatcher<string>({ id: ID, voters: set, key, claim: 'alice' });
    nodes.set('alice', w);
    bus.put('alice', w.start());
    bus.run((f) => f.msg.t !== 'DECIDED');
    expect(voters.every((x) => x.decided?.c === 'alice')).toBe(true);
    expect(w.decided?.c).toBe('alice');
    expect(w.decided!.proof.toString(2).replace(/0/g, '').length).toBeGreaterThanOrEqual(set.decides);
    // One voter's proposal is not a decision; a stranger's counts nothing.
    const lone = new VoteWatcher<string>({ id: ID, voters: set, key, claim: 'bob' });
    expect(lone.receive('v0', { t: 'PROPOSE', vote: ID, set: 3, round: 1, c: 'bob' })).toEqual([]);
    expect(lone.receive('v0', { t: 'PROPOSE', vote: ID, set: 3, round: 1, c: 'bob' })).toEqual([]);
    expect(lone.receive('mallory', { t: 'PROPOSE', vote: ID, set: 3, round: 1, c: 'bob' })).toEqual([]);
    expect(lone.decided).toBeUndefined();
    expect([lone.stats.duplicate, lone.stats.nonVoter]).toEqual([1, 1]);
  });

  it('each voter backs the first claim it hears; a majority of first-heard claims decides', () => {
    const { voters, bus } = setup(3);
    bus.put('v0', voters[0]!.receive('bob', claim('bob')));
    bus.put('v1', voters[1]!.receive('alice', claim('alice')));
    bus.put('v2', voters[2]!.receive('alice', claim('alice')));
    // Late claims change nobody's first choice.
    bus.put('v1', voters[1]!.receive('bob', claim('bob')));
    bus.run();
    expect(voters.map((x) => x.decided?.c)).toEqual(['alice', 'alice', 'alice']);
  });

  it('a three-way split re-votes in numbered rounds until one candidate wins everywhere', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const { voters, bus, stats } = setup(3, {}, seed);
      ['a', 'b', 'c'].forEach((c, i) => bus.put(`v${i}`, voters[i]!.receive(c, claim(c))));
      bus.run();
      for (let t = 0; t < 100 && !voters.every((x) => x.decided); t++) {
        voters.forEach((x, i) => bus.put(`v${i}`, x.tick()));
        bus.run();
      }
      const owners = new Set(voters.map((x) => x.decided?.c));
      expect(owners.size).toBe(1);
      expect(['a', 'b', 'c']).toContain([...owners][0]);
      expect(stats.splits).toBeGreaterThan(0);
    }
  });

  it('a dead voter does not stall the vote: n - f reports and proposals suffice (after the patience tick)', () => {
    const { voters, bus } = setup(5);
    const dead = new Set(['v3', 'v4']);
    bus.put('v0', voters[0]!.receive('a', claim('a')));
    bus.put('v1', voters[1]!.receive('b', claim('b')));
    bus.put('v2', voters[2]!.receive('a', claim('a')));
    for (let t = 0; t < 50 && !voters.slice(0, 3).every((x) => x.decided); t++) {
      bus.run((f) => !dead.has(f.to));
      voters.slice(0, 3).forEach((x, i) => bus.put(`v${i}`, x.tick()));
    }
    bus.run((f) => !dead.has(f.to));
    const owners = new Set(voters.slice(0, 3).map((x) => x.decided?.c));
    expect(owners.size).toBe(1);
    expect([...owners][0]).toBeDefined();
  });

  it('a decided voter settles a voter that missed the round with a forced decision', () => {
    const { voters, bus, stats } = setup(3);
    bus.put('v0', voters[0]!.receive('a', claim('a')));
    bus.run((f) => f.to !== 'v2'); // v2 hears nothing
    expect(voters[0]!.decided?.c).toBe('a');
    expect(voters[2]!.decided).toBeUndefined();
    bus.queue.length = 0; // and its frames were all lost
    bus.put('v2', voters[2]!.receive('b', claim('b'))); // a late claim starts v2's own round 1
    bus.run();
    expect(voters[2]!.decided?.c).toBe('a');
    expect(stats.forced).toBeGreaterThan(0);
  });
});

describe('Vote validation: refused input changes nothing and is counted', () => {
  function decidedOnA() {
    const s = setup(3);
    s.bus.put('v0', s.voters[0]!.receive('a', claim('a')));
    s.bus.run();
    return s;
  }

  it('frames from a non-voter, of another set, of another vote', () => {
    const { voters, stats } = setup(3);
    const v = voters[0]!;
    expect(v.receive('mallory', { t: 'REPORT', vote: ID, set: 3, round: 1, c: 'm' })).toEqual([]);
    expect(v.receive('v1', { t: 'REPORT', vote: ID, set: 4, round: 1, c: 'm' })).toEqual([]);
    expect(v.receive('v1', { t: 'REPORT', vote: 'other', set: 3, round: 1, c: 'm' })).toEqual([]);
    expect(v.receive('mallory', { t: 'DECIDED', vote: ID, set: 3, round: 1, c: 'm', proof: 0b111 })).toEqual([]);
    expect([stats.nonVoter, stats.wrongSet, stats.wrongVote]).toEqual([2, 1, 1]);
    expect(v.currentRound).toBe(0);
    expect(v.decided).toBeUndefined();
  });

  it('a forged decision: proof too small, naming outsiders, or contradicting proposals held', () => {
    const { voters, stats, bus } = setup(3);
    const v = voters[2]!;
    expect(v.receive('v0', { t: 'DECIDED', vote: ID, set: 3, round: 1, c: 'm', proof: 0b001 })).toEqual([]);
    expect(v.receive('v0', { t: 'DECIDED', vote: ID, set: 3, round: 1, c: 'm', proof: 0b11000 })).toEqual([]);
    // v2 holds v1's round-1 proposal for 'a'; a decision for 'm' naming v1 contradicts it.
    bus.put('v0', voters[0]!.receive('a', claim('a')));
    bus.run((f) => f.msg.t !== 'DECIDED' && !(f.to === 'v2' && f.msg.t === 'PROPOSE'));
    expect(v.decided).toBeUndefined();
    expect(v.receive('v0', { t: 'DECIDED', vote: ID, set: 3, round: 1, c: 'm', proof: 0b011 })).toEqual([]);
    expect(stats.forgedDecision).toBe(3);
    expect(v.decided).toBeUndefined();
  });

  it('a replayed decision and a conflicting one change nothing', () => {
    const { voters, stats } = decidedOnA();
    const v = voters[1]!;
    const d = v.decided!;
    const [replayed, conflicting] = [stats.replayedDecision, stats.conflictingDecision];
    expect(v.receive('v0', { t: 'DECIDED', vote: ID, set: 3, round: d.round, c: 'a', proof: d.proof })).toEqual([]);
    expect(v.receive('v2', { t: 'DECIDED', vote: ID, set: 3, round: 9, c: 'zed', proof: 0b111 })).toEqual([]);
    expect(stats.replayedDecision).toBe(replayed + 1);
    expect(stats.conflictingDecision).toBe(conflicting + 1);
    expect(v.decided).toEqual(d);
  });

  it('an old round is not counted (our frames of that round go back to the laggard once per tick)', () => {
    // No patience: v0 and v1 split a-b with v2 silent, so both move to round 2 at once.
    const { voters, stats, bus } = setup(3, { patience: 0 });
    bus.put('v0', voters[0]!.receive('a', claim('a')));
    bus.put('v1', voters[1]!.receive('b', claim('b')));
    bus.run((f) => f.to !== 'v2' && f.msg.t !== 'CLAIM' && f.msg.round === 1);
    const v = voters[0]!;
    expect(v.currentRound).toBe(2);
    const out = v.receive('v2', { t: 'REPORT', vote: ID, set: 3, round: 1, c: 'c' });
    expect(stats.oldRound).toBe(1);
    expect(out.map((e) => 'send' in e && [e.send.t, e.send.t !== 'CLAIM' && e.send.round, e.to])).toEqual([['REPORT', 1, ['v2']], ['PROPOSE', 1, ['v2']]]);
    expect(v.receive('v2', { t: 'REPORT', vote: ID, set: 3, round: 1, c: 'c' })).toEqual([]); // once per tick
    expect(stats.oldRound).toBe(2);
  });

  it('a claim the caller refuses, candidates past the bound, a voter saying two things in one round', () => {
    const { voters, stats } = setup(3, { admit: (c) => c !== 'far-away' });
    const v = voters[0]!;
    expect(v.receive('far-away', claim('far-away'))).toEqual([]);
    expect(stats.badCandidate).toBe(1);
    expect(v.currentRound).toBe(0);
    v.receive('p0', claim('p0'));
    for (let i = 1; i <= MAX_CANDIDATES; i++) v.receive('v1', { t: 'REPORT', vote: ID, set: 3, round: 2, c: `p${i}` });
    expect(stats.tooManyCandidates).toBe(1);
    expect(stats.equivocation).toBe(MAX_CANDIDATES - 2);
    v.receive('v1', { t: 'REPORT', vote: ID, set: 3, round: 2, c: 'p1' });
    expect(stats.duplicate).toBe(1);
  });

  it('frames far ahead are not kept', () => {
    const { voters, stats } = setup(3);
    voters[0]!.receive('v1', { t: 'REPORT', vote: ID, set: 3, round: 40, c: 'a' });
    expect(stats.farRound).toBe(1);
  });
});
