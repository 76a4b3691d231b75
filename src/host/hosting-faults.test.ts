// Handoff to a closer joiner, a whole-world restart from host stores, and forged or
// malformed frames: none loses a confirmed edit or changes state a sender does not own.
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { CHANNELS } from '../dht/app-channels';
import { BRICK, GLASS, PLACEABLE } from '../world/blocks';
import { subscriptionCodec } from '../region/subscription-messages';
import { HostSim, simKeyHash, type SimPeer } from '../testing/host-sim';
import { MOTION_RULES } from './motion-tracker';
import { REGION_BLOCKS, RegionKeys, type RegionCoord } from '../region/region-key';
import { encodeEntries, type Stamp } from '../region/region-state';

const R: RegionCoord = { rx: 2, rz: -1 };

async function editMany(sim: HostSim, p: SimPeer, n: number, seed: number): Promise<{ x: number; y: number; z: number; id: number; stamp: Stamp }[]> {
  const out: { x: number; y: number; z: number; id: number; stamp: Stamp }[] = [];
  for (let i = 0; i < n; i++) {
    const x = R.rx * REGION_BLOCKS + ((seed * 7 + i * 13) % REGION_BLOCKS);
    const z = R.rz * REGION_BLOCKS + ((seed * 3 + i * 29) % REGION_BLOCKS);
    const y = 120 + (i % 50);
    const id = PLACEABLE[(seed + i) % PLACEABLE.length]!;
    const stamp = await sim.settle(p.client.submit(x, y, z, id, { x, y, z: z + 3 }));
    out.push({ x, y, z, id, stamp });
  }
  return out;
}

