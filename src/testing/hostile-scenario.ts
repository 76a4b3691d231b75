// A hostile peer next to a region's key tries its attacks on region authority against honest hosts
// and players: blocks written through OFFER, asserted epochs (0xffffffff among them) in
// REPLICATE, SYNC, HEARTBEAT and SNAPSHOT with forged certificates, an outsider's CLAIM
// storm through a failover, and an oversized frame. No honest peer may show or store a
// block that no certified primary ordered, and the region must stay available.
// The rogue's blocks are GLASS at y = 250; no honest editor writes there. Node only (the
// simulator harness); run by hosting-hostile.test.ts and `npm run bench -- hostile`.
import { every } from '../core/clock';
import { idToHex, type NodeId } from '../core/node-id';
import { GLASS, PLACEABLE } from '../world/blocks';
import { chunkOf, localOf } from '../world/coords';
import { signGrant, type EpochCert } from '../region/epoch-cert';
import { HostSim, simKeyHash, type SimPeer } from './host-sim';
import { columnIndex, REGION_BLOCKS, RegionKeys, type RegionCoord } from '../region/region-key';
import { encodeEntries, entryKey, type Entry, type RegionState } from '../region/region-state';

const R: RegionCoord = { rx: 1, rz: 1 };
const ROGUE_Y = 250;

function rogueEntries(e: number): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i < 64; i++) {
    const x = R.rx * REGION_BLOCKS + i, z = R.rz * REGION_BLOCKS + ((i * 7) % REGION_BLOCKS);
    out.push({ key: entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), ROGUE_Y, localOf(z)), id: GLASS, e, s: 0x7fffffff - i });
  }
  return out;
}

/** Entries in a state that only the rogue wrote (GLASS at y = 250). */
function rogueBlocks(state: RegionState | undefined): number {
  if (!state) return 0;
  return rogueEntries(1).filter((r) => state.get(r.key)?.id === GLASS).length;
}

/** Honest peers' stored and shown rogue blocks: the figure sim_hostile_accepted. */
function hostileAccepted(sim: HostSim, rogue: SimPeer): number {
  let n = 0;
  for (const p of sim.live()) {
    if (p === rogue) continue;
    n += rogueBlocks(p.host.regionState(R)?.state) + rogueBlocks(p.client.state(R));
  }
  return n;
}

async function edit(sim: HostSim, p: SimPeer, i: number): Promise<boolean> {
  const x = R.rx * REGION_BLOCKS + ((i * 13) % REGION_BLOCKS), z = R.rz * REGION_BLOCKS + ((i * 29) % REGION_BLOCKS), y = 120 + (i % 40);
  let ok: boolean | undefined;
  p.client.submit(x, y, z, PLACEABLE[i % (PLACEABLE.length - 1)]!, { x, y, z: z + 2 }).then(() => (ok = true), () => (ok = false));
  await sim.clock.runUntil(() => ok !== undefined, 10_000);
  return ok === true;
}

export interface HostileResult {
  rogueIsBackup: boolean;
  /** The oversized frame left the rogue's wire (it must not: over the reassembly limit). */
  hugeSent: boolean;
  /** Rogue blocks stored or shown by honest peers after the frame attacks, and at the end. */
  acceptedAfterAttacks: number;
  acceptedAtEnd: number;
  /** Highest promise an honest host made above the epoch before the attacks. */
  maxPromiseJump: number;
  primaryKept: boolean;
  /** Offers refused and certificates failed at the primary. */
  refused: number;
  failoverOk: boolean;
  /** Virtual ms from the primary's silent death to the next confirmed edit, under the CLAIM storm. */
  failoverMs: number;
  doublePrimaries: number;
}

