import { describe, expect, it } from 'vitest';
import { seededRandom } from '../core/seeded-random';
import { VoteBus, type BusNode } from '../testing/vote-bus';
import { Vote, type Handover } from './vote';
import { restartFrom } from './vote-handover';
import { VoterSet } from './voter-set';

const key = (c: string) => c;

describe('handing a vote over to a new voter set', () => {
  it('needs handovers from n - f old voters, and ignores outsiders', () => {
    const old = new VoterSet(1, ['a', 'b', 'c', 'd', 'e']);
    const h = new Map<string, Handover<string>>([['a', {}], ['b', {}], ['x', {}], ['y', {}]]);
    expect(restartFrom(old, h)).toBeUndefined();
    h.set('c', {});
    expect(restartFrom(old, h)).toEqual({ free: true });
    h.set('d', { proposal: { round: 2, c: 'P' } });
    h.set('e', { proposal: { round: 5, c: 'Q' } });
    expect(restartFrom(old, h)).toEqual({ lock: 'Q' });
  });

  it('a decision only one old voter saw survives a change to voters that never heard of it', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const old = new VoterSet(1, ['o0', 'o1', 'o2', 'o3', 'o4']);
      const voters = old.ids.map((self, i) => new Vote<string>({ id: 'it', voters: old, self, key, rng: seededRandom(seed * 8 + i) }));
      const bus = new VoteBus<string>(new Map<string, BusNode<string>>(old.ids.map((id, i) => [id, voters[i]!])));
      // o0..o2 back A first, o3, o4 back B; then o0 alone hears every proposal and decides.
      ['A', 'A', 'A', 'B', 'B'].forEach((c, i) => bus.put(`o${i}`, voters[i]!.receive(`p${c}`, { t: 'CLAIM', vote: 'it', c })));
      bus.run((f) => f.msg.t === 'REPORT');
      bus.run((f) => f.msg.t === 'PROPOSE' && f.to === 'o0');
      expect(voters[0]!.decided?.c).toBe('A');
      bus.queue.length = 0; // o0 dies with its DECIDED unsent
      // The epoch changes: o1..o4 hand over (a majority of five), o0 is gone.
      const hs = new Map(old.ids.slice(1).map((id, i) => [id, voters[i + 1]!.handover()] as const));
      const restart = restartFrom(old, hs);
      expect(restart).toEqual({ lock: 'A' });
      const next = new VoterSet(2, ['o1', 'o2', 'n5']);
      const lock = (restart as { lock: string }).lock;
      const fresh = next.ids.map((self, i) => new Vote<string>({ id: 'it', voters: next, self, key, rng: seededRandom(seed + i), lock }));
      const bus2 = new VoteBus<string>(new Map<string, BusNode<string>>(next.ids.map((id, i) => [id, fresh[i]!])));
      bus2.put('n5', fresh[2]!.receive('pB', { t: 'CLAIM', vote: 'it', c: 'B' })); // B claims again: refused
      fresh.forEach((x, i) => bus2.put(next.ids[i]!, x.begin()));
      bus2.run();
      expect(fresh.map((x) => x.decided?.c)).toEqual(['A', 'A', 'A']);
      expect(fresh[2]!.stats.badCandidate).toBe(1);
      // The old voters that handed over take no further part.
      expect(voters[1]!.receive('o0', { t: 'REPORT', vote: 'it', set: 1, round: 2, c: 'B' })).toEqual([]);
      expect(voters[1]!.stats.afterHandover).toBe(1);
    }
  });
});
