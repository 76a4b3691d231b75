// Two edits of one block in one batch (safety seed 121). A primary without its lease queues
// the edits it gets; when the lease returns they are ordered as one batch. Two things went
// wrong there:
// - both edits went into the batch, which no backup can decode (an entry key repeats), so
//   none acked it: never committed, re-sent with every re-sync, the region stuck with its
//   lease held. Now the later replaces the earlier, confirmed with its own stamp;
// - a re-sent edit that an earlier epoch already ordered (the request log knows it, the state
//   holds it as the block's newest), queued behind a newer edit of the block, was ordered
//   again on top of it: an older edit applied twice, over a newer one. Now it is confirmed
//   with its old stamp (superseded), like a re-send behind an edit of an earlier batch.
// A re-send ahead of the newer edit is confirmed with its old stamp too: the state holds it
// (hosting-resend-once.test.ts).
import { describe, expect, it } from 'vitest';
import { idToHex, sortByDistance } from '../core/node-id';
import { GLASS, PLANKS } from '../world/blocks';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { columnIndex, REGION_BLOCKS, type RegionCoord } from '../region/region-key';
import { entryKey } from '../region/region-state';
import type { SubscriptionMessageOf } from '../region/subscription-messages';
import { chunkOf, localOf } from '../world/coords';

const R: RegionCoord = { rx: 0, rz: 0 };
const NAME = `${R.rx},${R.rz}`;
const X = R.rx * REGION_BLOCKS + 5, Y = 130, Z = R.rz * REGION_BLOCKS + 7;
const KEY = entryKey(columnIndex(chunkOf(X), chunkOf(Z)), localOf(X), Y, localOf(Z));

const primaryOf = (sim: HostSim): SimPeer => sim.primaryOf(NAME)!;

/**
 * A's edit (GLASS, request 7) is confirmed in the primary's first epoch; a backup dies and the
 * primary claims the next epoch over a new set; its lease lapses; B's new edit of the block
 * (PLANKS, request 9) and A's re-send of request 7 reach it, in the order asked; the lease
 * returns. What A and B heard, and the epochs.
 */
async function run(seed: number, resendFirst: boolean) {
  const sim = new HostSim({ seed });
  await sim.grow(6);
  await sim.settle(sim.live()[0]!.client.subscribe(R));
  const p = primaryOf(sim);
  // The editors: the two nodes farthest from the region's key, never among its hosts.
  const [a, b] = sortByDistance(sim.live(), (x) => x.dht.selfId, p.host.regionState(R)!.key).reverse() as [SimPeer, SimPeer];
  type Confirm = SubscriptionMessageOf<'CONFIRM'>;
  const heard = new Map<SimPeer, Confirm[]>([[a, []], [b, []]]);
  for (const [e, got] of heard) e.wire.players.events.on('frame', ({ msg }) => msg.t === 'CONFIRM' && got.push(msg));
  const edit = (from: SimPeer, r: number, id: number) => {
    sim.showPass(from, p.dht.selfId);
    from.wire.players.send(p.dht.selfId, { t: 'EDIT', ...R, r, x: X, y: Y, z: Z, id, px: X, py: Y, pz: Z + 3 });
  };
  const confirms = (who: SimPeer, r: number) => heard.get(who)!.filter((m) => m.r === r);

  edit(a, 7, GLASS);
  await sim.run(500);
  expect(confirms(a, 7)).toHaveLength(1);
  const region = p.host.regionState(R)!;
  const e1 = region.epoch;
  sim.kill(idToHex(region.hosts.find((h) => idToHex(h) !== p.hex)!));
  await sim.run(6000);
  expect(primaryOf(sim)).toBe(p);
  const e2 = region.epoch;
  expect(e2).toBeGreaterThan(e1);
  // Cut from its backups for less than failoverMs: the lease lapses, nobody claims.
  const backups = sim.live().filter((x) => x !== p && region.hosts.some((h) => idToHex(h) === x.hex));
  sim.net.partition([sim.live().filter((x) => !backups.includes(x)).map((x) => x.dht.selfId), backups.map((x) => x.dht.selfId)]);
  // Only until the lease lapses (leaseMs after the last beat a backup acked): the backups'
  // silence runs from the last frame they heard before the cut to the first after it heals,
  // so a fixed leaseMs + 50 ms, with the edits' 100 ms and up to a beat's phase on either
  // side, reached failoverMs (a claim at 601 ms of 600 allowed under one event order).
  for (let waited = 0; region.duty?.leaseHeld() && waited < p.host.opts.leaseMs + 50; waited += 5) await sim.run(5);
  const [first, second] = resendFirst ? [() => edit(a, 7, GLASS), () => edit(b, 9, PLANKS)] : [() => edit(b, 9, PLANKS), () => edit(a, 7, GLASS)];
  first();
  await sim.run(40);
  second();
  await sim.run(60);
  expect(region.duty && !region.duty.leaseHeld(), 'queued without the lease').toBe(true);
  sim.net.heal();
  await sim.run(2000);
  expect(primaryOf(sim)).toBe(p);
  expect(region.epoch, 'no failover in between').toBe(e2);
  const out = { a: confirms(a, 7), b: confirms(b, 9), e1, e2, block: region.state.get(KEY), backups: backups.map((x) => x.host.regionState(R)!.state.get(KEY)) };
  sim.stopAll();
  return out;
}

describe('two edits of one block in one batch (simulated)', () => {
  it.each([1, 2])('a re-send behind a newer edit is confirmed with its old stamp, not applied again (seed %i)', async (seed) => {
    const r = await run(seed, false);
    expect(r.b).toEqual([expect.objectContaining({ e: r.e2 })]);
    // Confirmed again with the stamp of its first ordering; the block keeps B's edit, everywhere.
    expect(r.a).toHaveLength(2);
    expect(r.a[1]).toMatchObject({ e: r.e1, s: r.a[0]!.s });
    expect(r.block).toMatchObject({ id: PLANKS, e: r.e2 });
    for (const held of r.backups) expect(held).toEqual(r.block);
  });

  it.each([1, 2])('a re-send ahead of a newer edit: confirmed with its old stamp, the newer edit commits over it (seed %i)', async (seed) => {
    const r = await run(seed, true);
    // The re-send is not ordered again (the state holds it with its first stamp); B's edit is
    // ordered in the new epoch; the block holds B's edit, at every host.
    expect(r.b).toEqual([expect.objectContaining({ e: r.e2 })]);
    expect(r.a).toHaveLength(2);
    expect(r.a[1]).toMatchObject({ e: r.e1, s: r.a[0]!.s });
    expect(r.block).toMatchObject({ id: PLANKS, e: r.e2, s: r.b[0]!.s });
    for (const held of r.backups) expect(held).toEqual(r.block);
  });
});
