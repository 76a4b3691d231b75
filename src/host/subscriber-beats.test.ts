// A region's subscribers hear a beat every SUBSCRIBER_BEAT_EVERY beats while it says nothing
// new, and at once when it does (a commit): the beats were a third of the frames 8 players'
// tabs sent. Fewer beats must not cost a subscriber its attachment, nor news its latency.
import { describe, expect, it } from 'vitest';
import { idEquals } from '../core/node-id';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { STONE } from '../world/blocks';

const R = { rx: 0, rz: 0 };

describe('beats to subscribers (simulated)', () => {
  it('a quiet region beats to a subscriber every third beat; a commit is heard at once; nobody re-attaches', async () => {
    const sim = new HostSim({ seed: 3 });
    await sim.grow(6);
    const a = await sim.editedRegion(R);
    const primary = sim.primariesOf(R)[0]!;
    const beats = () => primary.wire.outByType().get('player HEARTBEAT')?.frames ?? 0;
    const subscribers = sim.live().filter((p) => p.client.attachment(R)).length;
    expect(subscribers).toBeGreaterThanOrEqual(1);
    await sim.run(1000);
    const before = beats();
    await sim.run(6000);
    const perSubscriberHz = (beats() - before) / 6 / subscribers;
    // One beat per 300 ms (a quiet region): ~3.3 a second, not 10.
    expect(perSubscriberHz).toBeGreaterThan(2.8);
    expect(perSubscriberHz).toBeLessThan(3.8);
    expect(a.client.stats.reattaches).toBe(0);
    // Another player's edit: a hears the commit without waiting for a thinned beat.
    const b = sim.live().find((p) => p !== a && p !== primary)!;
    await sim.settle(b.client.subscribe(R));
    const t0 = sim.clock.now();
    let seenAt = -1;
    a.client.events.on('edits', () => { if (seenAt < 0) seenAt = sim.clock.now(); });
    await sim.settle(b.client.submit(12, 71, 12, STONE, { x: 12, y: 70, z: 14 }));
    await sim.run(1000);
    expect(seenAt).toBeGreaterThanOrEqual(t0);
    expect(a.client.state(R)!.all().some((e) => e.id === STONE)).toBe(true);
    // Silence for 4 s: still attached, never re-attached for silence.
    await sim.run(4000);
    expect(a.client.attachment(R)).toBeDefined();
    expect(a.client.stats.reattaches).toBe(0);
    sim.stopAll();
  });
  it('a primary of several regions beats to a subscriber of them all on the same rounds: one instant (one frame) per beat, not one per region', async () => {
    // The tab's ticker runs every region's beat in one task (grouped-ticker.ts does so here).
    const sim = new HostSim({ seed: 5, ticker: 'grouped' });
    await sim.grow(5);
    const player = sim.pick();
    const regions = [-1, 0, 1].flatMap((rx) => [-1, 0, 1].map((rz) => ({ rx, rz })));
    await sim.settle(Promise.all(regions.map((r) => player.client.subscribe(r))));
    await sim.run(2000);
    const byPrimary = new Map<SimPeer, string[]>();
    for (const r of regions) {
      const p = sim.primaryOf(r);
      if (p && p !== player) byPrimary.set(p, [...(byPrimary.get(p) ?? []), `${r.rx},${r.rz}`]);
    }
    const [primary, mine] = [...byPrimary].sort((a, b) => b[1].length - a[1].length)[0]!;
    expect(mine.length).toBeGreaterThanOrEqual(2);
    const instants = new Set<number>();
    const perRegion = new Map<string, number>();
    const send = primary.wire.players.send.bind(primary.wire.players);
    primary.wire.players.send = (to, msg) => {
      if (msg.t === 'HEARTBEAT' && idEquals(to, player.dht.selfId)) {
        instants.add(sim.clock.now());
        perRegion.set(`${msg.rx},${msg.rz}`, (perRegion.get(`${msg.rx},${msg.rz}`) ?? 0) + 1);
      }
      return send(to, msg);
    };
    await sim.run(6000);
    // Each region still beats to it every third beat (~3.3 a second) ...
    for (const r of mine) expect(perRegion.get(r) ?? 0).toBeGreaterThan(2.8 * 6);
    // ... all of them at the same instants: ~3.3 a second, where each region's own count made up to 3.3 per region.
    expect(instants.size / 6).toBeLessThan(3.8);
    expect(player.client.stats.reattaches).toBe(0);
    sim.stopAll();
  });
});
