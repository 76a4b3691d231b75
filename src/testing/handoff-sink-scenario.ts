// A handoff sink: an attacker's live node, its id ground nearer a visited region's key than
// every honest node, that takes every HANDOFF and never claims. Each primary's re-check of
// its host set (host-set-check.ts) finds it nearest the key and hands the region to it; the
// primary stops ordering, and the region has no primary until its backups give up on the
// handoff and one of them claims. Measured: how long the region was without a primary in a
// window after the sink joined (all of it, and the longest gap), how many gaps, how many
// honest edits (one a second) were confirmed. With `sinks: 2` the sinks are 2 of the 3 nodes
// nearest the key (the model's limit, docs/TRUST.md "What it does not stop" (a); sybil_1k
// seed 1, region 1,1), `chatterMs` has them send the hosts a frame of the region now and then
// (the 1,000-peer kit's rows do: a frame brings a node noted quiet back on trust), and `killAt`
// kills the primary then. Node only (the simulator); run by host/hosting-handoff-sink.test.ts.
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
  /** Sinks, each ground nearer the key than every honest node (default 1). */
  sinks?: number;
  /** The window measured after the sinks joined (virtual ms; default SINK_WINDOW_MS). */
  windowMs?: number;
  /** Each sink sends every honest host a frame of the region (an ABANDON of no claim) this often (virtual ms; default never). */
  chatterMs?: number;
  /** The primary dies silently this long into the window (virtual ms; default never). */
  killAt?: number;
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
  // The sinks: ground nearer the key than the nearest honest node; their hosts are the attacker's (never started, or stopped once joined).
  const nearest = sortByDistance(sim.live(), (p) => p.dht.selfId, key)[0]!.dht.selfId;
  const topEpoch = (peers: SimPeer[]) => Math.max(0, ...peers.map((p) => p.host.regionState(r)?.cert?.e ?? 0));
  const epochAtJoin = topEpoch(sim.live());
  const sinks: SimPeer[] = [];
  let handoffsToSink = 0;
  for (let i = 0; i < (o.sinks ?? 1); i++) {
    const sink = await sim.add(sim.groundId(key, undefined, nearest), { hostile: !o.startedHost });
    new Attacker(sim, sink, 0, seed + i, false);
    sink.wire.replicas.events.on('frame', ({ msg }) => void (msg.t === 'HANDOFF' && handoffsToSink++));
    sinks.push(sink);
  }
  const honestHosts = () => sim.live().filter((p) => !sinks.includes(p) && !!p.host.regionState(r));
  const chatter = o.chatterMs ? every(sim.clock, o.chatterMs, () => {
    for (const s of sinks) for (const p of honestHosts()) s.wire.replicas.send(p.dht.selfId, { t: 'ABANDON', rx: r.rx, rz: r.rz, e: 1 });
  }) : () => {};
  const start = sim.clock.now();
  let killed = false;
  let noPrimaryMs = 0, longestGapMs = 0, gaps = 0, gapStart: number | undefined;
  const stop = every(sim.clock, 50, () => {
    const now = sim.clock.now();
    if (o.killAt !== undefined && !killed && now - start >= o.killAt) {
      killed = true;
      const p = sim.primaryOf(r);
      if (p && !sinks.includes(p) && p !== player) sim.kill(p.hex);
    }
    if (sim.primariesOf(r).some((p) => !sinks.includes(p))) {
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
  const end = sim.clock.now() + (o.windowMs ?? SINK_WINDOW_MS);
  const edits0 = tried;
  let confirmed = 0;
  while (sim.clock.now() < end) {
    const t = sim.clock.now();
    if (await edit(Math.min(3000, end - t))) confirmed++;
    await sim.run(Math.max(0, 1000 - (sim.clock.now() - t)));
  }
  if (gapStart !== undefined) longestGapMs = Math.max(longestGapMs, sim.clock.now() - gapStart);
  stop();
  chatter();
  const out = { epochAtJoin, epochAtEnd: topEpoch(sim.live().filter((p) => !sinks.includes(p))), noPrimaryMs, longestGapMs, gaps, handoffsToSink, edits: tried - edits0, confirmed, doublePrimaries: sim.doublePrimaries().length };
  sim.stopAll();
  return out;
}
