// A crowd in one region (docs/HOSTING.md "Crowds"): past SHARE_ABOVE subscribers the region's
// backups serve a share of the fan-out (fan-out-plan.ts, positions-duty.ts, fan-out-share.ts):
// positions, deltas and beats. Every player still hears of every other and sees every edit,
// and a backup that dies silently costs its share of players their frames only until their
// silence shows (the primary serves them itself), then the primary moves to a new host set.
import { describe, expect, it } from 'vitest';
import { idToHex } from '../core/node-id';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { PENDING_ALONE_UP_TO, SHARE_ABOVE } from './fan-out-plan';
import { entryKey } from '../region/region-state';
import { columnIndex } from '../region/region-key';
import { STONE } from '../world/blocks';
import { chunkOf, localOf } from '../world/coords';

const R = { rx: 0, rz: 0 };
const N = SHARE_ABOVE + 12;

describe('a crowd in one region (simulated)', () => {
  it('the backups serve a share of the positions; everyone hears of everyone; a dead backup\'s share is taken over', async () => {
    const sim = new HostSim({ seed: 21 });
    await sim.grow(N + 6);
    const players = sim.live().slice(0, N);
    await sim.settle(Promise.all(players.map((p) => p.client.subscribe(R))));
    // Per player: who sent it POSITIONS, DELTA and HEARTBEAT, when it last heard a beat, and
    // when it last heard of each other player.
    const senders = new Map<string, Set<string>>();
    const streamSenders = new Map<string, Set<string>>();
    const beatAt = new Map<string, number>();
    // Beats sent in frames of their own, and riding in POSITIONS frames (player-outbox.ts).
    const alone = { beats: 0 }, riding = { beats: 0, deltas: 0 };
    const heard = new Map<string, Map<string, number>>();
    /** The same, for a new position (not a refresh of one it held). */
    const moved = new Map<string, Map<string, number>>();
    for (const p of players) {
      senders.set(p.hex, new Set());
      streamSenders.set(p.hex, new Set());
      heard.set(p.hex, new Map());
      moved.set(p.hex, new Map());
      p.wire.players.events.on('frame', ({ fromHex, msg }) => {
        if (msg.t === 'POSITIONS') senders.get(p.hex)!.add(fromHex);
        if (msg.t === 'DELTA' || msg.t === 'HEARTBEAT' || msg.t === 'PENDING') streamSenders.get(p.hex)!.add(`${msg.t} ${fromHex}`);
        if (msg.t === 'POSITIONS' && msg.d) streamSenders.get(p.hex)!.add(`DELTA ${fromHex}`);
        if (msg.t === 'POSITIONS' && msg.p) streamSenders.get(p.hex)!.add(`PENDING ${fromHex}`);
        if (msg.t === 'POSITIONS' && msg.s !== undefined) streamSenders.get(p.hex)!.add(`HEARTBEAT ${fromHex}`);
        if (msg.t === 'HEARTBEAT' || (msg.t === 'POSITIONS' && msg.s !== undefined)) beatAt.set(p.hex, sim.clock.now());
        if (msg.t === 'HEARTBEAT') alone.beats++;
        if (msg.t === 'POSITIONS' && msg.s !== undefined) riding.beats++;
        if (msg.t === 'POSITIONS' && msg.d) riding.deltas++;
      });
      const lastX = new Map<string, number>();
      p.client.events.on('players', ({ players: list }) => {
        for (const o of list) {
          const hex = idToHex(o.id);
          heard.get(p.hex)!.set(hex, sim.clock.now());
          if (lastX.get(hex) !== o.x) moved.get(p.hex)!.set(hex, sim.clock.now());
          lastX.set(hex, o.x);
        }
      });
    }
    const walk = (ms: number) => {
      const steps = ms / 100;
      return (async () => {
        for (let s = 0; s < steps; s++) {
          players.forEach((p, i) => p.client.move({ x: 10 + (i % 8) * 5 + (s % 10) * 0.2, y: 70, z: 10 + Math.floor(i / 8) * 5, yaw: 0, pitch: 0 }));
          await sim.run(100);
        }
      })();
    };
    // An edit by one player shows at every other attached player within `within` ms.
    let nextBlock = 0;
    const editSeenBy = async (editor: SimPeer, among: SimPeer[], within: number) => {
      const x = 12 + (nextBlock++ % 20), z = 12;
      const at = { x, y: 70, z: z + 3 };
      await sim.settle(editor.client.submit(x, 74, z, STONE, at));
      await sim.run(within);
      const key = entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), 74, localOf(z));
      return among.filter((p) => p !== editor && p.client.state(R)?.get(key)?.id !== STONE).length;
    };
    const everyoneHeard = (within: number, among = players) => {
      const now = sim.clock.now();
      let missing = 0;
      for (const p of among) for (const o of among) if (o !== p && now - (heard.get(p.hex)!.get(o.hex) ?? -Infinity) > within) missing++;
      return missing;
    };
    await walk(6000);
    const primary = sim.primaryOf('0,0')!;
    const backups = sim.live().filter((x) => x.host.roles().backup.includes('0,0'));
    expect(backups).toHaveLength(2);
    for (const s of [...senders.values(), ...streamSenders.values()]) s.clear();
    await walk(2000);
    expect(await editSeenBy(players[1]!, players, 500)).toBe(0);
    const servedBy = (h: SimPeer, what = 'POSITIONS') => players.filter((p) => p !== h && (what === 'POSITIONS' ? senders : streamSenders).get(p.hex)!.has(what === 'POSITIONS' ? h.hex : `${what} ${h.hex}`)).length;
    // Each host serves about a third (subscribers are spread by id) of the positions, deltas
    // and beats, and each backup sends its share an edit as soon as its REPLICATE comes
    // (PENDING, riding in POSITIONS at its next tick); nobody is left unserved. (The primary's
    // beat reaches everyone now and then.) The primary sends its PENDING to every subscriber
    // at once, alone: N is within PENDING_ALONE_UP_TO, and it is the edit's latency path.
    for (const what of ['POSITIONS', 'DELTA', 'HEARTBEAT', 'PENDING']) {
      for (const h of [primary, ...backups]) expect(servedBy(h, what), `${what} ${h.hex.slice(0, 6)}`).toBeGreaterThan(N / 8);
      if (what !== 'HEARTBEAT' && what !== 'PENDING') expect(servedBy(primary, what), what).toBeLessThan(N * 0.75);
    }
    expect(N).toBeLessThanOrEqual(PENDING_ALONE_UP_TO);
    expect(servedBy(primary, 'PENDING')).toBe(players.filter((p) => p !== primary).length);
    expect(players.filter((p) => senders.get(p.hex)!.size === 0)).toEqual([]);
    expect(everyoneHeard(1000)).toBe(0);
    // Walking players get a POSITIONS frame at least every other tick: most beats ride in one
    // instead of costing a frame of their own (one naming the host set, every 50th, goes
    // alone). (The edits here are made while nobody walks: their deltas go alone.)
    expect(riding.beats).toBeGreaterThan(alone.beats * 2);
    // An edit made while everyone walks rides to most players in their POSITIONS frames, and
    // shows at every one of them from those frames (no player finds a gap in its deltas and
    // asks again: a riding delta is applied as one that came alone).
    const gaps = () => players.reduce((n, p) => n + p.client.stats.gaps, 0);
    const gaps0 = gaps();
    const edited = { x: 31, z: 12 };
    const submitted = players[4]!.client.submit(edited.x, 74, edited.z, STONE, { x: edited.x, y: 70, z: edited.z + 3 });
    await walk(1000);
    await sim.settle(submitted);
    expect(riding.deltas).toBeGreaterThan(N / 2);
    const editedKey = entryKey(columnIndex(chunkOf(edited.x), chunkOf(edited.z)), localOf(edited.x), 74, localOf(edited.z));
    expect(players.filter((p) => p.client.state(R)?.get(editedKey)?.id !== STONE).map((p) => p.hex.slice(0, 6))).toEqual([]);
    expect(gaps()).toBe(gaps0);

    // A backup dies without a word: its share hears beats again within the client's silence
    // (1.2 s) and a round trip (the primary serves them itself), then from the new host set.
    const dead = backups.find((b) => !players.includes(b)) ?? backups[0]!;
    const orphans = players.filter((p) => p !== dead && streamSenders.get(p.hex)!.has(`HEARTBEAT ${dead.hex}`));
    expect(orphans.length).toBeGreaterThan(0);
    sim.kill(dead.hex);
    players.splice(players.indexOf(dead), players.includes(dead) ? 1 : 0);
    const killedAt = sim.clock.now();
    await walk(1200);
    // Its share hears of every other player again from another host (within SHARE_QUIET_MS and a few ticks) ...
    // (New positions, of the players the others heard move in the last 300 ms: one whose
    // MOVEs were routed through the dead node is heard moving by nobody until the routes heal.)
    const now = sim.clock.now();
    const recent = (p: SimPeer, o: SimPeer, ms = 600) => now - (moved.get(p.hex)!.get(o.hex) ?? -Infinity) <= ms;
    const moving = players.filter((o) => players.some((p) => p !== o && !orphans.includes(p) && recent(p, o, 300)));
    expect(moving.length).toBeGreaterThan(N / 2);
    expect(orphans.flatMap((p) => moving.filter((o) => o !== p && !recent(p, o))).length).toBe(0);
    // ... keeps hearing beats (the primary's reach everyone now and then), and sees edits.
    await walk(600);
    for (const p of orphans) expect(beatAt.get(p.hex)!, p.hex.slice(0, 6)).toBeGreaterThan(killedAt + 1000);
    expect(await editSeenBy(players[2]!, orphans, 500)).toBe(0);
    await walk(6000);
    // (Among the players attached again for a second at least: a few are still re-attaching
    // after the new epoch, which is the client's business, not the fan-out's; one sends no
    // MOVE until it is attached.)
    const attachedThen = players.filter((p) => p.client.attachment(R));
    await walk(1000);
    const attached = attachedThen.filter((p) => p.client.attachment(R));
    expect(attached.length).toBeGreaterThan(N * 0.75);
    const end = sim.clock.now();
    const movedLately = (p: SimPeer, o: SimPeer, ms: number) => end - (moved.get(p.hex)!.get(o.hex) ?? -Infinity) <= ms;
    // (Of those someone heard move in the last 300 ms: one whose MOVEs do not reach the
    // primary, routed through the dead node, is no matter of the fan-out.)
    const heardMoving = attached.filter((o) => attached.some((p) => p !== o && movedLately(p, o, 300)));
    expect(heardMoving.length).toBeGreaterThan(N * 0.7);
    expect(attached.flatMap((p) => heardMoving.filter((o) => o !== p && !movedLately(p, o, 1000))).length).toBe(0);
    expect(await editSeenBy(players[3]!, attached, 500)).toBe(0);
    sim.stopAll();
  }, 120_000);
});