export async function runHostileScenario(seed: number): Promise<HostileResult> {
  const sim = new HostSim({ seed });
  const key = await new RegionKeys(sim.world, simKeyHash).key(R);
  await sim.grow(12);
  // An honest node closest to the key (it will be primary), then the rogue: its 4th byte
  // differs from the key, so it is the next closest, a backup of the region.
  const closest: NodeId = new Uint8Array(key);
  closest[19]! ^= 1;
  await sim.add(closest);
  const near: NodeId = new Uint8Array(key);
  near[3]! ^= 0x40;
  const rogue = await sim.add(near);
  const player = sim.live().find((p) => p !== rogue)!;
  await sim.settle(player.client.subscribe(R));
  for (let i = 0; i < 5; i++) if (!(await edit(sim, player, i))) throw new Error(`setup edit ${i} not confirmed`);
  await sim.run(1000);
  const primaryOf = () => sim.primaryOf(`${R.rx},${R.rz}`);
  const primary = primaryOf()!;
  const region = primary.host.regionState(R)!;
  const cert = region.cert!;
  const e = region.epoch;
  const honest = sim.live().filter((p) => p !== rogue);
  const send = (to: SimPeer, m: Parameters<SimPeer['wire']['replicas']['send']>[1]) => rogue.wire.replicas.send(to.dht.selfId, m);
  const sendToPlayer = (to: SimPeer, m: Parameters<SimPeer['wire']['players']['send']>[1]) => rogue.wire.players.send(to.dht.selfId, m);
  const r = { rx: R.rx, rz: R.rz };

  // 1. Blocks through OFFER: the rogue is a backup (a host with a stored promise), so the
  // primary takes its offers, but only of entries stamped before the current epoch (stored
  // state from earlier); newer stamps are forged. And with a forged certificate.
  const rogueIsBackup = primary.hex === idToHex(closest) && cert.hosts.some((h) => idToHex(h) === rogue.hex);
  const forged: EpochCert = { ...cert, e: e + 1, primary: rogue.dht.selfId, hosts: [rogue.dht.selfId, ...cert.hosts.slice(1)] };
  for (let i = 0; i < 20; i++) {
    send(primary, { t: 'OFFER', ...r, entries: encodeEntries(rogueEntries(e)), cert: forged });
    send(primary, { t: 'OFFER', ...r, entries: encodeEntries(rogueEntries(e + 7)) });
  }

  // 2. Asserted epochs, up to 0xffffffff, with forged certificates: its own grant plus a
  // forged signature of a real host.
  const realHost = cert.hosts.find((h) => idToHex(h) !== idToHex(rogue.dht.selfId) && idToHex(h) !== primary.hex)!;
  for (const big of [e + 1, e + 64, 0xffffff, 0xffffffff]) {
    const terms = { e: big, primary: rogue.dht.selfId, hosts: [rogue.dht.selfId, realHost], prev: { e, hosts: cert.hosts } };
    const own = await sim.settle(signGrant(sim.keyring.signer(rogue.dht.selfId), key, terms));
    const fake = { ...own, id: realHost, s: new Uint8Array(64).fill(7) };
    const c: EpochCert = { ...terms, grants: [own, fake] };
    for (const p of honest) {
      send(p, { t: 'SYNC', ...r, e: big, s: 1, hosts: c.hosts, entries: encodeEntries(rogueEntries(big)), cert: c });
      send(p, { t: 'REPLICATE', ...r, e: big, from: 1, to: 64, entries: encodeEntries(rogueEntries(big)), hosts: c.hosts });
      send(p, { t: 'HEARTBEAT', ...r, e: big, s: 64, hosts: c.hosts, b: 1 });
      sendToPlayer(p, { t: 'SNAPSHOT', ...r, e: big, v: { e: big, s: 64 }, full: true, hosts: c.hosts, entries: encodeEntries(rogueEntries(big)), cert: c });
    }
  }
  // 3. An oversized frame (over the reassembly limit) is never sent, and nothing breaks.
  const huge = new Uint8Array(3 * 1024 * 1024);
  const hugeSent = rogue.wire.players.send(player.dht.selfId, { t: 'SNAPSHOT', ...r, e, v: { e, s: 1 }, full: true, hosts: [], entries: huge, cert });
  await sim.run(3000);
  const acceptedAfterAttacks = hostileAccepted(sim, rogue);
  const maxPromiseJump = Math.max(...honest.map((p) => (p.host.regionState(R)?.promised ?? e) - e));
  const primaryKept = primaryOf() === primary;
  const refused = primary.host.stats.offersRefused + primary.host.stats.badCerts;

  // 4. An outsider CLAIM storm through a failover: the primary dies silently, the rogue
  // claims at every backup every 100 ms; the region must still fail over.
  let n = 0;
  const stopStorm = every(sim.clock, 100, () => {
    for (const p of honest) send(p, { t: 'CLAIM', ...r, e: e + 1 + (n++ % 3), hosts: [rogue.dht.selfId, ...cert.hosts.slice(0, 1)] });
  });
  let failoverOk = primary === player, failoverMs = 0;
  if (primary !== player) {
    sim.kill(primary.hex);
    const t0 = sim.clock.now();
    for (let i = 100; i < 130 && !failoverOk; i++) failoverOk = await edit(sim, player, i);
    failoverMs = sim.clock.now() - t0;
  }
  stopStorm();
  await sim.run(2000);
  const result: HostileResult = {
    rogueIsBackup, hugeSent, acceptedAfterAttacks, acceptedAtEnd: hostileAccepted(sim, rogue), maxPromiseJump, primaryKept, refused,
    failoverOk, failoverMs, doublePrimaries: sim.doublePrimaries().length,
  };
  sim.stopAll();
  return result;
}