describe('hosting faults (simulated)', () => {
  it('hands a region over to a closer joiner without losing an edit', async () => {
    const sim = new HostSim({ seed: 5 });
    await sim.grow(16);
    const player = sim.pick();
    await sim.settle(player.client.subscribe(R));
    const before = await editMany(sim, player, 10, 1);
    const [old] = sim.primariesOf(R);
    const oldEpoch = old!.host.regionState(R)!.epoch;
    // A node whose id differs from the region key in the last bit: closer than anyone.
    const key = await new RegionKeys(sim.world, simKeyHash).key(R);
    const closer: NodeId = new Uint8Array(key);
    closer[19]! ^= 1;
    await sim.add(closer);
    // Keep editing through the handoff.
    const during = sim.settle(editMany(sim, player, 10, 2), 60_000);
    await sim.run(12_000);
    const after = [...before, ...(await during)];
    const [now] = sim.primariesOf(R);
    expect(now!.hex).toBe(idToHex(closer));
    expect(now!.host.regionState(R)!.epoch).toBeGreaterThan(oldEpoch);
    await sim.run(2000);
    const state = now!.host.regionState(R)!.state;
    for (const e of after) expect(state.get(keyOf(e))?.id).toBe(e.id);
    expect(player.client.state(R)!.fingerprint()).toBe(state.fingerprint());
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });

  it('keeps every confirmed edit when the whole world closes and reopens', async () => {
    const sim = new HostSim({ seed: 8 });
    await sim.grow(10);
    const ids = sim.live().map((p) => p.dht.selfId);
    const player = sim.pick();
    await sim.settle(player.client.subscribe(R));
    const edits = await editMany(sim, player, 15, 3);
    await sim.run(3000);
    sim.stopAll();
    await sim.run(5000);
    for (const id of ids) await sim.add(id);
    const again = sim.pick();
    await sim.settle(again.client.subscribe(R), 60_000);
    await sim.run(3000);
    const state = again.client.state(R)!;
    for (const e of edits) expect(state.get(keyOf(e))?.id).toBe(e.id);
    // And the world takes edits again.
    const more = await editMany(sim, again, 3, 4);
    expect(more[0]!.stamp.e).toBeGreaterThan(edits[0]!.stamp.e);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });

  it('drops malformed and forged frames; words about state a node does not own change nothing', async () => {
    const sim = new HostSim({ seed: 13 });
    await sim.grow(12);
    const player = sim.pick();
    await sim.settle(player.client.subscribe(R));
    await editMany(sim, player, 3, 5);
    const [primary] = sim.primariesOf(R);
    const hosts = primary!.host.regionState(R)!.hosts.map(idToHex);
    const backup = sim.live().find((p) => hosts.includes(p.hex) && p !== primary)!;
    const rogue = sim.live().find((p) => !hosts.includes(p.hex) && p !== player)!;
    const raw = (to: SimPeer, body: Uint8Array) => {
      const framed = new Uint8Array(body.length + 1);
      framed[0] = CHANNELS.region;
      framed.set(body, 1);
      rogue.dht.send(to.dht.selfId, framed);
    };
    const fpPlayer = player.client.state(R)!.fingerprint();
    const fpBackup = backup.host.regionState(R)!.state.fingerprint();
    const epoch = primary!.host.regionState(R)!.epoch;
    const forged = encodeEntries([{ key: 5, id: BRICK, e: epoch + 5, s: 1 }]);
    // The real certificate, re-dated and re-addressed to the rogue: its grants no longer match.
    const real = primary!.host.regionState(R)!.cert!;
    const forgedCert = (e: number) => ({ ...real, e, primary: rogue.dht.selfId, hosts: [rogue.dht.selfId, ...real.hosts.slice(1)] });

    // Malformed, unknown type, oversized.
    raw(primary!, new Uint8Array([0xc1, 0xff, 0x00]));
    raw(primary!, subscriptionCodec.encode({ t: 'UNSUBSCRIBE', rx: 0, rz: 0 }).map((b, i) => (i === 1 ? 99 : b)));
    raw(primary!, new Uint8Array(70 * 1024));
    // Schema-invalid: a block id that is not a number.
    raw(primary!, new Uint8Array([0x92, 0x07, 0x81, 0xa2, 0x69, 0x64, 0xa1, 0x78]));
    // A DELTA from a node that is not the primary, in a later epoch.
    rogue.wire.players.send(player.dht.selfId, { t: 'DELTA', rx: R.rx, rz: R.rz, e: epoch, from: 1, to: 1000, entries: forged });
    rogue.wire.players.send(player.dht.selfId, { t: 'SNAPSHOT', rx: R.rx, rz: R.rz, e: epoch + 5, v: { e: epoch + 5, s: 1 }, full: true, hosts: [], entries: forged, cert: forgedCert(epoch + 5) });
    // A REPLICATE with a stale epoch, and one from a node outside the host set.
    rogue.wire.replicas.send(backup.dht.selfId, { t: 'REPLICATE', rx: R.rx, rz: R.rz, e: epoch - 1, from: 1, to: 1, entries: forged, hosts: [] });
    rogue.wire.replicas.send(backup.dht.selfId, { t: 'SYNC', rx: R.rx, rz: R.rz, e: epoch + 3, s: 1, entries: forged, hosts: [backup.dht.selfId, rogue.dht.selfId], cert: forgedCert(epoch + 3) });
    // A claim from outside the host set.
    rogue.wire.replicas.send(backup.dht.selfId, { t: 'CLAIM', rx: R.rx, rz: R.rz, e: epoch + 1, hosts: [rogue.dht.selfId, backup.dht.selfId] });
    rogue.wire.replicas.send(primary!.dht.selfId, { t: 'CLAIM', rx: R.rx, rz: R.rz, e: epoch + 1, hosts: [rogue.dht.selfId, primary!.dht.selfId] });
    await sim.run(3000);

    expect(primary!.wire.drops.malformed + primary!.wire.drops.unknownType + primary!.wire.drops.oversized + primary!.wire.drops.invalid).toBeGreaterThanOrEqual(4);
    expect(player.client.state(R)!.fingerprint()).toBe(fpPlayer);
    expect(player.client.stats.stale).toBeGreaterThanOrEqual(2);
    expect(backup.host.regionState(R)!.state.fingerprint()).toBe(fpBackup);
    expect(backup.host.regionState(R)!.promised).toBe(epoch);
    expect(sim.primariesOf(R)[0]).toBe(primary);
    expect(primary!.host.regionState(R)!.epoch).toBe(epoch);
    expect(backup.host.stats.outsiderClaims + backup.host.stats.refusals).toBeGreaterThan(0);
    // Still serving: a new edit is confirmed and reaches the subscriber.
    const more = await editMany(sim, player, 2, 6);
    expect(more[1]!.stamp.e).toBe(epoch);
    sim.stopAll();
  });

  it('checks reach from where the player was seen, not from where an edit claims it stands', async () => {
    const sim = new HostSim({ seed: 9, host: { motion: MOTION_RULES } });
    await sim.grow(6);
    const player = sim.pick();
    await sim.settle(player.client.subscribe(R));
    const x0 = R.rx * REGION_BLOCKS + 2, z0 = R.rz * REGION_BLOCKS + 2;
    expect(player.client.move({ x: x0 + 0.5, y: 100, z: z0 + 0.5, yaw: 0, pitch: 0 })).toBe(true);
    await sim.run(200);
    // 50 blocks away, claiming to stand right next to it: out of reach of where it was seen.
    const far = sim.settle(player.client.submit(x0 + 50, 101, z0, BRICK, { x: x0 + 50.5, y: 100, z: z0 + 1.5 }));
    await expect(far).rejects.toMatchObject({ reason: 'out-of-reach' });
    // Next to where it stands: fine.
    await sim.settle(player.client.submit(x0 + 2, 101, z0, BRICK, { x: x0 + 0.5, y: 100, z: z0 + 0.5 }));
    // Walking there (reports at walking pace) makes the far block reachable.
    for (let x = x0; x <= x0 + 50; x += 1) {
      player.client.move({ x: x + 0.5, y: 100, z: z0 + 1.5, yaw: 0, pitch: 0 });
      await sim.run(250);
    }
    await sim.settle(player.client.submit(x0 + 50, 101, z0, BRICK, { x: x0 + 50.5, y: 100, z: z0 + 1.5 }));
    expect(sim.primariesOf(R)[0]!.host.stats.movesClamped).toBeGreaterThanOrEqual(1);
    sim.stopAll();
  });

  it('an edit its dead primary ordered and the editor re-sends late does not undo a later edit of the block', async () => {
    const sim = new HostSim({ seed: 12 });
    await sim.grow(8);
    const [e, f] = sim.live().filter((p) => p !== sim.primariesOf(R)[0]);
    await sim.settle(Promise.all([e!.client.subscribe(R), f!.client.subscribe(R)]));
    const x = R.rx * REGION_BLOCKS + 5, z = R.rz * REGION_BLOCKS + 5, y = 120;
    // e's edit (request 4242), sent as a raw frame so that it can be re-sent at will.
    const edit = { t: 'EDIT' as const, ...R, r: 4242, x, y, z, id: BRICK, px: x + 0.5, py: y, pz: z + 2.5 };
    const old = sim.primariesOf(R)[0]!;
    sim.showPass(e!, old.dht.selfId);
    e!.wire.players.send(old.dht.selfId, edit);
    await sim.run(500);
    expect(old.host.regionState(R)!.state.get(keyOf({ x, y, z }))?.id).toBe(BRICK);
    sim.kill(old.hex);
    await sim.run(5000);
    // After the failover f puts glass there; then e's re-send of its old edit arrives.
    await sim.settle(f!.client.submit(x, y, z, GLASS, { x: x + 0.5, y, z: z + 2.5 }));
    const now = sim.primariesOf(R)[0]!;
    const dups = now.host.stats.duplicateEdits;
    sim.showPass(e!, now.dht.selfId);
    e!.wire.players.send(now.dht.selfId, edit);
    await sim.run(1000);
    expect(now.host.stats.duplicateEdits).toBe(dups + 1);
    expect(now.host.regionState(R)!.state.get(keyOf({ x, y, z }))?.id).toBe(GLASS);
    expect(f!.client.state(R)!.get(keyOf({ x, y, z }))?.id).toBe(GLASS);
    sim.stopAll();
  });

  it('a backup that restarts from its store follows the primary again (it does not depose it)', async () => {
    const sim = new HostSim({ seed: 14 });
    await sim.grow(8);
    const player = sim.pick();
    await sim.settle(player.client.subscribe(R));
    await editMany(sim, player, 3, 5);
    const [primary] = sim.primariesOf(R);
    const epoch = primary!.host.regionState(R)!.epoch;
    const backup = sim.live().find((p) => p.host.roles().backup.includes(`${R.rx},${R.rz}`) && p !== player)!;
    const id = backup.dht.selfId;
    sim.kill(backup.hex);
    await sim.run(500);
    const back = await sim.add(id); // the same node id, its host store kept: a reloaded tab
    // The death was silent: the primary's link to the old incarnation lingers until the
    // heartbeat timeout (15 s), and only then does the reloaded backup get its place back.
    await sim.run(20_000);
    const again = back.host.regionState(R)!;
    expect([again.role, again.primaryHex]).toEqual(['backup', primary!.hex]);
    expect(sim.primariesOf(R).map((p) => p.hex)).toEqual([primary!.hex]);
    // Still the primary; its epoch may have moved on, as every host-set change is an epoch
    // (the silent backup replaced, then back in its place).
    expect(primary!.host.regionState(R)!.epoch).toBeGreaterThanOrEqual(epoch);
    expect(primary!.host.stats.claimsWon - primary!.host.stats.reconfigs).toBeLessThanOrEqual(1);
    await editMany(sim, player, 2, 6);
    sim.stopAll();
  });
});

function keyOf(e: { x: number; y: number; z: number }): number {
  const col = (Math.floor(e.z / 16) - R.rz * 4) * 4 + (Math.floor(e.x / 16) - R.rx * 4);
  return col * 65536 + (e.y * 16 + (((e.z % 16) + 16) % 16)) * 16 + (((e.x % 16) + 16) % 16);
}
