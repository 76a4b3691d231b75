import { describe, expect, it } from 'vitest';
import { hexToId } from '../core/node-id';
import { ItemHostSim, type ItemPeer } from '../testing/item-host-sim';
import type { Item } from './item-ledger';
import { signOwnerRequest } from './owner-request';

const A = { rx: 0, rz: 0 };
const B = { rx: 1, rz: 0 };

/** 8 peers; players a, b near the border of regions 0,0 and 1,0 (x = 64), subscribed to both; a holds the first item of 0,0. */
async function world(seed: number) {
  const sim = new ItemHostSim({ seed, spawnMeanMs: 1500 });
  await sim.grow(8);
  const [pa, pb] = sim.live().slice(-2);
  await sim.settle(Promise.all([pa!, pb!].flatMap((p) => [p.client.subscribe(A), p.client.subscribe(B)])));
  const a = sim.items.get(pa!.hex)!, b = sim.items.get(pb!.hex)!;
  let item: Item | undefined;
  for (let i = 0; i < 200 && !item; i++) {
    sim.stand(a.peer.hex, { x: 60.5, y: 70, z: 20.5 });
    sim.stand(b.peer.hex, { x: 61.5, y: 70, z: 20.5 });
    await sim.run(250);
    item = a.player.onGround().find((x) => x.id.startsWith('0,0/'));
  }
  expect(item).toBeDefined();
  sim.stand(a.peer.hex, item!);
  await sim.run(300);
  expect(await sim.settle(a.player.claim(item!.id, item!))).toBe(true);
  await sim.run(500);
  return { sim, a, b, item: item! };
}

/** The record of `id` at each host of region `name` now. */
const records = (sim: ItemHostSim, name: string, id: string) => sim.hostLedgers(name).map((h) => h.items!.ledger.item(id));
/** The item lies (or is held) in region `name`: every host there has a record of it that is no tombstone. */
const livesIn = (sim: ItemHostSim, name: string, id: string) => {
  const rs = records(sim, name, id);
  return rs.length > 0 && rs.every((r) => r !== undefined && r.away === undefined);
};

