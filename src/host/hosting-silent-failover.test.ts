// A primary that dies without closing its links (a browser process killed: its WebRTC
// channels stay "open" at the other end for many seconds), with the tab's DHT timeout
// (a lookup waits on the dead contact for `lookupGiveUpMs`, under `rpcTimeoutMs`): the backups must still take
// over well within the client's edit timeout, so an edit submitted right after the death
// is confirmed on its first attempt and reaches every subscriber.
import { describe, expect, it } from 'vitest';
import { BRICK, PLANKS } from '../world/blocks';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { EDIT_TIMEOUT_MS } from '../play/submitted-edits';
import { columnIndex, REGION_BLOCKS, type RegionCoord } from '../region/region-key';
import { entryKey } from '../region/region-state';
import { chunkOf, localOf } from '../world/coords';
import { idToHex } from '../core/node-id';

const R: RegionCoord = { rx: 0, rz: 0 };

function primaryOf(sim: HostSim): SimPeer | undefined {
  return sim.primaryOf(`${R.rx},${R.rz}`);
}

/** Six hosts, each subscribed to R, and (`edit`) one edit of R confirmed: its primary. */
async function subscribedWithAnEdit(sim: HostSim, edit = true): Promise<SimPeer> {
  await sim.grow(6);
  for (const p of sim.live()) await sim.settle(p.client.subscribe(R));
  const primary = primaryOf(sim)!;
  const editor = sim.live().find((p) => p !== primary)!;
  if (edit) await sim.settle(editor.client.submit(3, 120, 5, PLANKS, { x: 3, y: 120, z: 8 }));
  await sim.run(1000);
  return primary;
}

