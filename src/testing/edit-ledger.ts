// What the simulated editors submitted and what the hosts confirmed, and the safety checks
// of region authority over it: the fork sequence (fork-scenario.ts) and the seeded property test
// (safety-scenario.ts) share them. Node only (the simulator harness); product code never
// imports src/testing/.
//
// Every edit of one block sets a block id no earlier edit of that block set, so the id a
// state holds names the edit it came from (at most PLACEABLE.length edits per block). A
// retry (a new request for an edit that was not confirmed, as play/ retries a tentative
// edit) sets the same id again: the tries of one edit count as one.
import { PLACEABLE } from '../world/blocks';
import { chunkOf, localOf } from '../world/coords';
import type { NodeId } from '../core/node-id';
import type { HostSim, SimPeer } from './host-sim';
import { EditRejectedError } from '../play/region-client';
import { columnIndex, regionName, type RegionCoord } from '../region/region-key';
import { compareStamp, entryKey, type Entry, type Stamp } from '../region/region-state';

export type Outcome = 'pending' | 'confirmed' | 'timeout' | `rejected:${string}`;

export interface EditRecord {
  region: string;
  key: number;
  id: number;
  editor: string;
  submittedAt: number;
  outcome: Outcome;
  stamp?: Stamp;
  confirmedAt?: number;
}

/** Something a check found wrong, in words. */
export type Violation = string;

/** A confirmed edit a holder lost (or holds in the wrong order), and why. */
export interface Finding {
  edit: EditRecord;
  text: string;
}

export const keyOf = (x: number, y: number, z: number): number => entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), y, localOf(z));

/**
 * Starts node `id` again (its host store kept), as a reloaded tab does: a join that fails
 * (its bootstrap link closed while a silently dead incarnation's link was still open at the
 * other end) is tried again a second later.
 */
export async function restart(sim: HostSim, id: NodeId, tries = 10): Promise<SimPeer> {
  for (let i = 0; ; i++) {
    try {
      return await sim.add(id);
    } catch (err) {
      sim.net.kill(id, { silent: true });
      if (i + 1 >= tries) throw err;
      await sim.run(1000);
    }
  }
}

/** A node id in logs: ids of hosts near one key share their first bytes, so both ends. */
export const label = (hex: string): string => `${hex.slice(0, 4)}..${hex.slice(-4)}`;

const fmt = (s: Stamp | undefined) => (s ? `e${s.e}s${s.s}` : '-');

export class EditLedger {
  readonly edits: EditRecord[] = [];
  private readonly used = new Map<string, Set<number>>();

  constructor(private readonly sim: HostSim) {}

  /** A block id no edit of this block used yet (undefined when all are used). */
  freshId(region: RegionCoord, key: number, prefer = 0): number | undefined {
    const used = this.used.get(`${regionName(region)}:${key}`);
    for (let i = 0; i < PLACEABLE.length; i++) {
      const id = PLACEABLE[(prefer + i) % PLACEABLE.length]!;
      if (!used?.has(id)) return id;
    }
    return undefined;
  }

  /** Submits through p's client; the record's outcome follows the promise. `retry`: another try of an unconfirmed edit (same id). */
  submit(p: SimPeer, region: RegionCoord, x: number, y: number, z: number, id: number, opts: { retry?: boolean } = {}): { rec: EditRecord; done: Promise<void> } {
    const key = keyOf(x, y, z);
    const tag = `${regionName(region)}:${key}`;
    let used = this.used.get(tag);
    if (!used) this.used.set(tag, (used = new Set()));
    const tried = this.edits.filter((e) => e.region === regionName(region) && e.key === key && e.id === id);
    if (opts.retry ? tried.some((e) => e.outcome === 'confirmed') : used.has(id)) throw new Error(`block ${tag} already had an edit to ${id}`);
    used.add(id);
    const rec: EditRecord = { region: regionName(region), key, id, editor: p.hex, submittedAt: this.sim.clock.now(), outcome: 'pending' };
    this.edits.push(rec);
    const done = p.client.submit(x, y, z, id, { x: x + 2, y, z: z + 2 }).then(
      (stamp) => {
        rec.outcome = 'confirmed';
        rec.stamp = stamp;
        rec.confirmedAt = this.sim.clock.now();
      },
      (err: unknown) => {
        // 'uncertified' after the edit left (a host we asked cannot certify, while another may
        // have ordered it) says "not confirmed", not "refused": the player keeps it tentative
        // and sends it again; its outcome is unknown, like a timeout's.
        rec.outcome = err instanceof EditRejectedError && err.reason !== 'uncertified' ? `rejected:${err.reason}` : 'timeout';
      },
    );
    return { rec, done };
  }

  confirmed(region?: string): EditRecord[] {
    return this.edits.filter((e) => e.outcome === 'confirmed' && (!region || e.region === region));
  }

  /** Per block of `region`: its edits in submission order. */
  private blocks(region: string): Map<number, EditRecord[]> {
    const out = new Map<number, EditRecord[]>();
    for (const e of this.edits) {
      if (e.region !== region) continue;
      let list = out.get(e.key);
      if (!list) out.set(e.key, (list = []));
      list.push(e);
    }
    return out;
  }

