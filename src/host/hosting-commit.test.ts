// An edit is shown to subscribers once it is in two memories (the primary's and a
// backup's), and confirmed to its editor only once the primary's own store holds it too:
// a slow disk delays the editor's CONFIRM, not what the other players see.
import { describe, expect, it } from 'vitest';
import { STONE } from '../world/blocks';
import { chunkOf, localOf } from '../world/coords';
import { columnIndex } from '../region/region-key';
import { entryKey } from '../region/region-state';
import { HostSim } from '../testing/host-sim';

describe('commit and confirmation', () => {
  it('a subscriber sees an edit while the primary store write is pending; the editor is confirmed after it', async () => {
    const sim = new HostSim({ seed: 4 });
    await sim.grow(8);
    const region = { rx: 0, rz: 0 };
    const primary = () => sim.primaryOf('0,0');
    const others = () => sim.live().filter((p) => p !== primary());
    // Claim the region, then pick an editor and a watcher that are not its primary.
    await sim.settle(sim.pick().client.subscribe(region));
    const [editor, watcher] = others();
    await sim.settle(Promise.all([editor!.client.subscribe(region), watcher!.client.subscribe(region)]));
    const host = primary()!;
    const key = entryKey(columnIndex(chunkOf(6), chunkOf(6)), localOf(6), 71, localOf(6));

    host.store.holdWrites = true;
    let confirmed = false;
    const submitted = editor!.client.submit(6, 71, 6, STONE, { x: 5, y: 70, z: 5 }).then((s) => ((confirmed = true), s));
    await sim.run(500);
    expect(watcher!.client.state(region)!.get(key)?.id).toBe(STONE); // visible: in two memories
    expect(confirmed).toBe(false); // not confirmed: not on the primary's disk yet
    expect(host.store.writes).toBeGreaterThan(0);

    host.store.releaseWrites();
    const stamp = await sim.settle(submitted, 2000);
    expect(stamp.e).toBeGreaterThan(0);
    expect(host.host.stats.confirms).toBeGreaterThanOrEqual(1);

    // The next edit is appended to the region's log at the primary and its backups: its
    // own entry (12 bytes) and the odd election record, not the whole region rewritten.
    const hosts = sim.live().filter((p) => p.host.roles().primary.includes('0,0') || p.host.roles().backup.includes('0,0'));
    expect(hosts.length).toBeGreaterThanOrEqual(2);
    const before = hosts.map((p) => [p.store.bytesWritten, p.store.logLength(0, 0)] as const);
    await sim.settle(editor!.client.submit(7, 71, 6, STONE, { x: 5, y: 70, z: 5 }), 2000);
    await sim.run(500);
    hosts.forEach((p, i) => {
      expect(p.store.logLength(0, 0)).toBeGreaterThan(before[i]![1]);
      expect(p.store.bytesWritten - before[i]![0]).toBeLessThan(200);
    });
    sim.stopAll();
  });
});
