// A region's primary on a saturated machine while players edit: its tab's timers and the
// frames that reach it run late, 0-400 ms (tasks of 50-400 ms back to back: HostSim
// `starve`), for a spell. What the region's peers make of it: claims on the primary's
// silence, failovers (the primary that the peers see changing), time with no primary at
// all, and confirmed edits a subscriber never shows once the world settles. The hosting
// bench's 8-bot figures on 2 saturated cores (issue: silence claims 13 -> 41) came from
// tabs like this one; the simulation runs it on the virtual clock.
import { HostSim } from './host-sim';
import { EditLedger, keyOf } from './edit-ledger';
import { REGION_BLOCKS, regionName, type RegionCoord } from '../region/region-key';
import type { HostOptions } from '../host/host-options';
import { DHT_DEFAULTS, type DhtOptions } from '../dht/dht-node';

export interface StarvedHostOptions {
  seed: number;
  /** Peers in the simulation (all host, all subscribe). Default 5. */
  peers?: number;
  /** How long the primary is starved. Default 20 s. */
  starveMs?: number;
  /** Its tasks' length, from and to. Default 50-400 ms. */
  minMs?: number;
  maxMs?: number;
  /** Editors (peers other than the primary), each editing every `editMs`. Default 2, 250 ms. */
  editors?: number;
  editMs?: number;
  /** The other peers starved too (every tab of a saturated machine), each its own draws. */
  starveAll?: boolean;
  /**
   * A second region beside the first (west of it), hosted and edited as the first is, which
   * the peers that do not edit keep walking into and out of: each `crossMs` in it and
   * `crossMs` out, subscribing afresh each time (a reader with no certificate of the region:
   * it believes one only when its hosts are among the key's nearest nodes, cert-checker.ts).
   * At the end every peer subscribes to both.
   */
  border?: { crossMs: number };
  host?: Partial<HostOptions>;
  dht?: Partial<DhtOptions>;
  /** Called at the end with the simulation (a test or a trace looks at what it likes). */
  inspect?: (sim: HostSim) => void;
}

export interface StarvedHostFigures {
  /** Claims started because the primary went silent (stats.silenceClaims), in the spell and 5 s after. */
  silenceClaims: number;
  /** Every claim in that time (silence, subscribers' asks, retries). */
  claims: number;
  claimsFailed: number;
  /** Claims on the primary's silence (or a subscriber's word of it) that won: the primary deposed. */
  takeovers: number;
  /** Times the primary changed (as `primaryOf` sees it, every 50 ms), and the chain of them. */
  failovers: number;
  primaries: string[];
  /** Stretches with no primary at all, their count and the longest (ms). */
  gaps: number;
  longestGapMs: number;
  stepDowns: number;
  /** Host sets the primaries moved to while their majority lived (each a new epoch): in the spell and 5 s after. */
  reconfigs: number;
  confirmed: number;
  /** Confirmed edits some subscriber does not show 10 s after the spell, in words. */
  unseen: string[];
  reapplied: string[];
  doublePrimaries: string[];
  /** Snapshots readers refused as not certified (RegionClient stats.uncertified), in the spell and 5 s after. */
  refusals: number;
  /** With `border`: the walks into the second region, and those whose subscription had no snapshot when the reader walked out. */
  crossings: number;
  crossingsUnattached: number;
}

const R: RegionCoord = { rx: 0, rz: 0 };
const B: RegionCoord = { rx: -1, rz: 0 };

