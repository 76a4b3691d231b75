// Fuzz targets: the frame handlers of hosting and of the region client, not only their
// decoders. A small simulated world (host-sim.ts) holds one region with a certified primary,
// two backups and an honest player attached to it with a few edits; a hostile peer of that
// world sends random and mutated frames over the real network (its DHT node's links, the
// receivers' app channels and FrameWires) to the region's hosts (`hosting handlers`: the
// player-to-host frames and every host-to-host frame, at the primary and the backups) or to
// the honest player (`region client handlers`: every host-to-player frame). The valid frames
// the mutants start from are the dangerous ones: a replayed real certificate in SYNC,
// HANDOFF and OFFER, claims of the next epoch, forged entries, the honest player's pass.
//
// Checked per frame: no throw escapes (a handler's throw would surface in the send) and no
// unhandled rejection (fuzz-campaign.ts); what every honest peer holds of the region (role,
// epoch, promise, entries, the player's attachment and entries) changes only by an edit of
// the hostile player's own that the primary accepted; a frame that grew a refusal counter
// (host stats, wire drops, client stats) changed nothing, and is counted by that reason.
import fc from 'fast-check';
import { CHANNELS } from '../dht/app-channels';
import { mintWork } from '../core/key-work';
import type { NodeId } from '../core/node-id';
import { replicationCodec } from '../host/replication-messages';
import { makePlayerPass } from '../region/player-pass';
import { columnIndex, type RegionCoord } from '../region/region-key';
import { encodeEntries, entryKey } from '../region/region-state';
import { subscriptionCodec } from '../region/subscription-messages';
import { GLASS, STONE } from '../world/blocks';
import { FuzzFailure, grewCounters, type FuzzTarget, type FuzzVerdict } from './fuzz-campaign';
import { frameArb } from './fuzz-frames';
import { HostSim, SIM_PASS_BITS, type SimPeer } from './host-sim';
import { sampleLook } from './sample-look';

const LOOK = sampleLook();

const R: RegionCoord = { rx: 0, rz: 0 };
/** Virtual ms a frame is given to arrive and be handled (links: 10-30 ms one way). */
const WAIT_MS = 80;
/** Virtual ms an accepted edit is given to reach the backups and the subscriber. */
const SPREAD_MS = 400;

/** A frame for one channel of one receiver (index into the target's receivers). */
export interface HostileFrame {
  to: number;
  channel: 'region' | 'replica' | 'items';
  body: Uint8Array;
}

interface World {
  sim: HostSim;
  primary: SimPeer;
  backups: SimPeer[];
  player: SimPeer;
  hostile: SimPeer;
}

async function hostedWorld(seed: number): Promise<World> {
  const sim = new HostSim({ seed });
  await sim.grow(7);
  const player = sim.live()[0]!;
  await sim.settle(player.client.subscribe(R));
  for (let i = 0; i < 3; i++) await sim.settle(player.client.submit(4 + i, 90, 4, STONE, { x: 4.5, y: 91, z: 6.5 }));
  await sim.run(1000);
  const primary = sim.primaryOf('0,0')!;
  const backups = sim.live().filter((p) => p.host.roles().backup.includes('0,0'));
  const hostile = sim.live().find((p) => p !== player && p !== primary && !backups.includes(p))!;
  for (const p of [primary, ...backups, player]) await sim.settle(hostile.dht.connect(p.dht.selfId).catch(() => undefined));
  return { sim, primary, backups, player, hostile };
}

/** What the honest peers hold of the region: no frame of the hostile's may change it (but its own accepted edits). */
function held(w: World): string {
  const out: string[] = [];
  for (const p of w.sim.live()) {
    if (p === w.hostile) continue;
    const h = p.host.regionState(R);
    if (h) out.push(`${p.hex}:${h.role}:${h.epoch}:${h.promised}:${h.primaryHex}:${h.state.fingerprint()}`);
    const c = p.client.state(R);
    const a = p.client.attachment(R);
    if (c) out.push(`${p.hex}:client:${a?.primary}:${a?.epoch}:${c.fingerprint()}`);
  }
  return out.join('|');
}

