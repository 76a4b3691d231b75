import { describe, expect, it } from 'vitest';
import { hexToId } from '../core/node-id';
import { randomInt, seededRandom } from '../core/seeded-random';
import { FRAME_MS, runItemWorld } from '../testing/item-world-sim';
import { SimKeyring } from '../testing/sim-keyring';
import { ProofChecker, ProofSigner, type ProofFault } from './decision-proof';
import { ItemClient, type ClientEffect } from './item-client';
import type { Item, SpawnCandidate } from './item-ledger';
import type { ItemVoteMessage } from './item-votes';
import { VoterSet } from './voter-set';

const AREA = { ax: 0, az: 0, x0: 0, z0: 0, size: 64 };
const ids = [0, 1, 2, 3].map((i) => `0a${i.toString(16).padStart(38, '0')}`);
const set = new VoterSet(1, ids.slice(0, 3));
const spawn: SpawnCandidate = { t: 's', slot: 0, kind: 'apple', x: 5.5, y: 20, z: 5.5, at: 1000, by: ids[0]! };
const spawnRec: Item = { id: '0,0/0', kind: 'apple', x: 5.5, y: 20, z: 5.5, at: 1000, owner: null, gen: 0 };

/** A player's replica, with the page's part: each decision it names is checked by its signatures, then applied. */
function player() {
  const keyring = new SimKeyring('client');
  const signers = ids.map((h) => new ProofSigner(keyring.signer(hexToId(h))));
  const checker = new ProofChecker(keyring.verify);
  const c = new ItemClient({ self: 'me', seed: 'w', area: AREA, voters: set });
  const faults: (ProofFault | null)[] = [];
  const take = async (from: string, msg: ItemVoteMessage): Promise<ClientEffect[]> => {
    const out: ClientEffect[] = [];
    for (const e of c.receive(from, msg)) {
      if (!('check' in e)) continue;
      const fault = await checker.check(AREA, e.check.rec, e.check.proof, e.check.proof.e === set.tag ? set : undefined);
      faults.push(fault);
      if (fault === null) out.push(...c.applyChecked(e.check.vote, e.check.d, e.check.proof));
    }
    return out;
  };
  const sign = (i: number, vote: string, round: number, rec: Item, e = 1) => signers[i]!.sign(AREA, e, vote, round, rec);
  return { c, take, sign, faults, checker };
}