describe('carrying an item into another region (simulated hosting)', () => {
  it('a held item walked into another region is still held, is put down there by the proof of its region, and is then anyone\'s', async () => {
    const { sim, a, b, item } = await world(31);
    sim.stand(a.peer.hex, { x: 66.5, y: 70, z: 20.5 });
    await sim.run(300);
    expect(a.player.inventory().map((i) => i.id)).toContain(item.id); // still held, in region 1,0
    const spot = { x: 67.5, y: 70, z: 20.5 };
    expect(await sim.settle(a.player.drop(item.id, spot))).toBe(true);
    await sim.run(1000);
    // In 0,0 a tombstone (still a's, away to 1,0, proven by 0,0's hosts); in 1,0 the item lies, proven by 1,0's hosts.
    for (const r of records(sim, '0,0', item.id)) expect(r).toMatchObject({ owner: a.peer.hex, away: '1,0', gen: 1, proof: { vote: `carry:${item.id}:1` } });
    for (const r of records(sim, '1,0', item.id)) expect(r).toMatchObject({ owner: null, gen: 2, x: spot.x, proof: { vote: `drop:${item.id}:2` } });
    expect(a.player.inventory().map((i) => i.id)).not.toContain(item.id);
    expect(b.player.onGround().map((i) => i.id)).toContain(item.id);
    sim.stand(b.peer.hex, spot);
    await sim.run(300);
    expect(await sim.settle(b.player.claim(item.id, spot))).toBe(true);
    await sim.run(500);
    for (const r of records(sim, '1,0', item.id)) expect(r?.owner).toBe(b.peer.hex);
    expect(b.player.inventory().map((i) => i.id)).toContain(item.id);
    sim.stopAll();
  });

  it('the duplication attack: the same held item dropped in both regions at once lies in one of them only; a forged or replayed arrival is refused', async () => {
    for (const seed of [32, 33, 34]) {
      const { sim, a, item } = await world(seed);
      sim.stand(a.peer.hex, { x: 63.5, y: 70, z: 20.5 });
      await sim.run(300);
      const inA = { x: 62.5, y: 70, z: 20.5 }, inB = { x: 65.5, y: 70, z: 20.5 };
      const [okA, okB] = await sim.settle(Promise.all([a.player.drop(item.id, inA), a.player.drop(item.id, inB)]));
      await sim.run(2000);
      expect([okA, okB].filter(Boolean).length).toBeLessThanOrEqual(1);
      expect([livesIn(sim, '0,0', item.id), livesIn(sim, '1,0', item.id)].filter(Boolean)).toHaveLength(1);

      // A hostile owner brings into 1,0 a tombstone it made up (or the pickup's proof moved onto one): refused, counted.
      const primaryB = sim.primaryItemPeer('1,0')!;
      const held = records(sim, '0,0', item.id)[0]!;
      const forged = { ...held, owner: a.peer.hex, away: '1,0', gen: held.gen + 1 };
      // Each brought with the owner's own signature (owner-request.ts): the tombstone is what is refused.
      const bring = async (rec: Item, at: { x: number; y: number; z: number }) => {
        const req = await signOwnerRequest(a.signer, { ax: B.rx, az: B.rz }, { kind: 'arrive', item: rec.id, gen: rec.gen, p: at, from: '0,0' }, 99, a.clock.now());
        a.wire.send(hexToId(primaryB.peer.hex), { t: 'ITEM_BRING', ...B, ...req, from: { ...A, rec }, ...at });
      };
      const unproven = (p: ItemPeer) => p.host.stats.unprovenCarry;
      const before = unproven(primaryB);
      await bring(forged, { x: 70.5, y: 70, z: 30.5 });
      await bring({ ...forged, proof: held.proof }, { x: 70.5, y: 70, z: 30.5 });
      await sim.run(1500);
      expect(unproven(primaryB)).toBe(before + 2);
      expect(records(sim, '1,0', item.id).every((r) => r === undefined || r.x !== 70.5)).toBe(true);
      // A real tombstone brought again (after it arrived once): refused by the ledger, nothing moves.
      if (livesIn(sim, '1,0', item.id)) {
        const tomb = records(sim, '0,0', item.id)[0]!;
        const lying = records(sim, '1,0', item.id)[0]!;
        await bring(tomb, { x: 71.5, y: 70, z: 31.5 });
        await sim.run(1500);
        for (const r of records(sim, '1,0', item.id)) expect(r).toMatchObject({ x: lying.x, gen: lying.gen });
      }
      expect([livesIn(sim, '0,0', item.id), livesIn(sim, '1,0', item.id)].filter(Boolean)).toHaveLength(1);
      sim.stopAll();
    }
  });

  it('a backup signs one record per item and gen: a hostile primary asking for both a drop and a carry of one held item gets each backup\'s signature for one of them only', async () => {
    const { sim, a, item } = await world(35);
    const primaryA = sim.primaryItemPeer('0,0')!;
    const backups = sim.hostLedgers('0,0').map((h) => h.hex).filter((h) => h !== primaryA.peer.hex);
    const e = primaryA.peer.host.knownRegions().find((r) => r.name === '0,0')!.epoch;
    const held = records(sim, '0,0', item.id).find(Boolean)!;
    const { proof: _p, ...bare } = held;
    const drop = { ...bare, owner: null, gen: held.gen + 1, x: held.x + 1, at: 1 };
    const carry = { ...bare, gen: held.gen + 1, away: '1,0' };
    const signed: string[] = [];
    primaryA.wire.events.on('frame', ({ fromHex, msg }) => { if (msg.t === 'ITEM_HELD' && msg.item === item.id) signed.push(fromHex); });
    // The owner signed both (a hostile owner with a hostile primary): each backup still signs one only.
    const area = { ax: A.rx, az: A.rz };
    const asks = [
      await signOwnerRequest(a.signer, area, { kind: 'drop', item: item.id, gen: held.gen, p: { x: drop.x, y: drop.y, z: drop.z } }, 1, a.clock.now()),
      await signOwnerRequest(a.signer, area, { kind: 'carry', item: item.id, gen: held.gen, to: '1,0' }, 2, a.clock.now()),
    ];
    for (const [i, rec] of [drop, carry].entries()) for (const to of backups) primaryA.wire.send(hexToId(to), { t: 'ITEM_DROPPING', ...A, e, by: a.peer.hex, rec, ...asks[i]! });
    await sim.run(1000);
    expect(signed.length).toBe(backups.length); // each backup signed exactly one of the two
    expect(new Set(signed).size).toBe(backups.length);
    sim.stopAll();
  });
});
