// No frame shows a player a block that breaks the world's rules (region-state.ts
// obeysWorldRules: AIR at the floor, a block no player may place), not even one from the
// region's certified primary, anchored for the player, that runs hostile code
// (testing/hostile-primary.ts): its SNAPSHOT, DELTA and PENDING and its signed DHT edit log
// are taken without those entries (counted) and with the rest.
import { describe, expect, it } from 'vitest';
import { STONE } from '../world/blocks';
import { HostSim } from '../testing/host-sim';
import { hostilePrimary, ruleBreakers } from '../testing/hostile-primary';

const R = { rx: 0, rz: 0 };

/** A region with a primary, an editor's confirmed edit, a watcher attached and a peer that has not subscribed (none of them hosts). */
async function setup(seed: number) {
  const sim = new HostSim({ seed });
  await sim.grow(9);
  await sim.settle(sim.pick().client.subscribe(R));
  const hosts = new Set([sim.primaryOf(R)!, ...sim.backupsOf(R)]);
  const [editor, watcher, late] = sim.live().filter((p) => !hosts.has(p));
  await sim.settle(Promise.all([editor!.client.subscribe(R), watcher!.client.subscribe(R)]));
  const stamp = await sim.settle(editor!.client.submit(6, 71, 6, STONE, { x: 5, y: 70, z: 5 }));
  await sim.run(300);
  return { sim, hostile: hostilePrimary(sim, R), watcher: watcher!, late: late!, stamp };
}

describe("the world's rules at a player, whoever sent the entries", () => {
  it('a SNAPSHOT of the anchored primary shows its entries within the rules and none against them', async () => {
    const { sim, hostile, late, stamp } = await setup(3);
    const { against, fit } = ruleBreakers(stamp.e, stamp.s + 1);
    hostile.plant([...against, fit]);
    await sim.settle(late.client.subscribe(R));
    const state = late.client.state(R)!;
    expect(late.client.attachment(R)?.primary).toBe(hostile.hex);
    expect(state.get(fit.key)).toEqual(fit); // the snapshot was taken
    expect(against.map((x) => state.get(x.key))).toEqual([undefined, undefined, undefined]);
    expect(late.client.stats.againstRules).toBe(3);
    sim.stopAll();
  });

  it('a DELTA of the primary we follow, on its own link: merged without the entries against the rules', async () => {
    const { sim, hostile, watcher, stamp } = await setup(4);
    const { against, fit, all } = ruleBreakers(stamp.e, stamp.s + 1);
    const edits: number[] = [];
    watcher.client.events.on('edits', ({ entries }) => edits.push(...entries.map((x) => x.key)));
    hostile.delta(watcher.dht.selfId, stamp.s + 1, all);
    await sim.run(200);
    const state = watcher.client.state(R)!;
    expect(state.get(fit.key)).toEqual(fit);
    expect(against.map((x) => state.get(x.key))).toEqual([undefined, undefined, undefined]);
    expect(edits).toEqual([fit.key]);
    expect(watcher.client.stats.againstRules).toBe(3);
    sim.stopAll();
  });

  it('a PENDING of the primary we follow draws only the entries within the rules', async () => {
    const { sim, hostile, watcher, stamp } = await setup(5);
    const { against, fit, all } = ruleBreakers(stamp.e, stamp.s + 1);
    const shown: number[] = [];
    watcher.client.events.on('pending', (p) => shown.push(...p.shown.map((x) => x.key)));
    hostile.pending(watcher.dht.selfId, stamp.s + 1, all);
    await sim.run(200);
    expect(watcher.client.pendingAt(R, fit.key)).toEqual(fit);
    expect(against.map((x) => watcher.client.pendingAt(R, x.key))).toEqual([undefined, undefined, undefined]);
    expect(shown).toEqual([fit.key]);
    sim.stopAll();
  });

  it("the primary's signed edit log, read for a far region, holds none of the entries against the rules", async () => {
    const { sim, hostile, late, stamp } = await setup(6);
    const { against, fit, all } = ruleBreakers(stamp.e, stamp.s + 1);
    await sim.settle(hostile.publish(all));
    const got = (await sim.settle(late.client.farEdits(R)))!;
    const keys = got.map((x) => x.key);
    expect(keys).toContain(fit.key); // the log was taken
    expect(against.filter((x) => keys.includes(x.key))).toEqual([]);
    sim.stopAll();
  });
});
