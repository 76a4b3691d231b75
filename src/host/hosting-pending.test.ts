// Edits shown before they commit (docs/HOSTING.md "Pending edits"): the primary sends each
// batch it orders to its subscribers at once (PENDING), alongside its REPLICATE; they draw it
// marked pending and hold it apart from the region state until the DELTA commits it, or take
// it back when it never does. Only the primary they follow (or a host of its set), in its
// epoch, is heard.
import { describe, expect, it } from 'vitest';
import { STONE } from '../world/blocks';
import { chunkOf, localOf } from '../world/coords';
import { columnIndex } from '../region/region-key';
import { encodeEntries, entryKey, type Entry } from '../region/region-state';
import type { TakenBack } from '../play/pending-view';
import { HostSim, type SimPeer } from '../testing/host-sim';

const R = { rx: 0, rz: 0 };
const KEY = entryKey(columnIndex(chunkOf(6), chunkOf(6)), localOf(6), 71, localOf(6));

/** A region with a primary, an editor and a watcher (neither the primary). */
async function setup(seed: number) {
  const sim = new HostSim({ seed });
  await sim.grow(8);
  await sim.settle(sim.pick().client.subscribe(R));
  const primary = sim.primaryOf(R)!;
  const hosts = new Set([primary, ...sim.backupsOf(R)]);
  const [editor, watcher] = sim.live().filter((p) => !hosts.has(p));
  await sim.settle(Promise.all([editor!.client.subscribe(R), watcher!.client.subscribe(R)]));
  // The primary's next tick places them in its fan-out plan (a subscriber that came since the
  // last one is sent nothing by anyone until then: docs/HOSTING.md "Pending edits").
  await sim.run(100);
  const seen = { shown: [] as { at: number; e: Entry }[], back: [] as TakenBack[], committed: [] as { at: number; e: Entry }[] };
  watcher!.client.events.on('pending', ({ shown, takenBack }) => {
    for (const e of shown) seen.shown.push({ at: sim.clock.now(), e });
    seen.back.push(...takenBack);
  });
  watcher!.client.events.on('edits', ({ entries }) => {
    for (const e of entries) seen.committed.push({ at: sim.clock.now(), e });
  });
  return { sim, primary, editor: editor!, watcher: watcher!, seen };
}

/** Holds the REPLICATE frames `p` sends (its backups never get the batch: nothing commits) until `release`. */
function holdReplicates(p: SimPeer): { release: () => void } {
  const wire = p.wire.replicas;
  const send = wire.send.bind(wire);
  const held: Parameters<typeof send>[] = [];
  wire.send = (to, msg) => {
    if (msg.t !== 'REPLICATE') return send(to, msg);
    held.push([to, msg]);
    return true;
  };
  return {
    release: () => {
      wire.send = send;
      for (const [to, msg] of held.splice(0)) send(to, msg);
    },
  };
}

describe('pending edits', () => {
  it('a subscriber draws an edit as soon as the primary orders it, a round trip before its commit', async () => {
    const { sim, editor, watcher, seen } = await setup(4);
    const t0 = sim.clock.now();
    await sim.settle(editor.client.submit(6, 71, 6, STONE, { x: 5, y: 70, z: 5 }), 2000);
    await sim.run(300);
    const shown = seen.shown.find((x) => x.e.key === KEY);
    const committed = seen.committed.find((x) => x.e.key === KEY);
    expect(shown?.e.id).toBe(STONE);
    expect(committed?.e).toEqual(shown?.e); // the same stamp: committed as shown
    // Pending: editor -> primary -> watcher; committed: plus the primary's round trip to a backup.
    expect(committed!.at - shown!.at).toBeGreaterThan(15);
    expect(shown!.at - t0).toBeLessThan(committed!.at - t0);
    expect(watcher.client.pendingAt(R, KEY)).toBeUndefined();
    expect(seen.back).toEqual([]);
    expect(watcher.client.stats.pendingShown).toBeGreaterThanOrEqual(1);
    sim.stopAll();
  });

  it('a pending edit never enters the state; its commit makes it committed', async () => {
    const { sim, primary, editor, watcher, seen } = await setup(5);
    const held = holdReplicates(primary);
    let confirmed = false;
    const submitted = editor.client.submit(6, 71, 6, STONE, { x: 5, y: 70, z: 5 }).then((s) => ((confirmed = true), s));
    await sim.run(400);
    expect(watcher.client.pendingAt(R, KEY)?.id).toBe(STONE); // drawn, pending
    expect(watcher.client.state(R)!.get(KEY)).toBeUndefined(); // not in the committed state
    expect(confirmed).toBe(false); // nor confirmed to its editor
    expect(primary.host.regionState(R)!.state.get(KEY)).toBeUndefined(); // nor in the primary's committed state
    held.release();
    const stamp = await sim.settle(submitted, 2000);
    await sim.run(300);
    expect(watcher.client.state(R)!.get(KEY)).toMatchObject({ id: STONE, ...stamp });
    expect(watcher.client.pendingAt(R, KEY)).toBeUndefined();
    expect(seen.back).toEqual([]);
    sim.stopAll();
  });

  it('a pending edit that never commits is taken back when a new primary takes over without it', async () => {
    const { sim, primary, editor, watcher, seen } = await setup(6);
    holdReplicates(primary); // never released: no backup ever holds the edit
    void editor.client.submit(6, 71, 6, STONE, { x: 5, y: 70, z: 5 }).catch(() => {});
    await sim.run(400);
    expect(watcher.client.pendingAt(R, KEY)?.id).toBe(STONE);
    const epoch = watcher.client.attachment(R)!.epoch;
    // The primary dies with the batch, and the editor with it (nobody re-sends the edit).
    sim.kill(primary.hex);
    sim.kill(editor.hex);
    await sim.run(6000);
    expect(watcher.client.attachment(R)!.epoch).toBeGreaterThan(epoch);
    expect(watcher.client.pendingAt(R, KEY)).toBeUndefined();
    expect(watcher.client.state(R)!.get(KEY)).toBeUndefined();
    expect(seen.back).toContainEqual({ key: KEY, entry: undefined }); // drawn again as the terrain
    expect(watcher.client.stats.pendingTakenBack).toBeGreaterThanOrEqual(1);
    sim.stopAll();
  });

  it('refuses pending edits from a node that is not a host of the set, of another epoch, or stamped outside the frame', async () => {
    const { sim, primary, watcher, seen } = await setup(7);
    const epoch = watcher.client.attachment(R)!.epoch;
    const rogue = sim.live().find((p) => p !== primary && p !== watcher && !sim.backupsOf(R).includes(p))!;
    const forged = (e: number, s: number) => encodeEntries([{ key: KEY, id: STONE, e, s }]);
    const stale0 = watcher.client.stats.stale;
    rogue.wire.players.send(watcher.dht.selfId, { t: 'PENDING', ...R, e: epoch, from: 900, to: 900, entries: forged(epoch, 900) });
    primary.wire.players.send(watcher.dht.selfId, { t: 'PENDING', ...R, e: epoch + 1, from: 900, to: 900, entries: forged(epoch + 1, 900) });
    primary.wire.players.send(watcher.dht.selfId, { t: 'PENDING', ...R, e: epoch, from: 900, to: 900, entries: forged(epoch, 901) });
    await sim.run(500);
    expect(watcher.client.stats.stale - stale0).toBe(3);
    expect(watcher.client.pendingAt(R, KEY)).toBeUndefined();
    expect(seen.shown).toEqual([]);
    sim.stopAll();
  });
});
