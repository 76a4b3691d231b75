// An edit whose batch reached a backup, then its primary died silently before confirming it.
// The player re-sends it, under the same request id, to the backup that takes over: that
// host's state holds the edit already (the REPLICATE put it there) and its request log knows
// the request (the REPLICATE carried it). The edit must keep the one stamp it was ordered
// with: ordered again under a stamp of the new epoch, it showed twice at every subscriber,
// and the same re-send arriving after a newer edit of the block would have overwritten it.
// Every confirmed edit must be seen, with its confirmed stamp, by every subscriber.
import { describe, expect, it } from 'vitest';
import { idToHex } from '../core/node-id';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { columnIndex, REGION_BLOCKS, type RegionCoord } from '../region/region-key';
import { decodeEntries, entryKey, type Stamp } from '../region/region-state';
import { GLASS, PLANKS } from '../world/blocks';
import { chunkOf, localOf } from '../world/coords';

const R: RegionCoord = { rx: 0, rz: 0 };
const stand = { x: R.rx * REGION_BLOCKS + 32, y: 120, z: R.rz * REGION_BLOCKS + 32 };
const spot = (i: number) => ({ x: stand.x - 2 + i, y: 119, z: stand.z + 2 });
const keyOf = (b: { x: number; y: number; z: number }) => entryKey(columnIndex(chunkOf(b.x), chunkOf(b.z)), localOf(b.x), b.y, localOf(b.z));

/** Every stamp under which each subscriber was shown (key, id), by peer: SNAPSHOT, DELTA, PENDING, and those riding in POSITIONS. */
function watchStamps(sim: HostSim): Map<string, Map<string, Set<string>>> {
  const seen = new Map<string, Map<string, Set<string>>>();
  for (const p of sim.live()) {
    const mine = new Map<string, Set<string>>();
    seen.set(p.hex, mine);
    const note = (bytes: Uint8Array) => {
      for (const x of decodeEntries(bytes)) {
        const k = `${x.key}:${x.id}`;
        if (!mine.has(k)) mine.set(k, new Set());
        mine.get(k)!.add(`e${x.e}s${x.s}`);
      }
    };
    p.wire.players.events.on('frame', ({ msg }) => {
      if (msg.t === 'SNAPSHOT' || msg.t === 'DELTA' || msg.t === 'PENDING') note(msg.entries);
      else if (msg.t === 'POSITIONS') for (const r of [msg.d, msg.p]) if (r) note(r[2]);
    });
  }
  return seen;
}

/**
 * The player edits two blocks; the primary dies silently the moment a backup holds the
 * second edit's batch (before any ack reaches it); the player keeps building after the
 * failover. What the player was told and what each subscriber saw.
 */
async function run(seed: number) {
  const sim = new HostSim({ seed, host: { failoverMs: 1000 } });
  await sim.grow(5);
  for (const p of sim.live()) await sim.settle(p.client.subscribe(R));
  const primary = sim.primaryOf(R)!;
  const editor = sim.live().find((p) => p !== primary && !primary.host.regionState(R)!.hosts.some((h) => p.hex === idToHex(h)))!;
  const seen = watchStamps(sim);
  const told: (Stamp | Error | undefined)[] = [];
  const submit = (i: number, id: number) => {
    const b = spot(i);
    editor.client.submit(b.x, b.y, b.z, id, stand).then((s) => (told[i] = s), (e: Error) => (told[i] = e));
  };
  submit(0, GLASS);
  await sim.run(500);
  const backups = sim.backupsOf(R);
  const held = (p: SimPeer, i: number) => p.host.regionState(R)?.state.get(keyOf(spot(i)));
  submit(1, PLANKS);
  for (let t = 0; t < 200 && !backups.some((b) => held(b, 1)); t++) await sim.run(1);
  expect(backups.some((b) => held(b, 1)), 'a backup holds the batch').toBe(true);
  sim.kill(primary.hex);
  await sim.run(8000);
  submit(2, GLASS);
  await sim.run(3000);
  return { sim, seen, told };
}

describe('an edit re-sent across a failover (simulated)', () => {
  it.each([1, 2, 3, 4])('is ordered once and seen by every subscriber with the stamp its player was told, seed %i', async (seed) => {
    const { sim, seen, told } = await run(seed);
    const ids = [GLASS, PLANKS, GLASS];
    expect(told.map((t) => (t instanceof Error ? t.message : t ? 'ok' : 'none'))).toEqual(['ok', 'ok', 'ok']);
    for (const p of sim.live()) {
      for (let i = 0; i < ids.length; i++) {
        const k = `${keyOf(spot(i))}:${ids[i]}`;
        const stamps = [...(seen.get(p.hex)!.get(k) ?? [])];
        const t = told[i] as Stamp;
        expect(stamps, `${p.hex.slice(0, 6)} edit ${i}: shown once (told e${t.e}s${t.s})`).toEqual([`e${t.e}s${t.s}`]);
        expect(p.client.state(R)!.get(keyOf(spot(i))), `${p.hex.slice(0, 6)} edit ${i} held`).toMatchObject({ id: ids[i], ...t });
      }
    }
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});
