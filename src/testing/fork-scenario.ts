// The fork sequence (a host restarted alone must not fork a region), on the simulator with
// silent deaths. Region R has hosts A (closest to its key: the primary), B and C, and an
// editor E. A dies; B wins the next epoch; E edits block K twice (confirmed); everyone
// stops. A comes back alone (or with one brand-new node D) and edits K: it must not be
// confirmed, since neither A nor A + D is a majority of the last certified set. Then B, C
// and E come back, A re-submits its edit (as the tentative-edit path of play/ does) and
// every confirmed edit must be kept, in one order, on every host and subscriber. Run by
// hosting-fork.test.ts and `npm run bench -- sim_safety` (sim_fork_lost_edits).
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { BRICK, GLASS, PLANKS, STONE } from '../world/blocks';
import { HostSim, simKeyHash, type SimPeer } from './host-sim';
import { REGION_BLOCKS, regionName, RegionKeys, type RegionCoord } from '../region/region-key';
import type { Entry } from '../region/region-state';
import { EditLedger, label, primaryViolations, restart, type EditRecord, type Outcome, type Violation } from './edit-ledger';

export const FORK_REGION: RegionCoord = { rx: 2, rz: -1 };
const R = FORK_REGION;
const NAME = regionName(R);
const K = { x: R.rx * REGION_BLOCKS + 5, y: 120, z: R.rz * REGION_BLOCKS + 7 };

export interface ForkOptions {
  seed: number;
  /** Who comes back with A before B and C: nobody, or one node that never hosted R. */
  withNewNode?: boolean;
  /**
   * How long A (and D) stay on their own, virtual ms: A tries its edit at once and, while
   * that is not confirmed, 2 s after each answer (an 'uncertified' comes at once, a timeout
   * after 5 s). Default 20 s, past rebaseMs (10 s).
   */
  aloneMs?: number;
  /**
   * Between E's two edits in B's epoch, C dies silently and comes back this many times:
   * each time the set changes twice (two epochs), so B's chain ends at a higher epoch
   * than a lone A's certificate would take. Default 0.
   */
  cycles?: number;
}

export interface ForkResult {
  seed: number;
  withNewNode: boolean;
  /** E's edits of K before the stop (v0 by A at e1; v1 and v2 by B's epoch). */
  before: { id: number; stamp: string; outcome: Outcome }[];
  /** Outcomes of A's edit tries while on its own, and whether A or D was primary of R meanwhile. */
  alone: Outcome[];
  aloneCertified: boolean;
  /** K at the primary once B and C are back, before A re-submits. */
  kAfterRejoin: string;
  /** A's re-submission. */
  resubmit: Outcome;
  /** K on every host and subscriber at the end, and the value of the last confirmed edit. */
  finalK: string[];
  lastConfirmed: string;
  /** Confirmed edits lost or reordered (property c), edits applied twice (d), on any holder. */
  lost: Violation[];
  /** How many confirmed edits some holder lost or holds out of order (sim_fork_lost_edits). */
  lostEdits: number;
  reapplied: Violation[];
  /** Epochs with two primaries; older epochs confirming after newer ones. */
  doublePrimaries: Violation[];
  leaseOverlaps: Violation[];
  /** Hosts and subscribers that differ from the primary's state. */
  diverged: string[];
  primaries: string[];
}

const show = (e: Entry | undefined) => (e ? `${e.id}@e${e.e}s${e.s}` : 'none');

async function outcome(sim: HostSim, r: { rec: EditRecord; done: Promise<void> }, maxMs = 12_000): Promise<Outcome> {
  await sim.clock.runUntil(() => r.rec.outcome !== 'pending', maxMs);
  return r.rec.outcome;
}

/** Submits until confirmed (each try a new request, like a tentative edit retried), up to `tries`. */
async function confirmEdit(sim: HostSim, ledger: EditLedger, p: SimPeer, id: number, tries = 15, retry = false): Promise<EditRecord> {
  let last: EditRecord | undefined;
  for (let i = 0; i < tries; i++) {
    const r = ledger.submit(p, R, K.x, K.y, K.z, id, { retry: retry || i > 0 });
    last = r.rec;
    if ((await outcome(sim, r)) === 'confirmed') return r.rec;
    await sim.run(500);
  }
  return last!;
}