  /**
   * Property (c), for one holder's state of `region`: every confirmed edit is there (the
   * block holds its stamp and id, or a higher stamp). And one order: an edit confirmed
   * before another edit of the block was submitted has the lower stamp (a fork that reuses
   * an epoch, or a lone tab that confirms, breaks this and then a merge reverts the newer).
   */
  missing(region: string, get: (key: number) => Entry | undefined): Finding[] {
    const out: Finding[] = [];
    for (const [key, list] of this.blocks(region)) {
      const held = get(key);
      const done = list.filter((e) => e.outcome === 'confirmed');
      for (const c of done) {
        const cmp = held ? compareStamp(held, c.stamp!) : -1;
        if (cmp < 0 || (cmp === 0 && held!.id !== c.id)) out.push({ edit: c, text: `${region} block ${key}: confirmed ${c.id}@${fmt(c.stamp)} missing (holds ${held ? `${held.id}@${fmt(held)}` : 'nothing'})` });
      }
      for (const a of done) {
        for (const b of done) {
          if (a.confirmedAt! < b.submittedAt && compareStamp(a.stamp!, b.stamp!) >= 0) {
            out.push({ edit: b, text: `${region} block ${key}: ${a.id}@${fmt(a.stamp)} confirmed at ${a.confirmedAt} before ${b.id} was submitted (${b.submittedAt}), yet ${b.id} got the older stamp ${fmt(b.stamp)}` });
          }
        }
      }
    }
    return out;
  }

  /**
   * Property (d), for one holder's state: no edit applies twice. The entry a block holds is
   * the highest-stamped confirmed edit of the block (with that stamp, or a later one when a
   * restarted host's OFFER had it adopted again), or an edit that never heard back (a
   * timeout: it may have landed) stamped above it; never an older confirmed edit again, never
   * an edit that was refused, never a value nobody submitted.
   */
  reapplied(region: string, get: (key: number) => Entry | undefined): Violation[] {
    const out: Violation[] = [];
    for (const [key, list] of this.blocks(region)) {
      const held = get(key);
      if (!held) continue;
      // The tries of the edit that set this id: its confirmed one if any.
      const tries = list.filter((e) => e.id === held.id);
      const from = tries.find((e) => e.outcome === 'confirmed') ?? tries.find((e) => e.outcome === 'timeout') ?? tries[0];
      const done = list.filter((e) => e.outcome === 'confirmed').sort((a, b) => compareStamp(a.stamp!, b.stamp!));
      const top = done[done.length - 1];
      const at = `${region} block ${key} holds ${held.id}@${fmt(held)}`;
      if (!from) out.push(`${at}: no edit of the block set ${held.id}`);
      else if (from.outcome.startsWith('rejected:')) out.push(`${at}: that edit was refused (${tries.map((e) => e.outcome).join(', ')})`);
      else if (from.outcome === 'confirmed' && from.id !== top!.id) out.push(`${at}: an older confirmed edit (${fmt(from.stamp)}) over the newest ${top!.id}@${fmt(top!.stamp)}`);
      else if (from.outcome !== 'confirmed' && top && compareStamp(held, top.stamp!) <= 0) out.push(`${at}: below the newest confirmed ${top.id}@${fmt(top.stamp)}`);
    }
    return out;
  }
}

/**
 * Properties (a) and (b) from the simulator's records: at most one primary orders and at
 * most one confirms per (region, epoch); and no two primaries confirm at the same moment,
 * made observable: for confirm events at t1 <= t2 by primaries p1 != p2, the epochs are
 * e1 < e2 (an older epoch never confirms once a newer one has, nor at the same instant).
 */
export function primaryViolations(sim: HostSim): { a: Violation[]; b: Violation[] } {
  const a: Violation[] = sim.doublePrimaries().map((d) => `ordered by two primaries: ${d}`);
  const by = new Map<string, Set<string>>();
  for (const c of sim.confirms) {
    const k = `${c.region}:${c.epoch}`;
    let s = by.get(k);
    if (!s) by.set(k, (s = new Set()));
    s.add(c.primary);
  }
  for (const [k, s] of by) if (s.size > 1) a.push(`confirmed by two primaries: ${k} -> ${[...s].map(label).join(',')}`);
  const b: Violation[] = [];
  const regions = new Map<string, typeof sim.confirms>();
  for (const c of sim.confirms) {
    let list = regions.get(c.region);
    if (!list) regions.set(c.region, (list = []));
    list.push(c);
  }
  for (const [region, list] of regions) {
    // Walk in time order; per instant, first compare with everything strictly earlier.
    const seen = new Map<string, { epoch: number; at: number }>(); // primary -> its highest epoch confirmed so far
    for (let i = 0; i < list.length;) {
      let j = i;
      while (j < list.length && list[j]!.at === list[i]!.at) j++;
      const now = list.slice(i, j);
      for (const c of now) {
        for (const [p, s] of seen) {
          if (p !== c.primary && s.epoch >= c.epoch) b.push(`${region}: ${label(c.primary)} confirmed e${c.epoch} at ${c.at} after ${label(p)} confirmed e${s.epoch} at ${s.at}`);
        }
        for (const d of now) if (d.primary !== c.primary && d.epoch >= c.epoch && d !== c) b.push(`${region}: ${label(c.primary)} e${c.epoch} and ${label(d.primary)} e${d.epoch} confirmed at the same instant ${c.at}`);
      }
      for (const c of now) {
        const s = seen.get(c.primary);
        if (!s || c.epoch >= s.epoch) seen.set(c.primary, { epoch: c.epoch, at: c.at });
      }
      i = j;
    }
  }
  return { a, b: [...new Set(b)] };
}
