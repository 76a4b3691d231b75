// A hostile host of a region's set floods a subscriber attached to the region's honest
// primary (simulated hosting, items beside it: testing/item-host-sim.ts) while the primary
// keeps committing another player's edits: DELTAs and PENDINGs of the next seqs carrying
// marker blocks, with no batch signatures or forged ones (play/relay-proofs.ts), and item
// decisions signed "by" the honest voters under keys never met, each a derivation before it
// is found junk. The subscriber checks node keys as a tab does, on the derivation budget of
// the host whose frame caused the check (testing/budgeted-keyring.ts: the checks the region
// client and its items make; its DHT checks with the keyring's, as every simulated peer's).
// It shows every edit the primary confirmed and none of the markers, takes no decision, and
// the flood's derivations, junk and refusals are the hostile host's: none the unattributed
// source's, none refused to an honest host.
import { describe, expect, it } from 'vitest';
import { UNATTRIBUTED } from '../core/derivation-budget';
import { hexToId } from '../core/node-id';
import type { Stamp } from '../region/region-state';
import { encodeEntries } from '../region/region-state';
import { plantedOf } from '../testing/adversary';
import { BudgetedKeyring } from '../testing/budgeted-keyring';
import { ItemHostSim } from '../testing/item-host-sim';
import { GLASS, PLACEABLE } from '../world/blocks';

const REGION = { rx: 0, rz: 0 };
const NAME = '0,0';
/** Flood rounds, 50 ms apart; every 5th the editor places a block. */
const ROUNDS = 100;
const DECISIONS_A_ROUND = 4;

describe('a hostile host flooding an attached subscriber (simulated hosting)', () => {
  it("forged relays and junk-key decisions: every confirmed edit shown, no marker, no decision taken, the derivations the hostile host's", async () => {
    // Seed 3: neither player is among the 3 hosts of 0,0 (a host subscribes to its own region too).
    const sim = new ItemHostSim({ seed: 3, spawnMeanMs: 1500 });
    await sim.grow(7);
    await sim.add(); // the editor
    const keys = new BudgetedKeyring(sim.keyring, () => sim.clock.now());
    await sim.add(undefined, { verify: keys.verify }); // the subscriber
    const { a: editor, b: sub, item } = await sim.twoPlayersAndAnItem();
    const hosts = sim.hostLedgers(NAME).map((h) => h.hex);
    const primary = sim.primaryItemPeer(NAME)!;
    expect(hosts).toHaveLength(3);
    expect(hosts).not.toContain(sub.peer.hex);
    expect(hosts).not.toContain(editor.peer.hex);
    const hostile = sim.items.get(hosts.find((h) => h !== primary.peer.hex)!)!;
    const honest = hosts.filter((h) => h !== hostile.peer.hex);
    const set = sub.peer.client.hostSet(REGION)!;
    expect(sub.peer.client.attachment(REGION)?.primary).toBe(primary.peer.hex);

    const client = sub.peer.client;
    const before = { unproven: client.stats.relayUnproven, badSig: sub.player.checker.stats['bad-signature'] ?? 0, hostile: { ...keys.spent(hostile.peer.hex) } };
    const junkSig = (id: Uint8Array) => ({ id, a: 0 as const, k: crypto.getRandomValues(new Uint8Array(32)), s: crypto.getRandomValues(new Uint8Array(64)) });
    const seqNow = () => primary.peer.host.regionState(REGION)?.state.all().reduce((n, x) => (x.e === set.epoch ? Math.max(n, x.s) : n), 0) ?? 0;
    const markers = () => [...(client.state(REGION)?.all() ?? []), ...client.pendingEntries(REGION)].filter((x) => x.id === GLASS).length;
    const edits: Promise<Stamp | undefined>[] = [];
    let markersSeen = 0;
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 5 === 0) {
        const x = 4 + (i / 5), z = 30;
        edits.push(editor.peer.client.submit(x, 100, z, PLACEABLE[0]!, { x, y: 100, z: z + 2 }).catch(() => undefined));
      }
      // The relays: the next seqs, the markers, without batch signatures, then with forged ones.
      const from = seqNow() + 1, entries = plantedOf(REGION, i)(set.epoch, from), to = from + entries.length - 1;
      const bytes = encodeEntries(entries);
      const pf = (): [number, number, Uint8Array][] => [[from, to, crypto.getRandomValues(new Uint8Array(64))]];
      const toSub = (m: Parameters<typeof hostile.peer.wire.players.send>[1]) => hostile.peer.wire.players.send(hexToId(sub.peer.hex), m);
      toSub({ t: 'DELTA', ...REGION, e: set.epoch, from, to, entries: bytes });
      toSub({ t: 'DELTA', ...REGION, e: set.epoch, from, to, entries: bytes, pf: pf() });
      toSub({ t: 'PENDING', ...REGION, e: set.epoch, from, to, entries: bytes, pf: pf() });
      // The decisions: the item given to the hostile host, "signed" by the two honest voters under fresh keys.
      for (let k = 0; k < DECISIONS_A_ROUND; k++) {
        hostile.wire.send(hexToId(sub.peer.hex), {
          t: 'ITEM_DECIDED', ...REGION, vote: `take:${item.id}:0`, set: set.epoch, round: 1, proof: 0b111,
          c: { t: 'c', who: hostile.peer.hex, x: item.x, y: item.y, z: item.z },
          sigs: honest.map((h) => junkSig(hexToId(h))),
        });
      }
      await sim.run(50);
      markersSeen = Math.max(markersSeen, markers());
    }
    const stamps = await sim.settle(Promise.all(edits));
    await sim.run(1000);

    const confirmed = stamps.filter((s): s is Stamp => s !== undefined);
    const shown = client.state(REGION)!.all();
    const unseen = confirmed.filter((st) => !shown.some((x) => x.e === st.e && x.s === st.s && x.id === PLACEABLE[0]));
    expect(confirmed.length, 'edits the primary confirmed').toBeGreaterThanOrEqual(ROUNDS / 5 - 2);
    expect(unseen, 'confirmed edits the subscriber never showed').toEqual([]);
    expect(markersSeen + markers(), 'marker blocks shown or drawn pending').toBe(0);
    expect(client.attachment(REGION)?.primary, 'still attached to the honest primary').toBe(primary.peer.hex);
    expect(client.stats.relayUnproven - before.unproven, 'relays refused unproven').toBeGreaterThanOrEqual(ROUNDS);
    expect(sub.player.items().find((x) => x.id === item.id)?.owner ?? null, 'no decision taken').toBe(null);
    expect((sub.player.checker.stats['bad-signature'] ?? 0) - before.badSig, 'decisions checked and refused').toBeGreaterThan(0);

    // Whose budget: the hostile host's derivations found junk, then refused; nothing on the unattributed source, nothing refused to an honest host.
    const spent = keys.spent(hostile.peer.hex);
    expect(spent.junk - before.hostile.junk, `junk keys charged to the hostile host (${JSON.stringify(Object.fromEntries(keys.bySource))})`).toBeGreaterThan(50);
    expect(spent.refused - before.hostile.refused, 'derivations refused to the hostile host').toBeGreaterThan(100);
    expect(keys.spent(UNATTRIBUTED), 'the unattributed source').toEqual({ derived: 0, junk: 0, refused: 0 });
    for (const h of [...honest, editor.peer.hex]) expect(keys.spent(h).refused, `refused to ${h.slice(0, 6)}`).toBe(0);
    sim.stopAll();
  });
});
