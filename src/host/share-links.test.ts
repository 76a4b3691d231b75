// A backup serving a crowd's share of the fan-out (fan-out-share.ts) keeps a direct link to
// each subscriber of its share, pinned as the host's, as the primary does to those it serves
// (subscriber-links.test.ts): its PENDINGs are the latency path of an edit to them, and
// routed they cost a hop more (most slow edit-to-visible samples left at 200
// peers were PENDINGs a backup sent routed, in regions of more than SHARE_ABOVE subscribers).
import { describe, expect, it } from 'vitest';
import type { RegionCoord } from '../region/region-key';
import { HostSim } from '../testing/host-sim';
import { SHARE_ABOVE } from './fan-out-plan';

const R: RegionCoord = { rx: 0, rz: 0 };
const N = SHARE_ABOVE + 12;

describe('links between a backup and the subscribers of its share (simulated)', () => {
  it('backups at a budget of 8 links keep a pinned link to each subscriber they serve, the subscribers theirs, and both let go once the backups serve them no more', async () => {
    const sim = new HostSim({ seed: 21, dht: { maxLinks: 8, softLinks: 6 } });
    await sim.grow(N + 6);
    const players = sim.live().slice(0, N);
    await sim.settle(Promise.all(players.map((p) => p.client.subscribe(R))));
    for (let s = 0; s < 40; s++) {
      players.forEach((p, i) => p.client.move({ x: 10 + (i % 8) * 5 + (s % 10) * 0.2, y: 70, z: 10 + Math.floor(i / 8) * 5, yaw: 0, pitch: 0 }));
      await sim.run(100);
    }
    const backups = sim.live().filter((x) => x.host.roles().backup.includes('0,0'));
    expect(backups).toHaveLength(2);
    let served = 0;
    for (const b of backups) {
      const share = [...b.host.regionState(R)!.share.servingHexes()];
      served += share.length;
      const unpinned = share.filter((hex) => hex !== b.hex && !b.dht.links.get(hex)?.pinned);
      expect(unpinned.map((h) => h.slice(0, 6)), `backup ${b.hex.slice(0, 6)}`).toEqual([]);
    }
    expect(served).toBeGreaterThan(N / 3);
    // The crowd thins below SHARE_ABOVE: the primary serves the ten left itself, and their
    // pins on the backups that served them go (SERVED_MS after those went quiet), though they stay subscribed.
    const stay = players.slice(0, 10);
    for (const p of players.slice(10)) p.client.unsubscribe(R);
    for (let s = 0; s < 40; s++) {
      stay.forEach((p, i) => p.client.move({ x: 10 + (i % 8) * 5 + (s % 10) * 0.2, y: 70, z: 10 + Math.floor(i / 8) * 5, yaw: 0, pitch: 0 }));
      await sim.run(100);
    }
    for (const b of backups) {
      expect([...b.host.regionState(R)!.share.servingHexes()]).toEqual([]);
      expect(stay.filter((p) => p !== b && p.dht.links.pins.has(b.hex)).map((p) => p.hex.slice(0, 6)), `backup ${b.hex.slice(0, 6)}`).toEqual([]);
    }
    // The crowd leaves: the backups serve nobody, and their sweep (every second) lets the links go.
    for (const p of players) p.client.unsubscribe(R);
    await sim.run(4000);
    for (const b of backups) {
      expect([...b.host.regionState(R)!.share.servingHexes()]).toEqual([]);
      expect(players.filter((p) => b.dht.links.pins.has(p.hex)).length, `backup ${b.hex.slice(0, 6)}`).toBe(0);
    }
    sim.stopAll();
  });
});