describe('failover after a silent death (simulated)', () => {
  it.each([1, 2, 3])('confirms the first edit after the primary vanished, seed %i', async (seed) => {
    // The tab's DHT timeout: a lookup past the dead primary stalls for 4 s.
    const sim = new HostSim({ seed, dht: { rpcTimeoutMs: 4000 } });
    await sim.grow(4);
    for (const p of sim.live()) await sim.settle(p.client.subscribe(R));
    const primary = primaryOf(sim)!;
    const others = sim.live().filter((p) => p !== primary);
    const editor = others[0]!;
    const at = (i: number) => ({ x: R.rx * REGION_BLOCKS + 3 + i, y: 120, z: R.rz * REGION_BLOCKS + 5 });
    for (let i = 0; i < 5; i++) {
      const { x, y, z } = at(i);
      await sim.settle(editor.client.submit(x, y, z, PLANKS, { x, y, z: z + 3 }));
    }
    await sim.run(1000);
    sim.kill(primary.hex);
    const { x, y, z } = at(5);
    const t0 = sim.clock.now();
    // One attempt: it must not time out (EditTimeoutError after EDIT_TIMEOUT_MS).
    const stamp = await sim.settle(editor.client.submit(x, y, z, BRICK, { x, y, z: z + 3 }));
    const took = sim.clock.now() - t0;
    expect(took).toBeLessThan(EDIT_TIMEOUT_MS - 1500);
    await sim.run(3000);
    const now = primaryOf(sim)!;
    expect(now.host.regionState(R)!.epoch).toBe(stamp.e);
    for (const p of sim.live()) {
      for (let i = 0; i < 6; i++) {
        const b = at(i);
        expect(p.client.state(R)!.get(entryKey(columnIndex(chunkOf(b.x), chunkOf(b.z)), localOf(b.x), b.y, localOf(b.z)))?.id).toBe(i < 5 ? PLANKS : BRICK);
      }
    }
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});

describe('the claim after a silent death (simulated, 20 ms links)', () => {
  const L = 20;
  // Of a region with no edit too: its new primary, a backup that held the old one's state,
  // knows it empty and does not wait for the DHT's edit log (which the lookup reads past the
  // dead primary, the node nearest the key: it waited up to EDITS_FALLBACK_MS).
  it.each([[1, 'an edit'], [2, 'an edit'], [3, 'an edit'], [1, 'no edit'], [2, 'no edit'], [3, 'no edit']])('goes out as the silence runs out: its hosts were pinged ahead of it, seed %i, %s', async (seed, edits) => {
    const sim = new HostSim({ seed, net: { latencyMs: L, latencySpread: 0, jitterMs: 0 } });
    const primary = await subscribedWithAnEdit(sim, edits === 'an edit');
    sim.kill(primary.hex);
    // The silence taken for death, then CLAIM and GRANT: one round trip. Pinging the hosts
    // named only once the silence ran out took one more.
    expect(await claimToPrimary(sim, primary)).toBeLessThan(3 * L);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});

describe('the claim after a silent death, a host of the set dead before it (simulated, 20 ms links)', () => {
  const L = 20;
  it.each([1, 2, 3])('waits on that host no longer than the ping ahead did, seed %i', async (seed) => {
    // Five hosts, so that two deaths leave a majority of the set.
    const sim = new HostSim({ seed, net: { latencyMs: L, latencySpread: 0, jitterMs: 0 }, host: { replicas: 5 } });
    const primary = await subscribedWithAnEdit(sim);
    const hosts = primary.host.regionState(R)!.hosts;
    expect(hosts).toHaveLength(5);
    // The backup farthest from the key dies, then the primary before it noticed: the set the
    // next claim starts from still names the dead backup, and its ping ahead found it silent.
    sim.kill(idToHex(hosts[4]!));
    await sim.run(100);
    sim.kill(primary.hex);
    // Asking it again at the claim waited CLAIM_PING_MS (200 ms) more.
    expect(await claimToPrimary(sim, primary)).toBeLessThan(3 * L);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});

describe('the claim after a silent death, its backups starved (simulated)', () => {
  // The backups' tabs run tasks of 250-290 ms back to back (a loaded machine: every timer and
  // frame waits for the task under way; under failoverMs / 2, so their silence checks count).
  // The claimant's ping ahead was still out when its claim came, and the claim pinged its
  // hosts again and waited for that answer, a task or two more, for the same verdict (none
  // answered: the claim goes over them all); seeds 1, 3, 5 took 1,405, 1,064 and 1,089 ms
  // from the claim to the new primary so, 828, 550 and 786 waiting for the ping ahead.
  it.each([1, 3, 5])('waits for no second ping when the first one answers for all its hosts, seed %i', async (seed) => {
    const sim = new HostSim({ seed, dht: { rpcTimeoutMs: 4000 } });
    const primary = await subscribedWithAnEdit(sim);
    for (const h of primary.host.regionState(R)!.hosts.map(idToHex)) if (h !== primary.hex) sim.starve(h, 10_000, 250, 290);
    sim.kill(primary.hex);
    expect(await claimToPrimary(sim, primary)).toBeLessThan(950);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});

/** From the first claim after `primary` was killed to its successor: ms. */
async function claimToPrimary(sim: HostSim, primary: SimPeer): Promise<number> {
  const claims = () => sim.live().reduce((n, p) => n + p.host.stats.silenceClaims, 0);
  const before = claims();
  let claimAt = 0, primaryAt = 0;
  for (let t = 0; t < 3000 && !primaryAt; t++) {
    await sim.run(1);
    if (!claimAt && claims() > before) claimAt = sim.clock.now();
    const now = primaryOf(sim);
    if (now && now !== primary) primaryAt = sim.clock.now();
  }
  expect(claimAt).toBeGreaterThan(0);
  return primaryAt - claimAt;
}

describe('the first edit after a silent death, the hosts starved (simulated, 20 ms links)', () => {
  // The hosts' tabs run tasks of 100-140 ms back to back: the claim takes longer than leaseMs,
  // so the new primary's lease from its granters (counted from the CLAIM) has run out when
  // it starts. It held none again until a backup acked a beat sent after it followed the new
  // primary, and a starved backup's answer came later than leaseMs after the beat: the edit
  // waited 466-778 ms after the new primary on seeds 1, 4-6 (its lease waits counted). A
  // backup's ack of the new primary's SYNC now counts from that SYNC (primary-lease.ts
  // `sentBefore`), and the edits that waited are ordered with that ack: 252-287 ms.
  it.each([1, 4])('is confirmed within a few of their tasks after the new primary starts, seed %i', async (seed) => {
    const took = await firstEditAfterKill(seed, (sim, hosts) => {
      for (const h of hosts) sim.starve(h, 10_000, 100, 140);
    });
    expect(took).toBeLessThan(400);
  });

  // Tasks of 150-200 ms: a starved backup's ack comes back later than leaseMs after nearly
  // every beat it answers, and on the old code the new primary held no lease for seconds:
  // the first edit after the kill was never confirmed (EditTimeoutError after 5 s, seeds 1-3
  // and at 200-300 ms: the player keeps it tentative, failover_crash's edit errors). Now
  // 382-407 ms after the new primary.
  it.each([1, 3])('is confirmed, not timed out, when their acks come later than leaseMs, seed %i', async (seed) => {
    const took = await firstEditAfterKill(seed, (sim, hosts) => {
      for (const h of hosts) sim.starve(h, 10_000, 150, 200);
    });
    expect(took).toBeLessThan(600);
  });

  // Tasks of 200-300 ms: the backups' acks come back 250-300 ms after the beat they answer,
  // and with leaseMs 250 (50 ms under the backups' failoverMs / 2 refusal) most of them held
  // no lease: 1,867 and 1,017 ms on seeds 2 and 5. leaseMs 290: 582 and 496.
  it.each([2, 5])('is confirmed without waiting seconds for the lease when acks take 250-300 ms, seed %i', async (seed) => {
    const took = await firstEditAfterKill(seed, (sim, hosts) => {
      for (const h of hosts) sim.starve(h, 10_000, 200, 300);
    });
    expect(took).toBeLessThan(800);
  });
});

describe('the first edit after a silent death, the hosts\' stores slow (simulated, 20 ms links)', () => {
  // Each store write takes 300 ms, one after another (a busy tab's IndexedDB: 300-700 ms in
  // failover_crash under load). A primary confirms a batch once its own store holds it; the
  // new primary's write of its certificate, begun as it won, went first and the first batch's
  // write waited behind it: two writes before the first confirmation (620 ms on seeds 1 and
  // 2), one now (360; the certificate rides in the batch's write, region-claimant.ts
  // CERT_WRITE_AFTER_MS).
  it.each([1, 2])('is confirmed one store write after it reaches the new primary, seed %i', async (seed) => {
    const W = 300;
    const took = await firstEditAfterKill(seed, (sim) => {
      for (const p of sim.live()) p.store.slowWrites = { clock: sim.clock, ms: W };
    });
    // The notice, the edit's way to the new primary and its ack: a few links' time, and one write.
    expect(took).toBeLessThan(W + 150);
  });
});

describe("the first edit after a silent death, the backups' signature checks slow (simulated, 20 ms links)", () => {
  // A tab checks signatures with WebCrypto, off its main thread: a busy tab's answers come
  // late. Here the backups' come 100 ms late, the new primary's at once: its SYNC reached
  // them, and while they still checked its certificate its first batch came (the editor's
  // edit, sent behind its SUBSCRIBE at the takeover notice). Following nobody yet, they
  // dropped it and asked for a SYNC under their old epoch, which the new primary does not
  // answer; with no later batch whose gap asks again, it was acked when the primary's
  // RESYNC_MS sent the state again: 1,160 ms on seeds 1 and 2. Now a frame of the primary
  // whose SYNC is being checked waits for the check (region-backup.ts heldBehindSync): 160.
  it.each([1, 2])('is confirmed once they checked its certificate, not a re-sync later, seed %i', async (seed) => {
    const V = 100;
    const took = await firstEditAfterKill(seed, (sim) => {
      for (const p of sim.live()) sim.slowVerify(p.hex, V);
    }, (sim, primary) => sim.slowVerify(primary.hex, 0));
    expect(took).toBeLessThan(400);
  });
});

/**
 * Six hosts on 20 ms links, an editor outside R's host set: `slow` is applied (given the
 * primary's backups), the primary killed, and an edit submitted at once. Ms from the new
 * primary to that edit's confirmation.
 */
async function firstEditAfterKill(seed: number, slow: (sim: HostSim, backups: string[]) => void, atPrimary?: (sim: HostSim, p: SimPeer) => void): Promise<number> {
  const sim = new HostSim({ seed, dht: { rpcTimeoutMs: 4000 }, net: { latencyMs: 20, latencySpread: 0, jitterMs: 0 } });
  await sim.grow(6);
  for (const p of sim.live()) await sim.settle(p.client.subscribe(R));
  const primary = primaryOf(sim)!;
  const hosts = primary.host.regionState(R)!.hosts.map(idToHex);
  const editor = sim.live().find((p) => !hosts.includes(p.hex))!;
  const x = R.rx * REGION_BLOCKS + 3, z = R.rz * REGION_BLOCKS + 5;
  await sim.settle(editor.client.submit(x, 120, z, PLANKS, { x, y: 120, z: z + 3 }));
  await sim.run(1000);
  slow(sim, hosts.filter((h) => h !== primary.hex));
  sim.kill(primary.hex);
  let confirmedAt = 0, primaryAt = 0;
  void editor.client.submit(x + 1, 120, z, BRICK, { x: x + 1, y: 120, z: z + 3 }).then(() => (confirmedAt = sim.clock.now()));
  for (let t = 0; t < 4000 && !confirmedAt; t++) {
    await sim.run(1);
    const now = primaryOf(sim);
    if (!primaryAt && now && now !== primary) {
      primaryAt = sim.clock.now();
      atPrimary?.(sim, now);
    }
  }
  expect(primaryAt).toBeGreaterThan(0);
  expect(confirmedAt).toBeGreaterThan(0);
  expect(sim.doublePrimaries()).toEqual([]);
  sim.stopAll();
  return confirmedAt - primaryAt;
}
