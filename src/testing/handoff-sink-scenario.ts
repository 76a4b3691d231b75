// A handoff sink: an attacker's live node, its id ground nearer a visited region's key than
// every honest node, that takes every HANDOFF and never claims. Each primary's re-check of
// its host set (host-set-check.ts) finds it nearest the key and hands the region to it; the
// primary stops ordering, and the region has no primary until its backups give up on the
// handoff and one of them claims. Measured: how long the region was without a primary in a
// window after the sink joined (all of it, and the longest gap), how many gaps, how many
// honest edits (one a second) were confirmed. Node only (the simulator); run by
// host/hosting-handoff-sink.test.ts.
import { every } from '../core/clock';
import { sortByDistance } from '../core/node-id';
import { REGION_BLOCKS, RegionKeys, type RegionCoord } from '../region/region-key';
import { PLACEABLE } from '../world/blocks';
import { HostSim, SIM_ID_WORK_BITS, simKeyHash, type SimPeer } from './host-sim';
import { Attacker } from './sybil-scenario';

export interface HandoffSinkResult {
  /** Virtual ms of the window with no primary of the region, in all. */
  noPrimaryMs: number;
  /** The longest run without one. */
  longestGapMs: number;
  /** Runs without a primary (each a handoff the sink took, or a failover). */
  gaps: number;
  /** HANDOFF frames the sink was sent. */
  handoffsToSink: number;
  /** Honest edits tried during the window, and confirmed. */
  edits: number;
  confirmed: number;
  doublePrimaries: number;
  /** The highest epoch an honest host held at the end, and at the sink's join. */
  epochAtJoin: number;
  epochAtEnd: number;
}

export interface HandoffSinkOptions {
  /** Honest hosting peers (default 12). */
  honest?: number;
  /**
   * The sink joins as an honest host, which the attacker stops once it joined: a HANDOFF
   * that reaches it while it joins is answered by an honest claim, so the sink may hold the
   * region in a set (and have been its primary) before it falls silent.
   */
  startedHost?: boolean;
}

/** The window measured after the sink joined (virtual ms): several re-checks of the host set (RECHECK_MS 5 s). */
export const SINK_WINDOW_MS = 40_000;

export async function runHandoffSink(seed: number, o: HandoffSinkOptions = {}): Promise<HandoffSinkResult> {
  const honest = o.honest ?? 12;
  const sim = new HostSim({ seed, idWorkBits: SIM_ID_WORK_BITS });
  await sim.grow(honest);
  const r: RegionCoord = { rx: 2, rz: 3 };
  const key = await new RegionKeys(sim.world, simKeyHash).key(r);
  const player = sortByDistance(sim.live(), (p) => p.dht.selfId, key).at(-1)!;
  let tried = 0;
  const edit = async (ms: number): Promise<boolean> => {
    const i = tried++;
    const x = r.rx * REGION_BLOCKS + ((i * 13) % REGION_BLOCKS), z = r.rz * REGION_BLOCKS + ((i * 29) % 32), y = 120 + (i % 40);
    let ok: boolean | undefined;
    player.client.submit(x, y, z, PLACEABLE[i % (PLACEABLE.length - 1)]!, { x, y, z: z + 2 }).then(() => (ok = true), () => (ok = false));
    await sim.clock.runUntil(() => ok !== undefined, ms);
    return ok === true;
  };
  await sim.settle(player.client.subscribe(r));
  for (let i = 0; i < 3; i++) if (!(await edit(10_000))) throw new Error('setup edit not confirmed');
  await sim.run(1000);
  if (!sim.primaryOf(r)) throw new Error('no primary after the setup edits');
  // The sink: ground nearer the key than the nearest honest node; its host is the attacker's (never started, or stopped once joined).
  const nearest = sortByDistance(sim.live(), (p) => p.dht.selfId, key)[0]!.dht.selfId;
  const topEpoch = (peers: SimPeer[]) => Math.max(0, ...peers.map((p) => p.host.regionState(r)?.cert?.e ?? 0));
  const epochAtJoin = topEpoch(sim.live());
  const sink: SimPeer = await sim.add(sim.groundId(key, undefined, nearest), { hostile: !o.startedHost });
  new Attacker(sim, sink, 0, seed, false);
  let handoffsToSink = 0;
  sink.wire.replicas.events.on('frame', ({ msg }) => void (msg.t === 'HANDOFF' && handoffsToSink++));
  let noPrimaryMs = 0, longestGapMs = 0, gaps = 0, gapStart: number | undefined;
  const stop = every(sim.clock, 50, () => {
    const now = sim.clock.now();
    if (sim.primariesOf(r).some((p) => p !== sink)) {
      if (gapStart !== undefined) longestGapMs = Math.max(longestGapMs, now - gapStart);
      gapStart = undefined;
      return;
    }
    if (gapStart === undefined) {
      gapStart = now;
      gaps++;
    }
    noPrimaryMs += 50;
  });
  const end = sim.clock.now() + SINK_WINDOW_MS;
  const edits0 = tried;
  let confirmed = 0;
  while (sim.clock.now() < end) {
    const t = sim.clock.now();
    if (await edit(Math.min(3000, end - t))) confirmed++;
    await sim.run(Math.max(0, 1000 - (sim.clock.now() - t)));
  }
  if (gapStart !== undefined) longestGapMs = Math.max(longestGapMs, sim.clock.now() - gapStart);
  stop();
  const out = { epochAtJoin, epochAtEnd: topEpoch(sim.live().filter((p) => p !== sink)), noPrimaryMs, longestGapMs, gaps, handoffsToSink, edits: tried - edits0, confirmed, doublePrimaries: sim.doublePrimaries().length };
  sim.stopAll();
  return out;
}
