// A crowd in one region (issue 12 "Crowds"): past SHARE_ABOVE subscribers the region's
// backups serve a share of the POSITIONS fan-out (positions-duty.ts, positions-share.ts),
// every player still hears of every other, and a backup that dies silently costs its share
// of players their positions only until the primary moves to a new host set.
import { describe, expect, it } from 'vitest';
import { idToHex } from '../core/node-id';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { SHARE_ABOVE } from './positions-duty';

const R = { rx: 0, rz: 0 };
const N = SHARE_ABOVE + 12;

describe('a crowd in one region (simulated)', () => {
  it('the backups serve a share of the positions; everyone hears of everyone; a dead backup\'s share is taken over', async () => {
    const sim = new HostSim({ seed: 21 });
    await sim.grow(N + 6);
    const players = sim.live().slice(0, N);
    await sim.settle(Promise.all(players.map((p) => p.client.subscribe(R))));
    // Per player: who sent it POSITIONS, and when it last heard of each other player.
    const senders = new Map<string, Set<string>>();
    const heard = new Map<string, Map<string, number>>();
    for (const p of players) {
      senders.set(p.hex, new Set());
      heard.set(p.hex, new Map());
      p.wire.players.events.on('frame', ({ fromHex, msg }) => {
        if (msg.t === 'POSITIONS') senders.get(p.hex)!.add(fromHex);
      });
      p.client.events.on('players', ({ players: list }) => {
        for (const o of list) heard.get(p.hex)!.set(idToHex(o.id), sim.clock.now());
      });
    }
    const walk = (ms: number) => {
      const steps = ms / 100;
      return (async () => {
        for (let s = 0; s < steps; s++) {
          players.forEach((p, i) => p.client.move({ x: 10 + (i % 8) * 5 + (s % 10) * 0.2, y: 70, z: 10 + Math.floor(i / 8) * 5, yaw: 0, pitch: 0 }, `p${i}`));
          await sim.run(100);
        }
      })();
    };
    const everyoneHeard = (within: number, among = players) => {
      const now = sim.clock.now();
      let missing = 0;
      for (const p of among) for (const o of among) if (o !== p && now - (heard.get(p.hex)!.get(o.hex) ?? -Infinity) > within) missing++;
      return missing;
    };
    await walk(6000);
    const primary = sim.live().find((x) => x.host.roles().primary.includes('0,0'))!;
    const backups = sim.live().filter((x) => x.host.roles().backup.includes('0,0'));
    expect(backups).toHaveLength(2);
    for (const s of senders.values()) s.clear();
    await walk(2000);
    const servedBy = (h: SimPeer) => players.filter((p) => p !== h && senders.get(p.hex)!.has(h.hex)).length;
    // Each host serves about a third (subscribers are spread by id); nobody is left unserved.
    for (const h of [primary, ...backups]) expect(servedBy(h), h.hex.slice(0, 6)).toBeGreaterThan(N / 8);
    expect(servedBy(primary)).toBeLessThan(N * 0.75);
    expect(players.filter((p) => senders.get(p.hex)!.size === 0)).toEqual([]);
    expect(everyoneHeard(1000)).toBe(0);

    // A backup dies without a word: its share is served again (by the others once it is quiet, then by the new host set).
    const dead = backups.find((b) => !players.includes(b)) ?? backups[0]!;
    sim.kill(dead.hex);
    players.splice(players.indexOf(dead), players.includes(dead) ? 1 : 0);
    await walk(8000);
    // (Among the players attached again: a few are still re-attaching after the new epoch,
    // which is the client's business, not the fan-out's.)
    const attached = players.filter((p) => p.client.attachment(R));
    expect(attached.length).toBeGreaterThan(N * 0.75);
    expect(everyoneHeard(1000, attached)).toBe(0);
    sim.stopAll();
  }, 120_000);
});
