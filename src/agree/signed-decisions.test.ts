import { describe, expect, it } from 'vitest';
import { hexToId } from '../core/node-id';
import { ItemHostSim, type ItemPeer } from '../testing/item-host-sim';
import { ProofSigner, type ProofSig } from './decision-proof';
import type { ItemWireMessage } from './item-wire';

const REGION = { rx: 0, rz: 0 };
const NAME = '0,0';

/** A sim of 8 peers, two players in region 0,0 and the first item spawned there. */
async function world(seed: number) {
  const sim = new ItemHostSim({ seed, spawnMeanMs: 1500 });
  await sim.grow(8);
  return { sim, ...(await sim.twoPlayersAndAnItem()) };
}

const sum = (xs: number[]) => xs.reduce((n, x) => n + x, 0);

describe('decisions signed by the voters (simulated hosting)', () => {
  it('a decision sent by a hostile voter unsigned, signed by non-voters, by a minority or with another round\'s signatures changes nothing anywhere, and is counted', async () => {
    const { sim, a, b, item } = await world(21);
    const hostHexes = sim.hostLedgers(NAME).map((h) => h.hex);
    expect(hostHexes.length).toBe(3);
    const hostile = sim.items.get(hostHexes.find((h) => h !== a.peer.hex && h !== b.peer.hex)!)!;
    const honest = hostHexes.filter((h) => h !== hostile.peer.hex);
    const outsider = [...sim.items.values()].find((p) => !hostHexes.includes(p.peer.hex) && p !== a && p !== b)!;
    const e = a.peer.client.hostSet(REGION)!.epoch;
    const area = { ax: 0, az: 0 };
    const vote = `take:${item.id}:0`;
    const c = { t: 'c' as const, who: outsider.peer.hex, x: item.x, y: item.y, z: item.z };
    const { proof: _p, ...bare } = item;
    const rec = { ...bare, owner: outsider.peer.hex };
    const signer = (p: ItemPeer | string) => new ProofSigner(sim.keyring.signer(hexToId(typeof p === 'string' ? p : p.peer.hex)));
    const sign = (p: ItemPeer | string, round = 1) => signer(p).sign(area, e, vote, round, rec);
    const decided = (sigs: ProofSig[] | undefined, round = 1): ItemWireMessage => ({ t: 'ITEM_DECIDED', ...REGION, vote, set: e, round, c, proof: 0b111, ...(sigs ? { sigs } : {}) });
    const toAll = (m: ItemWireMessage) => [...hostHexes, a.peer.hex, b.peer.hex].forEach((to) => to !== hostile.peer.hex && hostile.wire.send(hexToId(to), m));
    const proofFaults = () => {
      const out: Record<string, number> = {};
      for (const p of [...honest.map((h) => sim.items.get(h)!.host.checker.stats), a.player.checker.stats, b.player.checker.stats]) {
        for (const [k, n] of Object.entries(p)) out[k] = (out[k] ?? 0) + n;
      }
      return out;
    };
    const unsigned = () => sum(honest.map((h) => sim.items.get(h)!.host.stats.unsigned)) + a.player.stats.unsigned + b.player.stats.unsigned;
    const forged = () => sum(honest.map((h) => sim.items.get(h)!.host.voteStats.forgedDecision)) + (a.player.counters()['vote.forgedDecision'] ?? 0);

    const before = { faults: proofFaults(), unsigned: unsigned(), forged: forged() };
    toAll(decided(undefined)); // unsigned
    toAll(decided([await sign(outsider), await sign(a)])); // two signers of no vote here (a is no host)
    toAll(decided([await sign(hostile)])); // the hostile voter alone: a minority
    toAll(decided([await sign(hostile, 1), await sign(honest[0]!, 1)], 2)); // round 1's signatures sent as round 2's
    // And as region state: the item given to the outsider, once with no proof and once with the spawn's proof moved onto it.
    const state = sim.items.get(honest[0]!)!.host.region(NAME)!.ledger.toState();
    const moved = { ...rec, proof: item.proof };
    for (const it of [{ ...rec }, moved]) toAll({ t: 'ITEM_STATE', ...REGION, e, state: { ...state, items: [it] } });
    await sim.run(1000);

    const after = proofFaults();
    expect(forged()).toBeGreaterThan(before.forged);
    expect(unsigned()).toBeGreaterThan(before.unsigned);
    for (const f of ['non-voter', 'minority', 'bad-signature', 'vote-mismatch']) expect(after[f]! - (before.faults[f] ?? 0), f).toBeGreaterThan(0);
    // Nothing changed: nobody holds the item.
    for (const h of hostHexes) expect(sim.items.get(h)!.host.region(NAME)!.ledger.item(item.id)?.owner).toBe(null);
    for (const p of [a, b, outsider]) expect(p.player.items().find((i) => i.id === item.id)?.owner ?? null).toBe(null);

    // The honest way still works: a claims it, and every host and player holds a's ownership by a majority's signatures.
    sim.stand(a.peer.hex, item);
    await sim.run(300);
    expect(await sim.settle(a.player.claim(item.id, item))).toBe(true);
    await sim.run(1000);
    for (const h of hostHexes) {
      const held = sim.items.get(h)!.host.region(NAME)!.ledger.item(item.id)!;
      expect(held.owner).toBe(a.peer.hex);
      expect(held.proof?.vote).toBe(vote);
      expect(held.proof!.sigs.length).toBeGreaterThanOrEqual(2);
    }
    sim.stopAll();
  });

  it('after two failovers a newcomer holds the item by a proof of a set it knows (the sets since vouched for it)', async () => {
    const { sim, a, item } = await world(22);
    sim.stand(a.peer.hex, item);
    await sim.run(300);
    expect(await sim.settle(a.player.claim(item.id, item))).toBe(true);
    const firstEpoch = a.peer.client.hostSet(REGION)!.epoch;
    for (let k = 0; k < 2; k++) {
      const p = sim.primaryItemPeer(NAME)!;
      if (p === a) break;
      sim.kill(p.peer.hex);
      await sim.run(10_000);
    }
    const now = sim.primaryItemPeer(NAME)!;
    const epoch = now.peer.host.knownRegions().find((r) => r.name === NAME)!.epoch;
    expect(epoch).toBeGreaterThan(firstEpoch + 1);
    const proofE = now.host.region(NAME)!.ledger.item(item.id)?.proof?.e;
    expect(proofE).toBe(epoch); // vouched for by this set
    expect(now.host.region(NAME)!.endorse.stats.endorsed).toBeGreaterThan(0);
    // A peer that never saw the region subscribes now: it knows this epoch's set and the one before only.
    const late = [...sim.items.values()].find((p) => !sim.hostLedgers(NAME).some((h) => h.hex === p.peer.hex) && p !== a)!;
    await sim.settle(late.peer.client.subscribe(REGION));
    await sim.run(3000);
    expect(late.player.items().find((i) => i.id === item.id)?.owner).toBe(a.peer.hex);
    sim.stopAll();
  });
});
