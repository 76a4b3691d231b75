import { describe, expect, it } from 'vitest';
import { randomInt, seededRandom } from '../core/seeded-random';
import { FRAME_MS, runItemWorld } from '../testing/item-world-sim';
import { ItemClient } from './item-client';
import type { SpawnCandidate } from './item-ledger';
import { VoterSet } from './voter-set';

const AREA = { ax: 0, az: 0, x0: 0, z0: 0, size: 64 };
const set = new VoterSet(1, ['h0', 'h1', 'h2']);
const spawn: SpawnCandidate = { t: 's', slot: 0, kind: 'apple', x: 5.5, y: 20, z: 5.5, at: 1000, by: 'h0' };

describe('ItemClient (a player: a replica of the area, its own claims)', () => {
  it('takes a spawn from a voter\'s DECIDED, not from a stranger or another set; learns its claim\'s outcome from f + 1 proposals', () => {
    const c = new ItemClient({ self: 'me', seed: 'w', area: AREA, voters: set });
    expect(c.receive('mallory', { t: 'DECIDED', vote: 'spawn:0,0:0', set: 1, round: 1, c: spawn, proof: 0b111 })).toEqual([]);
    expect(c.receive('h1', { t: 'DECIDED', vote: 'spawn:0,0:0', set: 9, round: 1, c: spawn, proof: 0b111 })).toEqual([]);
    expect(c.receive('h1', { t: 'DECIDED', vote: 'spawn:0,0:0', set: 1, round: 1, c: spawn, proof: 0b001 })).toEqual([]); // too few voters
    expect([c.stats.nonVoter, c.stats.wrongSet, c.ledger.stats['forged-decision']]).toEqual([1, 1, 1]);
    const fx = c.receive('h1', { t: 'DECIDED', vote: 'spawn:0,0:0', set: 1, round: 1, c: spawn, proof: 0b011 });
    expect(fx).toMatchObject([{ appeared: { id: '0,0/0', kind: 'apple' } }]);
    expect(c.ledger.onGround(999)).toEqual([]);
    expect(c.claim('0,0/0', { x: 5, y: 20, z: 5 }, 999)).toEqual([]); // not shown yet: refused here already
    const claim = c.claim('0,0/0', { x: 5, y: 20, z: 5 }, 1000);
    expect(claim).toMatchObject([{ send: { t: 'CLAIM', vote: 'take:0,0/0:0' }, to: ['h0', 'h1', 'h2'] }]);
    const me = { t: 'c' as const, who: 'me', x: 5, y: 20, z: 5 };
    expect(c.receive('h0', { t: 'PROPOSE', vote: 'take:0,0/0:0', set: 1, round: 1, c: me })).toEqual([]);
    expect(c.receive('h2', { t: 'PROPOSE', vote: 'take:0,0/0:0', set: 1, round: 1, c: me })).toMatchObject([{ taken: { owner: 'me' } }]);
    expect(c.ledger.heldBy('me').length).toBe(1);
  });
});

describe('an area in full (simulated): hosts, players, world clocks, the spawn shown frame by frame, the pickup', () => {
  it('loopback-like links: the players\' clocks fire the appearance within 2 ms, so each shows it on its first frame after (within a frame and the bounds); one owner everywhere', () => {
    const rand = seededRandom(10);
    const fires: number[] = [];
    for (let seed = 1; seed <= 40; seed++) {
      const r = runItemWorld({ seed, hosts: randomInt(rand, 3, 6), players: randomInt(rand, 2, 9), proposers: randomInt(rand, 1, 4), latencyMinMs: 0.2, latencyMaxMs: 2, jitterMeanMs: 0.3, loss: 0.02 });
      expect(r.settled).toBe(true);
      expect(r.owners.length).toBe(1);
      expect(r.late).toBe(0);
      expect(r.skewMs).toBeLessThan(FRAME_MS + 2 * r.boundMs);
      fires.push(r.fireSkewMs);
    }
    expect(Math.max(...fires)).toBeLessThan(2);
  });

  it('50 ms links with loss: still one owner everywhere, shown within about the clock bounds', () => {
    const rand = seededRandom(11);
    for (let seed = 1; seed <= 20; seed++) {
      const r = runItemWorld({ seed, hosts: randomInt(rand, 3, 6), players: randomInt(rand, 2, 9), proposers: randomInt(rand, 1, 4), latencyMinMs: 40, latencyMaxMs: 60, jitterMeanMs: 5, loss: 0.05 });
      expect(r.settled).toBe(true);
      expect(r.owners.length).toBe(1);
      if (r.late === 0) expect(r.skewMs).toBeLessThan(2 * r.boundMs + 17);
    }
  });
});