/** The refusal counters of every honest peer: host stats, both wires' drops, the client's. */
function refusals(w: World): unknown {
  const out: Record<string, unknown> = {};
  for (const p of w.sim.live()) {
    if (p === w.hostile) continue;
    const s = p.host.stats;
    out[p.hex.slice(0, 6)] = {
      staleFrames: s.staleFrames, strayFrames: s.strayFrames, badCerts: s.badCerts, outsiderClaims: s.outsiderClaims,
      offersRefused: s.offersRefused, subscribersRefused: s.subscribersRefused, edit: s.editRefusals, pass: s.passRefusals,
      players: p.wire.players.drops, replicas: p.wire.replicas.drops,
      client: { stale: p.client.stats.stale, uncertified: p.client.stats.uncertified },
    };
  }
  return structuredClone(out); // the counters are live objects
}

/** What a hostile-peer target is made of: its world's sim and hostile, and what it watches. */
export interface HostileSetup {
  sim: HostSim;
  hostile: SimPeer;
  receivers: SimPeer[];
  frames: fc.Arbitrary<HostileFrame>;
  /** What the honest peers hold (a string: compared before and after each frame). */
  held(): string;
  /** Refusal counters (a plain copy, nested by peer then counter). */
  refusals(): unknown;
  /** A counter of changes the hostile may make as any peer could (its own accepted edit): a change it explains is allowed. */
  own?(): number;
}

/** Feeds each frame from the hostile peer over the real network and judges it (see the file's head). */
export function hostileTarget(name: string, o: HostileSetup): FuzzTarget<HostileFrame> {
  let before = o.held();
  return {
    name,
    frames: o.frames,
    async feed(f): Promise<FuzzVerdict> {
      const to = o.receivers[f.to % o.receivers.length]!;
      const counts = o.refusals();
      const own = o.own?.();
      const framed = new Uint8Array(f.body.length + 1);
      framed[0] = CHANNELS[f.channel];
      framed.set(f.body, 1);
      o.hostile.dht.send(to.dht.selfId, framed);
      await o.sim.run(WAIT_MS);
      // The hostile's own change, made as any peer's (an accepted edit): it reaches the backups and the player too.
      const explained = o.own?.() !== own;
      if (explained) await o.sim.run(SPREAD_MS);
      const after = o.held();
      const grew = grewCounters(counts, o.refusals()).map((p) => p.split('.').slice(1).join('.'));
      const was = before;
      before = after; // one failure is reported once, not again by every later frame
      if (after !== was) {
        if (grew.length > 0) throw new FuzzFailure(`a frame refused as ${grew[0]} changed what honest peers hold`);
        if (!explained) throw new FuzzFailure(`what honest peers hold changed: ${was} -> ${after}`);
      }
      return grew.length > 0 ? { rejected: grew[0]! } : 'accepted';
    },
    close: () => o.sim.stopAll(),
  };
}

function target(name: string, w: World, receivers: SimPeer[], frames: fc.Arbitrary<HostileFrame>): FuzzTarget<HostileFrame> {
  return hostileTarget(name, { sim: w.sim, hostile: w.hostile, receivers, frames, held: () => held(w), refusals: () => refusals(w), own: () => w.primary.host.stats.editsAccepted });
}

const forged = (e: number) => encodeEntries([{ key: entryKey(columnIndex(0, 0), 3, 200, 3), id: GLASS, e, s: 0x7ffffff0 }]);

/** Random and mutated frames around `valid`, per channel, to any of `receivers` receivers. */
export function hostileFrames(valid: HostileFrame[], receivers: number): fc.Arbitrary<HostileFrame> {
  const arb = (channel: HostileFrame['channel']) => {
    const seeds = valid.filter((f) => f.channel === channel).map((f) => f.body);
    return fc.tuple(fc.nat(receivers - 1), frameArb({ valid: seeds, codes: [...Array(25).keys()] })).map(([to, body]): HostileFrame => ({ to, channel, body }));
  };
  const channels = new Set(valid.map((f) => f.channel));
  return fc.oneof(...[...channels].map(arb));
}

/** The world, what its primary holds (certificate, epoch, hosts, seq), the hostile's id, and a region-channel frame maker. */
async function world(seed: number) {
  const w = await hostedWorld(seed);
  const h = w.primary.host.regionState(R)!;
  const cert = h.cert!;
  const sub = (m: Parameters<typeof subscriptionCodec.encode>[0]): HostileFrame => ({ to: 0, channel: 'region', body: subscriptionCodec.encode(m) });
  return { w, cert, e: cert.e, hosts: cert.hosts, s: h.state.version.s, H: w.hostile.dht.selfId as NodeId, sub };
}

