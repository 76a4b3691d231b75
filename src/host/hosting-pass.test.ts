// A hostile bundle that mints node ids (free) to get a fresh edit rate and a fresh believed
// position each: the primary takes edits only from nodes whose player pass it checked
// (region/player-pass.ts), keys the rate by the player, and limits the new nodes a player
// binds. Honest edits go on unaffected.
import { describe, expect, it } from 'vitest';
import { mintWork, workBits, workSeed } from '../core/key-work';
import type { NodeId } from '../core/node-id';
import { makePlayerPass, type PlayerPass } from '../region/player-pass';
import { entryKey } from '../region/region-state';
import { columnIndex } from '../region/region-key';
import { HostSim, SIM_PASS_BITS, type SimPeer } from '../testing/host-sim';
import { STONE } from '../world/blocks';
import { chunkOf, localOf } from '../world/coords';
import { MOTION_RULES } from './motion-tracker';

const R = { rx: 0, rz: 0 };
const Y = 100;

/** What a rogue node heard back from the primary, by request id. */
function answers(rogue: SimPeer): Map<number, string> {
  const got = new Map<number, string>();
  rogue.wire.players.events.on('frame', ({ msg }) => {
    if (msg.t === 'REJECT') got.set(msg.r, msg.reason);
    if (msg.t === 'CONFIRM') got.set(msg.r, 'confirmed');
  });
  return got;
}

/** A raw EDIT of (x, Y, z) claiming to stand right by it (a fresh node's first report is believed). */
function rawEdit(rogue: SimPeer, to: NodeId, r: number, x: number, z: number): void {
  rogue.wire.players.send(to, { t: 'EDIT', ...R, r, x, y: Y, z, id: STONE, px: x + 0.5, py: Y + 1, pz: z + 2.5 });
}

const blockAt = (p: SimPeer, x: number, z: number) => p.host.regionState(R)?.state.get(entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), Y, localOf(z)));

describe('player passes: edits per player, not per throwaway node id (simulated)', () => {
  it('refuses nodes with no, copied or unworked passes, limits one player\'s nodes and rate, and leaves honest edits alone', async () => {
    const sim = new HostSim({ seed: 4, host: { motion: MOTION_RULES } });
    await sim.grow(20);
    const honest = sim.pick();
    await sim.settle(honest.client.subscribe(R));
    await sim.settle(honest.client.submit(10, Y, 10, STONE, { x: 10.5, y: Y + 1, z: 12.5 }));
    const [primary] = sim.primariesOf(R) as [SimPeer];
    const st = primary.host.stats;
    const rogues = sim.live().filter((p) => p !== primary && p !== honest).slice(0, 12);
    const heard = rogues.map(answers);
    const to = primary.dht.selfId;

    // No pass: refused as an unknown player, nothing written.
    rawEdit(rogues[0]!, to, 1, 40, 40);
    await sim.run(200);
    expect(heard[0]!.get(1)).toBe('unknown-player');
    expect(blockAt(primary, 40, 40)).toBeUndefined();

    // The honest player's pass, copied by another node: its signature names the honest node.
    const honestPass = await sim.passFor(honest.dht.selfId);
    rogues[0]!.wire.players.send(to, { t: 'PLAYER', ...honestPass });
    rawEdit(rogues[0]!, to, 2, 41, 40);
    // A pass without the work: a nonce with fewer leading zero bits than asked.
    const cheapPlayer = sim.playerOf(rogues[1]!.dht.selfId);
    const signer = sim.keyring.signer(cheapPlayer);
    let nonce = 0;
    while (workBits(workSeed(signer.publicKey), nonce) >= SIM_PASS_BITS) nonce++;
    rogues[1]!.wire.players.send(to, { t: 'PLAYER', ...(await makePlayerPass(signer, rogues[1]!.dht.selfId, nonce)) });
    rawEdit(rogues[1]!, to, 3, 42, 40);
    await sim.run(200);
    expect(st.passRefusals.signature).toBe(1);
    expect(st.passRefusals.work).toBe(1);
    expect(heard[0]!.get(2)).toBe('unknown-player');
    expect(heard[1]!.get(3)).toBe('unknown-player');

    // One minted player binds 11 fresh nodes: 8 are taken (its budget), 3 refused.
    const minted = sim.playerOf(rogues[0]!.dht.selfId);
    const key = sim.keyring.signer(minted);
    const work = mintWork(key.publicKey, SIM_PASS_BITS);
    const passes: PlayerPass[] = [];
    for (const r of rogues.slice(1)) passes.push(await makePlayerPass(key, r.dht.selfId, work));
    const takenBefore = st.passesTaken;
    rogues.slice(1).forEach((r, i) => r.wire.players.send(to, { t: 'PLAYER', ...passes[i]! }));
    await sim.run(200);
    expect(st.passesTaken - takenBefore).toBe(8);
    expect(st.passRefusals.budget).toBe(3);

    // Five edits from each of the 11 nodes at once, each by a block it claims to stand at:
    // the 8 bound nodes share one player's burst (20), the other 3 are unknown.
    const rateBefore = st.editRefusals.rate, unknownBefore = st.editRefusals['unknown-player'];
    rogues.slice(1).forEach((r, i) => {
      for (let k = 0; k < 5; k++) rawEdit(r, to, 100 + k, 2 + i * 5 + k, 50 + (i % 4) * 3);
    });
    await sim.run(500);
    const outcomes = heard.slice(1).flatMap((h) => [100, 101, 102, 103, 104].map((r) => h.get(r)));
    const confirmed = outcomes.filter((o) => o === 'confirmed').length;
    expect(confirmed).toBeLessThanOrEqual(20);
    expect(confirmed).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o === 'rate').length).toBe(40 - confirmed);
    expect(outcomes.filter((o) => o === 'unknown-player').length).toBe(15);
    expect(st.editRefusals.rate - rateBefore).toBe(40 - confirmed);
    expect(st.editRefusals['unknown-player'] - unknownBefore).toBe(15);

    // The honest player's rate is its own: its edits are all confirmed.
    for (let k = 0; k < 5; k++) await sim.settle(honest.client.submit(11 + k, Y, 10, STONE, { x: 12.5, y: Y + 1, z: 12.5 }));
    expect(honest.client.stats.rejected).toBe(0);
    sim.stopAll();
  });

  it('a host that forgot the pass (restarted) hears it again and the edit goes through', async () => {
    const sim = new HostSim({ seed: 9 });
    await sim.grow(6);
    const a = sim.pick();
    await sim.settle(a.client.subscribe(R));
    await sim.settle(a.client.submit(20, Y, 20, STONE, { x: 20, y: Y, z: 22 }));
    const [primary] = sim.primariesOf(R) as [SimPeer];
    // The binding is gone (as after the LRU bound let it go): the next edit is refused once, then resent with the pass.
    (primary.host.passes as unknown as { bound: Map<string, string> }).bound.clear();
    const taken = primary.host.stats.passesTaken;
    await sim.settle(a.client.submit(21, Y, 20, STONE, { x: 20, y: Y, z: 22 }));
    expect(primary.host.stats.editRefusals['unknown-player']).toBe(1);
    expect(primary.host.stats.passesTaken).toBe(taken + 1);
    sim.stopAll();
  });
});