export async function runForkScenario(opts: ForkOptions): Promise<ForkResult> {
  const { seed } = opts;
  const withNewNode = opts.withNewNode ?? false;
  const sim = new HostSim({ seed });
  const key = await new RegionKeys(sim.world, simKeyHash).key(R);
  // A, B, C: ids differing from the key in one low bit of bytes 19, 18, 17, so they are
  // the three closest to it of any node; E is anywhere.
  const near = (byte: number): NodeId => {
    const id = new Uint8Array(key);
    id[byte]! ^= 1;
    return id;
  };
  const [idA, idB, idC] = [near(19), near(18), near(17)];
  const idE = randomId(sim.rand);
  const A0 = await sim.add(idA);
  await sim.add(idB);
  await sim.add(idC);
  let E = await sim.add(idE);
  await sim.settle(E.client.subscribe(R), 30_000);
  await sim.run(1000);
  const ledger = new EditLedger(sim);
  const primaryOf = () => sim.primariesOf(NAME);
  const first = primaryOf().map((p) => p.hex);
  if (first.length !== 1 || first[0] !== A0.hex) throw new Error(`setup: expected A primary, got ${first.join(',')}`);

  // v0 by A at its epoch; then A dies silently; B's epoch gets v1 and v2.
  const before: EditRecord[] = [await confirmEdit(sim, ledger, E, STONE)];
  sim.kill(A0.hex);
  before.push(await confirmEdit(sim, ledger, E, BRICK));
  for (let i = 0; i < (opts.cycles ?? 0); i++) {
    sim.kill(idToHex(idC));
    await sim.run(5000);
    await restart(sim, idC);
    await sim.run(7000);
  }
  before.push(await confirmEdit(sim, ledger, E, GLASS));
  await sim.run(3000);
  sim.stopAll();
  await sim.run(2000);

  // A alone (or with D): its edit of K must not be confirmed.
  const A = await sim.add(idA);
  if (withNewNode) await sim.add(randomId(sim.rand));
  const alone: Outcome[] = [];
  let aloneCertified = false;
  const aloneEnd = sim.clock.now() + (opts.aloneMs ?? 20_000);
  // A's edit of K (PLANKS), tried again every 2 s while it is not confirmed.
  while (sim.clock.now() < aloneEnd && !ledger.confirmed().some((e) => e.id === PLANKS)) {
    const r = ledger.submit(A, R, K.x, K.y, K.z, PLANKS, { retry: alone.length > 0 });
    alone.push(await outcome(sim, r));
    aloneCertified ||= primaryOf().length > 0;
    await sim.run(2000);
    aloneCertified ||= primaryOf().length > 0;
  }

  // B, C and E come back; E subscribes again.
  await sim.add(idB);
  await sim.run(500);
  await sim.add(idC);
  await sim.run(500);
  E = await sim.add(idE);
  const attached = [E, A].map((p) => p.client.subscribe(R));
  await sim.settle(Promise.all(attached), 60_000).catch(() => {});
  await sim.run(8000);
  const kAfterRejoin = primaryOf().map((p) => show(p.host.regionState(R)!.state.get(ledger.edits[0]!.key))).join(' | ') || 'no primary';

  // A re-submits its edit, as the tentative-edit path does when it rejoins (a new edit if
  // the lone A got its edit confirmed after all).
  const forked = ledger.confirmed().some((e) => e.id === PLANKS);
  const re = await confirmEdit(sim, ledger, A, forked ? ledger.freshId(R, ledger.edits[0]!.key, 7)! : PLANKS, 15, !forked);
  await sim.run(5000);

  const hosts = sim.live().filter((p) => p.host.regionState(R)?.role === 'primary' || p.host.regionState(R)?.role === 'backup');
  const holders: [string, (k: number) => Entry | undefined, string][] = [
    ...hosts.map((p): [string, (k: number) => Entry | undefined, string] => {
      const s = p.host.regionState(R)!;
      return [`host ${label(p.hex)} (${s.role} e${s.epoch})`, (k) => s.state.get(k), s.state.fingerprint()];
    }),
    ...[A, E].map((p): [string, (k: number) => Entry | undefined, string] => [`subscriber ${label(p.hex)}`, (k) => p.client.state(R)?.get(k), p.client.state(R)?.fingerprint() ?? '']),
  ];
  const findings = holders.flatMap(([who, get]) => ledger.missing(NAME, get).map((f) => ({ ...f, text: `${who}: ${f.text}` })));
  const lost = findings.map((f) => f.text);
  const reapplied = holders.flatMap(([who, get]) => ledger.reapplied(NAME, get).map((v) => `${who}: ${v}`));
  const prim = primaryOf();
  const ref = prim.length === 1 ? prim[0]!.host.regionState(R)!.state.fingerprint() : undefined;
  const diverged = holders.filter(([, , fp]) => fp !== ref).map(([who]) => who);
  const { a, b } = primaryViolations(sim);
  const done = ledger.confirmed(NAME).sort((x, y) => x.confirmedAt! - y.confirmedAt!);
  const last = done[done.length - 1];
  const result: ForkResult = {
    seed, withNewNode,
    before: before.map((r) => ({ id: r.id, stamp: r.stamp ? `e${r.stamp.e}s${r.stamp.s}` : '-', outcome: r.outcome })),
    alone, aloneCertified, kAfterRejoin, resubmit: re.outcome,
    finalK: holders.map(([who, get]) => `${who}: ${show(get(ledger.edits[0]!.key))}`),
    lastConfirmed: last ? `${last.id}@e${last.stamp!.e}s${last.stamp!.s}` : 'none',
    lost, lostEdits: new Set(findings.map((f) => f.edit)).size, reapplied, doublePrimaries: a, leaseOverlaps: b, diverged,
    primaries: prim.map((p) => label(idToHex(p.dht.selfId))),
  };
  sim.stopAll();
  return result;
}