describe('ItemClient (a player: a replica of the area, its own claims)', () => {
  it("takes a decision only with a majority's signatures over its record: not a stranger's, another set's, an unsigned, minority, non-voter, forged or other round's one", async () => {
    const { c, take, sign, faults, checker } = player();
    const vote = 'spawn:0,0:0';
    const decided = (sigs: Awaited<ReturnType<typeof sign>>[] | undefined, o: Partial<{ set: number; round: number; proof: number }> = {}): ItemVoteMessage =>
      ({ t: 'DECIDED', vote, set: 1, round: 1, c: spawn, proof: 0b011, ...(sigs ? { sigs } : {}), ...o });
    const good = [await sign(0, vote, 1, spawnRec), await sign(1, vote, 1, spawnRec)];
    expect(await take('mallory', decided(good))).toEqual([]); // a stranger's frame
    expect(await take(ids[1]!, decided(good, { set: 9 }))).toEqual([]); // another set's
    expect(await take(ids[1]!, decided(undefined))).toEqual([]); // no signatures
    expect([c.stats.nonVoter, c.stats.wrongSet, c.stats.forgedDecision]).toEqual([1, 1, 1]);
    expect(await take(ids[1]!, decided(good.slice(0, 1)))).toEqual([]); // a minority
    expect(await take(ids[1]!, decided([good[0]!, await sign(3, vote, 1, spawnRec)]))).toEqual([]); // one signer no voter
    const star = { ...spawnRec, kind: 'gem' as const };
    expect(await take(ids[1]!, decided([await sign(0, vote, 1, star), await sign(1, vote, 1, star)]))).toEqual([]); // signed another record
    expect(await take(ids[1]!, decided(good, { round: 2 }))).toEqual([]); // round 1's signatures replayed as round 2's
    expect(await take(ids[1]!, decided([await sign(0, vote, 1, spawnRec, 2), await sign(1, vote, 1, spawnRec, 2)]))).toEqual([]); // another epoch's
    expect(faults).toEqual(['minority', 'non-voter', 'bad-signature', 'bad-signature', 'bad-signature']);
    expect(checker.stats).toMatchObject({ minority: 1, 'non-voter': 1, 'bad-signature': 3 });
    expect(c.ledger.items).toEqual([]);
    // Signed by a majority of the set over this record: it appears, with its proof.
    expect(await take(ids[1]!, decided(good))).toMatchObject([{ appeared: { id: '0,0/0', kind: 'apple', proof: { e: 1, vote, round: 1 } } }]);
    expect(await take(ids[2]!, decided(good))).toEqual([]); // replayed: the slot is past
    expect(c.ledger.stats['replayed-decision']).toBe(1);
    // Its claim: learnt from a majority's signed proposals (without any DECIDED).
    expect(c.claim('0,0/0', { x: 5, y: 20, z: 5 }, 999)).toEqual([]); // not shown yet: refused here already
    expect(c.claim('0,0/0', { x: 5, y: 20, z: 5 }, 1000)).toMatchObject([{ send: { t: 'CLAIM', vote: 'take:0,0/0:0' }, to: set.ids }]);
    const me = { t: 'c' as const, who: 'me', x: 5, y: 20, z: 5 };
    const taken = { ...spawnRec, owner: 'me' };
    const propose = async (i: number): Promise<ItemVoteMessage> => ({ t: 'PROPOSE', vote: 'take:0,0/0:0', set: 1, round: 1, c: me, sig: await sign(i, 'take:0,0/0:0', 1, taken) });
    expect(await take(ids[0]!, await propose(0))).toEqual([]);
    expect(await take(ids[2]!, await propose(2))).toMatchObject([{ taken: { owner: 'me', proof: { vote: 'take:0,0/0:0' } } }]);
    expect(c.ledger.heldBy('me').length).toBe(1);
  });
});

describe('an area in full (simulated): hosts, players, world clocks, the spawn shown frame by frame, the pickup', () => {
  it('loopback-like links: the players\' clocks fire the appearance within 2 ms, so each shows it on its first frame after (within a frame and the bounds); one owner everywhere', async () => {
    const rand = seededRandom(10);
    const fires: number[] = [];
    for (let seed = 1; seed <= 40; seed++) {
      const r = await runItemWorld({ seed, hosts: randomInt(rand, 3, 6), players: randomInt(rand, 2, 9), proposers: randomInt(rand, 1, 4), latencyMinMs: 0.2, latencyMaxMs: 2, jitterMeanMs: 0.3, loss: 0.02 });
      expect(r.settled).toBe(true);
      expect(r.owners.length).toBe(1);
      expect(r.late).toBe(0);
      expect(r.skewMs).toBeLessThan(FRAME_MS + 2 * r.boundMs);
      fires.push(r.fireSkewMs);
    }
    expect(Math.max(...fires)).toBeLessThan(2);
  });

  it('50 ms links with loss: still one owner everywhere, shown within about the clock bounds', async () => {
    const rand = seededRandom(11);
    for (let seed = 1; seed <= 20; seed++) {
      const r = await runItemWorld({ seed, hosts: randomInt(rand, 3, 6), players: randomInt(rand, 2, 9), proposers: randomInt(rand, 1, 4), latencyMinMs: 40, latencyMaxMs: 60, jitterMeanMs: 5, loss: 0.05 });
      expect(r.settled).toBe(true);
      expect(r.owners.length).toBe(1);
      if (r.late === 0) expect(r.skewMs).toBeLessThan(2 * r.boundMs + 17);
    }
  });
});
