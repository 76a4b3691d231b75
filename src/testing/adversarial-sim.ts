// The adversarial DHT simulation: N real DHT nodes of which a seeded share
// is hostile (hostile-dht.ts: eclipse answers, dropped and misrouted routed messages,
// forged and replayed records, a STORE flood of forged records). Measured, in one run:
// - FIND_NODE lookups between honest nodes, on a network left alone and while nodes are
//   replaced (churn-lookups.ts);
// - reads of signed records (sim-records.ts, a player record's stand-in): each owner put
//   version 1, the crew kept it for replays, the owner put version 2, the crew flooded
//   forged ones; every key is then read by honest nodes with one lookup path (before the
//   defence) and with `valuePaths` disjoint paths (after: src/dht/lookup.ts);
// - reads of region location records (sim-locations.ts: real certificates, epochs 1 and 2,
//   the crew replaying epoch 1) with one path and with the product's `disjointReads`;
// - forged records accepted: reads that returned bytes no owner signed, plus forged
//   records held by honest nodes. Judged against the owners' own bytes, not by the rule.
import { hexToId, idToHex, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { DHT_DEFAULTS } from '../dht/dht-options';
import type { DhtNode, DhtOptions } from '../dht/dht-node';
import type { LookupResult } from '../dht/lookup';
import type { Namespace } from '../dht/messages';
import { sameBytes as same } from '../dht/value-store';
import { lookupsDuringChurn } from './churn-lookups';
import { HostileCrew, type HostileCounts, type HostileOptions } from './hostile-dht';
import { LARGE_SIM_DHT, SimCluster } from './sim-cluster';
import { SimKeyring } from './sim-keyring';
import { putSimLocations, simLocationRule } from './sim-locations';
import { signSimRecord, simRecordRule } from './sim-records';
import { percentile } from '../core/percentile';

export interface AdversarialOptions extends Partial<HostileOptions> {
  nodes: number;
  /** Share of nodes that are hostile (also of the newcomers during churn). */
  hostileShare: number;
  seed?: number;
  lookups?: number;
  /** Signed records put (one per owner) and read. */
  records?: number;
  /**
   * Reads of each key per read phase, each by another random honest reader (default 1).
   * Reads do not cache along their path (values.ts get), so each is a sample of its own:
   * 100 keys read once give a share whose spread between seeds (~0.04) is as wide as the
   * gaps the CI test asserts.
   */
  readsPerKey?: number;
  /** Regions whose location records are put (epochs 1 and 2) and read (default 0: skipped). */
  regions?: number;
  /** Forged records each hostile node puts. */
  floodPerNode?: number;
  /** Share of the nodes replaced during the churn lookups (0: skip that phase). */
  churn?: number;
  /** Disjoint paths of the defended reads (default the product's, 3). */
  paths?: number;
  /** FIND_NODE paths (default the product's, 1). */
  nodePaths?: number;
  /**
   * The crew lies from the first join on (default: it behaves until the network formed,
   * then attacks; newcomers during churn still join under attack). See the README: a
   * network grown among liars from its first node is not defended.
   */
  attackFromStart?: boolean;
  /** Random joined nodes a newcomer bootstraps off (default the app's, 4: sim-cluster.ts). */
  bootstrapPeers?: number;
  /** A lookup during churn that missed (tracing). */
  onChurnMiss?: (c: SimCluster, target: DhtNode, res: LookupResult, from: DhtNode, hostile: (hex: string) => boolean) => void;
  /** DHT options over LARGE_SIM_DHT (to measure a defence on and off). */
  dht?: Partial<DhtOptions>;
  log?: (line: string) => void;
}

export interface ReadFigures {
  /** Reads made (keys x readsPerKey). */
  reads: number;
  /** Share of reads that returned the owner's newest record. */
  success: number;
  /** Reads that returned an older record the owner signed (a replay taken). */
  stale: number;
  /** Reads that returned nothing. */
  missing: number;
  /** Reads that returned bytes no owner signed. */
  forged: number;
  /** Lookup RPCs per read (network-wide over the phase, so upkeep lookups are in). */
  rpcs: number;
  /** Virtual ms per read: p50, p95. */
  msP50: number;
  msP95: number;
}

export interface AdversarialFigures {
  nodes: number;
  hostile: number;
  lookupSuccess: number;
  lookupsCounted: number;
  /** Lookup RPCs per FIND_NODE lookup, and link messages per lookup network-wide (routed hops, direct frames; upkeep of the phase included), left alone. */
  lookupRpcs: number;
  messagesPerLookup: number;
  churnLookupSuccess: number | null;
  churnLookupsCounted: number;
  /** Lookup RPCs per counted lookup during churn. */
  churnLookupRpcs: number;
  before: ReadFigures;
  after: ReadFigures;
  /** Location record reads, one path and by the product's `disjointReads` (null: no regions). */
  locationsBefore: ReadFigures | null;
  locationsAfter: ReadFigures | null;
  /** Reads returning forged bytes (both phases) + forged records held by honest nodes. */
  forgedAccepted: number;
  /** STOREs honest nodes refused by the owner rule (the forged flood). */
  forgedRefused: number;
  crew: HostileCounts;
  wallSeconds: number;
}

export async function runAdversarialSim(o: AdversarialOptions): Promise<AdversarialFigures> {
  const t0 = performance.now();
  const log = o.log ?? (() => {});
  const seed = o.seed ?? 42;
  const keyring = new SimKeyring(`adversarial ${seed}`);
  const crew = new HostileCrew({ dropShare: o.dropShare ?? 0.5, misrouteShare: o.misrouteShare ?? 0.5 }, seededRandom(seed * 31 + 5));
  const draw = seededRandom(seed * 17 + 3);
  const c = new SimCluster({
    seed,
    net: { latencyMs: 20, jitterMs: 5 },
    dht: { ...LARGE_SIM_DHT, records: { player: simRecordRule(keyring), chunk: simLocationRule(keyring) }, ...(o.nodePaths ? { nodePaths: o.nodePaths } : {}), ...o.dht },
    variant: (id) => (draw() < o.hostileShare ? crew.variant(id, ['player', 'chunk']) : undefined),
    bootstrapPeers: o.bootstrapPeers ?? 4,
  });
  const honest = (n: DhtNode) => !crew.isHostile(n.selfHex);
  const phase = (name: string) => log(`${name} (${((performance.now() - t0) / 1000).toFixed(1)} s wall, ${(c.clock.now() / 1000).toFixed(0)} s virtual)`);

  crew.active = o.attackFromStart ?? false;
  await c.grow(o.nodes, { maxBatch: Math.max(100, Math.round(o.nodes / 10)) });
  await c.run(30_000);
  crew.active = true;
  phase(`joined ${c.size} nodes, ${crew.members.size} hostile`);

  const lookups = o.lookups ?? 1000;
  const sent0 = sumStats(c, linkMessages);
  const quiet = await lookupsDuringChurn(c, { lookups, replace: 0, spanMs: 20_000, eligible: honest });
  const messagesPerLookup = (sumStats(c, linkMessages) - sent0) / Math.max(1, quiet.counted);
  phase(`lookups: success ${quiet.success} of ${quiet.counted}`);

  // Signed records: version 1, kept by the crew for replays, then version 2.
  const owners = [...c.nodes.values()].filter((n) => honest(n) && c.joinedAt.has(n.selfHex)).slice(0, o.records ?? 300);
  const latest = new Map<string, { v1: Uint8Array; v2: Uint8Array }>();
  for (const version of [1, 2]) {
    await c.settle(
      Promise.all(
        owners.map(async (n) => {
          const bytes = await signSimRecord(keyring, n.selfId, version, new TextEncoder().encode(`${n.selfHex.slice(0, 8)} v${version}`));
          const held = latest.get(n.selfHex);
          if (held) held.v2 = bytes;
          else latest.set(n.selfHex, { v1: bytes, v2: bytes });
          if (version === 1) crew.stale.set(n.selfHex, bytes);
          await n.put('player', n.selfId, bytes);
        }),
      ),
    );
  }
  const keys: NodeId[] = owners.map((n) => n.selfId);
  await c.settle(crew.floodForged([...c.nodes.values()], 'player', keys, o.floodPerNode ?? 5));
  phase(`${owners.length} records put twice, ${crew.counts.forgedPuts} forged puts`);

  // Every key read once by a random honest node (`configure` sets its paths), 100 at a time.
  const readPhase = async (ns: Namespace, wanted: Map<string, { v1: Uint8Array; v2: Uint8Array }>, configure: (reader: DhtNode) => void): Promise<ReadFigures> => {
    const all = [...wanted.keys()].flatMap((hex) => Array.from({ length: o.readsPerKey ?? 1 }, () => hexToId(hex)));
    const rpcs0 = sumStats(c, (n) => n.stats.lookupRpcs);
    const times: number[] = [];
    let success = 0;
    let stale = 0;
    let missing = 0;
    let forged = 0;
    for (let i = 0; i < all.length; i += 100) {
      const jobs = all.slice(i, i + 100).map(async (key) => {
        const reader = [...Array(100)].map(() => c.pick()).find((n) => honest(n) && n.selfHex !== idToHex(key))!;
        configure(reader);
        const t = c.clock.now();
        const got = await reader.get(ns, key);
        times.push(c.clock.now() - t);
        const want = wanted.get(idToHex(key))!;
        if (!got) missing++;
        else if (same(got.value, want.v2)) success++;
        else if (same(got.value, want.v1)) stale++;
        else forged++;
      });
      await c.settle(Promise.all(jobs));
    }
    for (const n of c.nodes.values()) Object.assign(n.opts, { valuePaths: o.paths ?? 3, disjointReads: disjointDefault });
    const reads = all.length;
    return { reads, success: success / reads, stale, missing, forged, rpcs: (sumStats(c, (n) => n.stats.lookupRpcs) - rpcs0) / reads, msP50: times.length ? percentile(times, 0.5) : 0, msP95: times.length ? percentile(times, 0.95) : 0 };
  };
  const disjointDefault = o.dht?.disjointReads ?? DHT_DEFAULTS.disjointReads;
  const before = await readPhase('player', latest, (r) => (r.opts.valuePaths = 1));
  phase(`reads, one path: ${JSON.stringify(before)}`);
  const after = await readPhase('player', latest, (r) => (r.opts.valuePaths = o.paths ?? 3));
  phase(`reads, ${o.paths ?? 3} disjoint paths: ${JSON.stringify(after)}`);

  // Region location records: one path, then as the product reads them (`disjointReads`).
  let locationsBefore: ReadFigures | null = null;
  let locationsAfter: ReadFigures | null = null;
  if (o.regions) {
    const hosts = [...c.nodes.values()].filter((n) => honest(n) && c.joinedAt.has(n.selfHex));
    // A stream of its own: the churn phase's draws (who joins hostile) stay those of a run without regions.
    const regions = await c.settle(putSimLocations(keyring, hosts, o.regions, seededRandom(seed * 13 + 11), crew.stale));
    const byKey = new Map(regions.map((x) => [idToHex(x.key), x]));
    locationsBefore = await readPhase('chunk', byKey, (r) => (r.opts.disjointReads = disjointDefault.filter((ns) => ns !== 'chunk')));
    phase(`location reads, one path: ${JSON.stringify(locationsBefore)}`);
    locationsAfter = await readPhase('chunk', byKey, (r) => (r.opts.disjointReads = disjointDefault));
    phase(`location reads, disjointReads ${disjointDefault.join(',')}: ${JSON.stringify(locationsAfter)}`);
  }

  let forgedHeld = 0;
  let forgedRefused = 0;
  const now = c.clock.now();
  for (const n of c.nodes.values()) {
    if (!honest(n)) continue;
    forgedRefused += n.stats.storeRefused.invalid;
    for (const key of keys) {
      const held = n.store.get('player', idToHex(key), now);
      const want = latest.get(idToHex(key))!;
      if (held && !same(held.value, want.v1) && !same(held.value, want.v2)) forgedHeld++;
    }
  }

  let churnLookupSuccess: number | null = null;
  let churnLookupsCounted = 0;
  let churnLookupRpcs = 0;
  if (o.churn && o.churn > 0) {
    const churned = await lookupsDuringChurn(c, {
      lookups,
      replace: Math.round(o.churn * o.nodes),
      spanMs: 60_000,
      eligible: honest,
      onKill: (hex) => crew.leave(hex),
      onMiss: (t, res, from) => o.onChurnMiss?.(c, t, res, from, (hex) => crew.isHostile(hex)),
    });
    churnLookupSuccess = churned.success;
    churnLookupsCounted = churned.counted;
    churnLookupRpcs = churned.rpcs;
    phase(`lookups during churn: success ${churned.success} of ${churned.counted}, ${churned.killed} replaced`);
  }

  const figures: AdversarialFigures = {
    nodes: o.nodes,
    hostile: crew.members.size,
    lookupSuccess: quiet.success,
    lookupsCounted: quiet.counted,
    lookupRpcs: quiet.rpcs,
    messagesPerLookup,
    churnLookupSuccess,
    churnLookupsCounted,
    churnLookupRpcs,
    before,
    after,
    locationsBefore,
    locationsAfter,
    forgedAccepted: before.forged + after.forged + (locationsBefore?.forged ?? 0) + (locationsAfter?.forged ?? 0) + forgedHeld,
    forgedRefused,
    crew: { ...crew.counts },
    wallSeconds: (performance.now() - t0) / 1000,
  };
  c.stopAll();
  return figures;
}

function sumStats(c: SimCluster, f: (n: DhtNode) => number): number {
  let s = 0;
  for (const n of c.nodes.values()) s += f(n);
  return s;
}

/** Frames a node put on its links (its own and those it forwarded). */
function linkMessages(n: DhtNode): number {
  return n.stats.framesOut;
}
