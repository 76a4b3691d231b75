import { describe, expect, it } from 'vitest';
import { hexToId } from '../core/node-id';
import type { ItemWireOf } from './item-wire';
import { decodeLedger } from './item-wire';
import { ItemHostSim } from '../testing/item-host-sim';
import { MemoryHostStore } from '../store/host-store-memory';

const REGION = { rx: 0, rz: 0 };
const NAME = '0,0';

/** A sim of 8 peers, two players subscribed to region 0,0 standing in it, and the first item spawned there. */
async function world(seed: number) {
  const sim = new ItemHostSim({ seed, spawnMeanMs: 1500 });
  await sim.grow(8);
  return { sim, ...(await sim.twoPlayersAndAnItem()), primary: () => sim.primaryItemPeer(NAME) };
}

/** Every host of the region holds the item with this owner, and so does every player. */
function owners(sim: ItemHostSim, id: string): (string | null | undefined)[] {
  const hosts = sim.hostLedgers(NAME).map((h) => h.items!.ledger.item(id)?.owner);
  const players = [...sim.items.values()].map((p) => p.player.items().find((i) => i.id === id)).filter(Boolean).map((i) => i!.owner);
  return [...hosts, ...players];
}

describe('items carried by the region hosts (simulated)', () => {
  it('two players contest one item among three hosts: exactly one owner, everywhere; a failover keeps it', async () => {
    for (const seed of [1, 2, 3]) {
      const { sim, a, b, item, primary } = await world(seed);
      expect(sim.hostLedgers(NAME).length).toBe(3);
      // Both walk onto it and claim in the same instant.
      sim.stand(a.peer.hex, item);
      sim.stand(b.peer.hex, { ...item, x: item.x + 0.5 });
      await sim.run(300);
      const [wa, wb] = await sim.settle(Promise.all([a.player.claim(item.id, item), b.player.claim(item.id, { ...item, x: item.x + 0.5 })]));
      expect([wa, wb].filter(Boolean)).toHaveLength(1);
      const winner = wa ? a.peer.hex : b.peer.hex;
      await sim.run(1000);
      const seen = owners(sim, item.id);
      expect(new Set(seen)).toEqual(new Set([winner]));
      expect((wa ? a : b).player.inventory().map((i) => i.id)).toContain(item.id);
      expect((wa ? b : a).player.inventory().map((i) => i.id)).not.toContain(item.id);

      // The primary crashes (silently): the next one holds the same owner, and the players too.
      const old = primary()!;
      const survivors = [a, b].filter((p) => p !== old);
      sim.kill(old.peer.hex);
      await sim.run(10_000);
      const next = primary();
      expect(next).toBeDefined();
      expect(next!.peer.hex).not.toBe(old.peer.hex);
      expect(next!.host.region(NAME)!.ledger.item(item.id)?.owner).toBe(winner);
      for (const p of survivors) expect(p.player.items().find((i) => i.id === item.id)?.owner).toBe(winner);
      // And the votes go on in the new epoch: another item is taken there.
      const p = survivors[0]!;
      const other = p.player.onGround().find((i) => i.id !== item.id);
      expect(other).toBeDefined();
      sim.stand(p.peer.hex, other!);
      await sim.run(300);
      expect(await sim.settle(p.player.claim(other!.id, other!))).toBe(true);
      await sim.run(1000);
      expect(new Set(owners(sim, other!.id))).toEqual(new Set([p.peer.hex]));
      sim.stopAll();
    }
  });

  it('hosts that join without the ledger (new, or restarted with their store lost) vote only once caught up: no item id is decided twice', async () => {
    for (const seed of [6, 7, 8]) {
      const { sim, a, b, item, primary } = await world(seed);
      sim.stand(a.peer.hex, item);
      await sim.run(300);
      expect(await sim.settle(a.player.claim(item.id, item))).toBe(true);
      // The primary crashes and a backup loses its store at the same time: once it is back (it
      // grants again, having forgotten its promises), the set is the last old backup, a node
      // that never held the ledger and the wiped one: a majority without a ledger of its own.
      const old = primary()!;
      const backup = sim.hostLedgers(NAME).map((h) => h.hex).find((h) => h !== old.peer.hex && h !== a.peer.hex && h !== b.peer.hex)
        ?? sim.hostLedgers(NAME).map((h) => h.hex).find((h) => h !== old.peer.hex)!;
      sim.kill(old.peer.hex);
      sim.kill(backup);
      sim.stores.set(backup, new MemoryHostStore());
      await sim.run(20_000);
      await sim.add(hexToId(backup));
      for (let i = 0; i < 80; i++) {
        for (const p of [a, b]) if (sim.items.has(p.peer.hex)) sim.stand(p.peer.hex, { x: 40.5, y: 70, z: 40.5 });
        await sim.run(250);
      }
      // Every record of one id, at every host and player, is the same item.
      const seen = new Map<string, string>();
      const all = [...sim.hostLedgers(NAME).flatMap((h) => h.items!.ledger.items), ...[...sim.items.values()].flatMap((p) => p.player.items())];
      for (const i of all) {
        const k = `${i.kind} ${i.x} ${i.z} ${i.at}`;
        expect(seen.get(i.id) ?? k, i.id).toBe(k);
        seen.set(i.id, k);
      }
      // Every host and player holds the record and names the one owner: the hosts of the new
      // set that held it vouched for it (a majority), so the ones that joined without it,
      // the primary among them, could check its proof (endorse-records.ts).
      expect(new Set(owners(sim, item.id))).toEqual(new Set([a.peer.hex]));
      sim.stopAll();
    }
  });

  it('a drop puts the item back for others; the ledger survives every host restarting', async () => {
    const { sim, a, b, item, primary } = await world(4);
    sim.stand(a.peer.hex, item);
    await sim.run(300);
    expect(await sim.settle(a.player.claim(item.id, item))).toBe(true);
    const spot = { x: item.x + 3, y: 70, z: item.z };
    expect(await sim.settle(a.player.drop(item.id, spot))).toBe(true);
    await sim.run(500);
    expect(owners(sim, item.id).every((o) => o === null)).toBe(true);
    sim.stand(b.peer.hex, spot);
    await sim.run(300);
    expect(await sim.settle(b.player.claim(item.id, spot))).toBe(true);
    await sim.run(1000);
    expect(new Set(owners(sim, item.id))).toEqual(new Set([b.peer.hex]));
    // Every host of the region restarts (same ids, same stores): the stored record brings the ledger back.
    const hosts = sim.hostLedgers(NAME).map((h) => h.hex);
    expect(primary()).toBeDefined();
    for (const h of hosts) {
      const stored = (await sim.stores.get(h)!.loadAll()).find((r) => r.rx === 0 && r.rz === 0);
      expect(decodeLedger(stored!.items!)!.items.find((i) => i.id === item.id)?.owner).toBe(b.peer.hex);
      sim.kill(h);
    }
    await sim.run(20_000);
    for (const h of hosts) {
      await sim.add(hexToId(h));
      await sim.run(500);
    }
    const c = [...sim.items.values()].find((p) => !hosts.includes(p.peer.hex))!;
    await sim.settle(c.peer.client.subscribe(REGION));
    await sim.run(3000);
    expect(primary()!.host.region(NAME)!.ledger.item(item.id)?.owner).toBe(b.peer.hex);
    expect(c.player.items().find((i) => i.id === item.id)?.owner).toBe(b.peer.hex);
    sim.stopAll();
  });

  it('a drop takes effect only once a majority of the hosts hold it, and then survives the primary crashing', async () => {
    const { sim, a, item, primary } = await world(6);
    sim.stand(a.peer.hex, item);
    await sim.run(300);
    expect(await sim.settle(a.player.claim(item.id, item))).toBe(true);
    await sim.run(500);
    // The primary's drop requests to its backups are lost: the drop never takes effect, and is given up.
    const p = primary()!;
    const send = p.wire.send.bind(p.wire);
    let cut = true;
    p.wire.send = (to, m) => (cut && m.t === 'ITEM_DROPPING' ? true : send(to, m));
    const spot = { x: item.x + 3, y: 70, z: item.z };
    const first = a.player.drop(item.id, spot);
    await sim.run(1000);
    const region = p.host.region(NAME)!;
    expect(region.drops.waiting).toBe(1);
    expect(new Set(owners(sim, item.id))).toEqual(new Set([a.peer.hex]));
    expect(await sim.settle(first)).toBe(false);
    await sim.run(1000);
    expect(region.drops.stats.unreplicated).toBe(1);
    expect(new Set(owners(sim, item.id))).toEqual(new Set([a.peer.hex]));
    // Delivered: a backup holds it, then it takes effect.
    cut = false;
    expect(await sim.settle(a.player.drop(item.id, spot))).toBe(true);
    expect(region.drops.stats.replicated).toBe(1);
    await sim.run(50);
    const held = sim.hostLedgers(NAME).filter((h) => h.items!.ledger.item(item.id)?.owner === null);
    expect(held.length).toBeGreaterThanOrEqual(2); // the primary and at least one backup
    // The primary crashes right away (silently): the next primary has the drop.
    sim.kill(p.peer.hex);
    await sim.run(10_000);
    const next = primary();
    expect(next && next !== p).toBe(true);
    expect(next!.host.region(NAME)!.ledger.item(item.id)).toMatchObject({ owner: null, gen: 1 });
    sim.stopAll();
  });

  it("held items from the player's own record show until a region ledger knows them, which then decides", async () => {
    const { sim, a, b, item } = await world(7);
    sim.stand(b.peer.hex, item);
    await sim.run(300);
    expect(await sim.settle(b.player.claim(item.id, item))).toBe(true);
    // a's record (say, from before a reload) names b's item and one far away that no ledger here knows.
    a.player.remember([{ id: item.id, kind: item.kind }, { id: '9,9/3', kind: 'gem' }]);
    expect(a.player.recordedHeld()).toEqual([{ id: '9,9/3', kind: 'gem' }]); // the region's ledger says b holds the first
    expect(a.player.inventory().map((i) => i.id)).not.toContain(item.id);
    sim.stopAll();
  });

  it('hostile input changes nothing and is counted: a non-voter, a far claim, an impersonated claim, a replayed DECIDED', async () => {
    const { sim, a, b, item, primary } = await world(5);
    const p = primary()!;
    const hosts = sim.hostLedgers(NAME).map((h) => h.hex);
    const outsider = [...sim.items.values()].find((x) => !hosts.includes(x.peer.hex))!;
    const host = (hex: string) => sim.items.get(hex)!.host;
    const total = (k: 'nonVoter' | 'replayedDecision' | 'forgedDecision' | 'oldRound') => hosts.reduce((n, h) => n + host(h).voteStats[k], 0);
    const send = (m: Parameters<typeof outsider.wire.send>[1]) => hosts.forEach((h) => outsider.wire.send(hexToId(h), m));

    // A REPORT from a node outside the host set.
    const nonVoter = total('nonVoter');
    send({ t: 'ITEM_REPORT', ...REGION, vote: `take:${item.id}:0`, set: p.peer.client.hostSet(REGION)?.epoch ?? 1, round: 1, c: { t: 'c', who: outsider.peer.hex, x: item.x, y: item.y, z: item.z } });
    await sim.run(300);
    expect(total('nonVoter')).toBeGreaterThan(nonVoter);

    // A claim from far away, and a claim naming another player.
    const far = hosts.reduce((n, h) => n + (host(h).ledgerStats()['too-far'] ?? 0), 0);
    send({ t: 'ITEM_CLAIM', ...REGION, vote: `take:${item.id}:0`, c: { t: 'c', who: outsider.peer.hex, x: item.x + 30, y: item.y, z: item.z } });
    send({ t: 'ITEM_CLAIM', ...REGION, vote: `take:${item.id}:0`, c: { t: 'c', who: a.peer.hex, x: item.x, y: item.y, z: item.z } });
    await sim.run(1000);
    expect(hosts.reduce((n, h) => n + (host(h).ledgerStats()['too-far'] ?? 0), 0)).toBeGreaterThan(far);
    expect(hosts.reduce((n, h) => n + host(h).stats.impersonation, 0)).toBe(hosts.length);
    expect(owners(sim, item.id).every((o) => o === null)).toBe(true);

    // A claim with a position near the item while the hosts saw the claimant far away.
    sim.stand(outsider.peer.hex, { x: 50.5, y: 70, z: 50.5 });
    await sim.settle(outsider.peer.client.subscribe(REGION));
    sim.stand(outsider.peer.hex, { x: 50.5, y: 70, z: 50.5 });
    await sim.run(1500);
    const mismatch = () => hosts.reduce((n, h) => n + (host(h).ledgerStats()['position-mismatch'] ?? 0), 0);
    send({ t: 'ITEM_CLAIM', ...REGION, vote: `take:${item.id}:0`, c: { t: 'c', who: outsider.peer.hex, x: item.x, y: item.y, z: item.z } });
    await sim.run(1000);
    expect(mismatch()).toBe(hosts.length); // the backups too: the primary tells them where players stand
    expect(owners(sim, item.id).every((o) => o === null)).toBe(true);

    // b takes it; the DECIDED it heard is replayed after a dropped it again.
    const decided: ItemWireOf<'ITEM_DECIDED'>[] = [];
    b.wire.events.on('frame', ({ msg }) => { if (msg.t === 'ITEM_DECIDED') decided.push(msg); });
    sim.stand(b.peer.hex, item);
    await sim.run(300);
    expect(await sim.settle(b.player.claim(item.id, item))).toBe(true);
    expect(await sim.settle(b.player.drop(item.id, { x: item.x + 2, y: 70, z: item.z }))).toBe(true);
    await sim.run(500);
    const replays = total('replayedDecision') + total('oldRound');
    const d = decided.find((m) => m.vote === `take:${item.id}:0`)!;
    expect(d?.sigs?.length).toBeGreaterThanOrEqual(2); // signed by a majority of the three hosts
    // Replayed by a stranger, and by a voter (a hostile host): to every host and to b.
    send(d);
    const voter = sim.items.get(hosts.find((h) => h !== b.peer.hex && h !== a.peer.hex)!)!;
    for (const to of [...hosts, b.peer.hex]) voter.wire.send(hexToId(to), d);
    const bOld = () => b.player.counters()['vote.oldRound'] ?? 0;
    const before = bOld();
    await sim.run(500);
    expect(total('replayedDecision') + total('oldRound')).toBeGreaterThan(replays);
    expect(bOld()).toBeGreaterThan(before);
    expect(owners(sim, item.id).every((o) => o === null)).toBe(true);
    sim.stopAll();
  });
});