/** The hosts' handlers (HostingService, HostedRegion and its duties) under a hostile peer's frames. */
export async function hostingHandlersTarget(seed = 1): Promise<FuzzTarget<HostileFrame>> {
  const { w, cert, e, hosts, s, H, sub } = await world(seed);
  const own = w.sim.keyring.signer(w.sim.playerOf(H));
  const pass = await makePlayerPass(own, H, mintWork(own.publicKey, SIM_PASS_BITS));
  const copied = await w.sim.passFor(w.player.dht.selfId);
  const rep = (m: Parameters<typeof replicationCodec.encode>[0]): HostileFrame => ({ to: 0, channel: 'replica', body: replicationCodec.encode(m) });
  const valid = [
    sub({ t: 'SUBSCRIBE', ...R, host: false }), sub({ t: 'SUBSCRIBE', ...R, since: { e, s: 1 }, host: true }), sub({ t: 'UNSUBSCRIBE', ...R }),
    sub({ t: 'EDIT', ...R, r: 1, x: 8, y: 90, z: 8, id: STONE, px: 8.5, py: 91, pz: 10.5 }),
    sub({ t: 'MOVE', ...R, l: LOOK, x: 8, y: 91, z: 10, yaw: 0, pitch: 0 }), sub({ t: 'POSITIONS_LOST', ...R, e }),
    sub({ t: 'PLAYER', ...pass }), sub({ t: 'PLAYER', ...copied }),
    rep({ t: 'HEARTBEAT', ...R, e, s: s + 3, hosts, b: 1 }), rep({ t: 'REFUSE', ...R, e: e + 1, primary: H }),
    rep({ t: 'CLAIM', ...R, e: e + 1, hosts: [H, ...hosts], known: cert }), rep({ t: 'GRANT', ...R, e: e + 1, ok: false, promised: e + 5 }),
    rep({ t: 'REPLICATE', ...R, e, from: s + 1, to: s + 1, entries: forged(e), hosts, reqs: [] }), rep({ t: 'ACK', ...R, e, to: s + 9, b: 3 }),
    rep({ t: 'SYNC', ...R, e, s: s + 5, hosts, entries: forged(e), cert, reqs: [] }), rep({ t: 'SYNC_REQ', ...R, e }),
    rep({ t: 'HANDOFF', ...R, e, cert, to: H }), rep({ t: 'OFFER', ...R, entries: forged(e - 1), cert }), rep({ t: 'ABANDON', ...R, e }),
    rep({ t: 'FEED', ...R, e, n: 0, b: new Uint8Array([0, 31, 1, 2, 3, 4, 5, 6, 7, 8]), serve: [H] }), rep({ t: 'FEED_LOST', ...R, e }),
  ];
  const receivers = [w.primary, ...w.backups];
  return target('hosting handlers', w, receivers, hostileFrames(valid, receivers.length));
}

/** The player's handlers (RegionClient, its pending edits and position streams) under a hostile peer's frames. */
export async function regionClientTarget(seed = 1): Promise<FuzzTarget<HostileFrame>> {
  const { w, cert, e, hosts, s, H, sub } = await world(seed);
  const valid = [
    // A replayed real snapshot (its certificate names the primary, not the sender), and one of the next epoch.
    sub({ t: 'SNAPSHOT', ...R, e, v: { e, s: s + 4 }, full: true, hosts, entries: forged(e), cert }),
    sub({ t: 'SNAPSHOT', ...R, e: e + 1, v: { e: e + 1, s: 1 }, full: false, hosts: [H, ...hosts], entries: forged(e + 1), cert: { ...cert, e: e + 1, primary: H } }),
    sub({ t: 'DELTA', ...R, e, from: s + 1, to: s + 1, entries: forged(e) }), sub({ t: 'HEARTBEAT', ...R, e, s: s + 7, hosts: [H] }),
    sub({ t: 'NOT_PRIMARY', ...R, e: e + 1, primary: H }), sub({ t: 'NOT_PRIMARY', ...R, e, alone: true }),
    sub({ t: 'CONFIRM', ...R, r: 1, e, s: s + 1 }), sub({ t: 'REJECT', ...R, r: 1, reason: 'unknown-player' }),
    sub({ t: 'POSITIONS', ...R, e, n: 0, b: new Uint8Array([0, 31, 1, 2, 3, 4, 5, 6, 7, 8]), roster: [{ s: 0, id: H, l: LOOK }] }),
  ];
  return target('region client handlers', w, [w.player], hostileFrames(valid, 1));
}