export async function runStarvedHost(o: StarvedHostOptions): Promise<StarvedHostFigures> {
  // A tab's RPC timeout (4 s), not the simulations' 600 ms (there to get past dead nodes fast):
  // nobody dies here, and a starved tab's long tasks would fail the short one, its peers
  // closing every link to it as no tab would (and HostSim has no lone peer's search,
  // bootstrap/peer-finder.ts, so it stayed alone: its player never saw another edit).
  const sim = new HostSim({ seed: o.seed, dht: { rpcTimeoutMs: DHT_DEFAULTS.rpcTimeoutMs, ...o.dht }, ...(o.host ? { host: o.host } : {}) });
  try {
    await sim.grow(o.peers ?? 5);
    for (const p of sim.live()) await sim.settle(p.client.subscribe(R));
    await sim.run(3000);
    const primary = sim.primaryOf(R);
    if (!primary) throw new Error('no primary before the spell');
    const editors = sim.live().filter((p) => p !== primary).slice(0, o.editors ?? 2);
    const regions = o.border ? [R, B] : [R];
    if (o.border) {
      for (const p of editors) await sim.settle(p.client.subscribe(B));
      await sim.run(3000);
    }
    const ledger = new EditLedger(sim);
    let n = 0;
    const edit = () => {
      for (const r of regions) {
        for (const p of editors) {
          const i = n++;
          const x = r.rx * REGION_BLOCKS + 2 + (i % 50), y = 100 + Math.floor(i / 50) % 60, z = r.rz * REGION_BLOCKS + 6;
          const id = ledger.freshId(r, keyOf(x, y, z));
          if (id !== undefined) ledger.submit(p, r, x, y, z, id);
        }
      }
    };
    // The walkers: each in the second region every other crossMs, half of them out of step.
    const walkers = o.border ? sim.live().filter((p) => !editors.includes(p)) : [];
    let crossings = 0, crossingsUnattached = 0;
    const cross = (t: number) => {
      const c = o.border!.crossMs;
      walkers.forEach((p, i) => {
        const phase = Math.floor((t + (i % 2) * c) / c) % 2;
        const inside = p.client.state(B) !== undefined;
        if (phase === 0 && !inside) {
          crossings++;
          void p.client.subscribe(B);
        } else if (phase === 1 && inside) {
          if (!p.client.isReady(B)) crossingsUnattached++;
          p.client.unsubscribe(B);
        }
      });
    };
    const stat = (k: 'silenceClaims' | 'claims' | 'claimsFailed' | 'takeovers' | 'stepDowns' | 'reconfigs') => sim.live().reduce((s, p) => s + p.host.stats[k], 0);
    const refused = () => sim.live().reduce((s, p) => s + p.client.stats.uncertified, 0);
    const base = { silenceClaims: stat('silenceClaims'), claims: stat('claims'), claimsFailed: stat('claimsFailed'), takeovers: stat('takeovers'), stepDowns: stat('stepDowns'), reconfigs: stat('reconfigs'), refusals: refused() };
    const primaries = [primary.hex];
    let gaps = 0, gapFrom = -1, longestGapMs = 0;
    const step = async (ms: number, editing: boolean) => {
      const editMs = o.editMs ?? 250;
      for (let t = 0; t < ms; t += 50) {
        if (editing && t % editMs === 0) edit();
        if (editing && o.border && t % o.border.crossMs === 0) cross(sim.clock.now());
        await sim.run(50);
        const now = sim.primaryOf(R)?.hex;
        if (!now) {
          if (gapFrom < 0) {
            gapFrom = sim.clock.now();
            gaps++;
          }
        } else {
          if (gapFrom >= 0) longestGapMs = Math.max(longestGapMs, sim.clock.now() - gapFrom);
          gapFrom = -1;
          if (now !== primaries.at(-1)) primaries.push(now);
        }
      }
    };
    await step(2000, true);
    for (const p of o.starveAll ? sim.live() : [primary]) sim.starve(p.hex, o.starveMs ?? 20_000, o.minMs ?? 50, o.maxMs ?? 400);
    await step(o.starveMs ?? 20_000, true);
    await step(5000, true);
    const figures = {
      silenceClaims: stat('silenceClaims') - base.silenceClaims,
      claims: stat('claims') - base.claims,
      claimsFailed: stat('claimsFailed') - base.claimsFailed,
      takeovers: stat('takeovers') - base.takeovers,
      stepDowns: stat('stepDowns') - base.stepDowns,
      reconfigs: stat('reconfigs') - base.reconfigs,
      refusals: refused() - base.refusals,
    };
    // The world settles: no edits, every subscriber catches up (a walker in the second region too).
    if (o.border) for (const p of sim.live()) void p.client.subscribe(B);
    await step(10_000, false);
    if (gapFrom >= 0) longestGapMs = Math.max(longestGapMs, sim.clock.now() - gapFrom);
    const unseen: string[] = [], reapplied: string[] = [];
    for (const r of regions) {
      const name = regionName(r);
      for (const p of sim.live()) {
        const state = p.client.state(r);
        if (!state) {
          unseen.push(`${p.hex.slice(0, 6)}: no state of ${name}`);
          continue;
        }
        unseen.push(...ledger.missing(name, (k) => state.get(k)).map((f) => `at ${p.hex.slice(0, 6)}: ${f.text}`));
        reapplied.push(...ledger.reapplied(name, (k) => state.get(k)).map((v) => `at ${p.hex.slice(0, 6)}: ${v}`));
      }
    }
    o.inspect?.(sim);
    return {
      ...figures,
      failovers: primaries.length - 1,
      primaries: primaries.map((h) => h.slice(0, 6)),
      gaps,
      longestGapMs,
      confirmed: ledger.confirmed().length,
      unseen,
      reapplied,
      doublePrimaries: sim.doublePrimaries(),
      crossings,
      crossingsUnattached,
    };
  } finally {
    sim.stopAll();
  }
}
