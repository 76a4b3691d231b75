// Keeping the buckets filled: a bucket no lookup went into for `refreshMs` gets a lookup
// of a random id in it (Kademlia's refresh); empty buckets above our lowest non-empty one
// are looked into every `emptyRefreshMs`, so a node that joined a small network learns of
// the far halves that filled in since (greedy routing needs a link in every non-empty
// bucket). The join uses the same lookups for the far buckets, or with joinRefresh
// 'probe' one FIND_NODE per empty bucket (`probeEmptyBuckets`).
import type { Clock } from '../core/clock';
import { every } from '../core/clock';
import { bucketIndex, ID_BITS, type NodeId } from '../core/node-id';
import type { DhtOptions } from './dht-options';
import type { Lookup } from './lookups';
import type { RoutingTable } from './routing-table';
import type { Call } from './rpc';

/** Contacts the buckets under an empty one must hold before it is worth a lookup. */
const EMPTY_WORTH_BELOW = 3;

/**
 * The buckets to look into, from our lowest non-empty one up: on a join all but that
 * lowest one, else those not looked into for refreshMs; `onlyEmpty`: up to the top, the
 * empty ones whose lower buckets hold a few contacts (each bucket spans as much id space
 * as all those under it together).
 */
export function bucketsToRefresh(table: RoutingTable, now: number, refreshMs: number, joining: boolean, onlyEmpty: boolean): number[] {
  const nonEmpty = table.nonEmptyBuckets();
  if (nonEmpty.length === 0) return [];
  const lowest = nonEmpty[0]!;
  const highest = onlyEmpty ? ID_BITS - 1 : nonEmpty[nonEmpty.length - 1]!;
  const out: number[] = [];
  let below = 0; // contacts in buckets under b
  for (let b = lowest; b <= highest; b++) {
    const size = table.bucket(b).length;
    const skip =
      (joining && b === lowest) ||
      (!joining && now - table.touchedAt(b) < refreshMs) ||
      (onlyEmpty && (size > 0 || below < EMPTY_WORTH_BELOW));
    below += size;
    if (!skip) out.push(b);
  }
  return out;
}

/** A random id in our bucket b: it shares our bits above b and differs at bit b. */
export function randomIdInBucket(selfId: NodeId, b: number, random: () => number): NodeId {
  const id = new Uint8Array(selfId);
  for (let bit = 0; bit <= b; bit++) {
    const byte = id.length - 1 - (bit >> 3);
    const mask = 1 << (bit & 7);
    const flip = bit === b || random() < 0.5;
    if (flip) id[byte]! ^= mask;
  }
  return id;
}

export interface BucketRefreshDeps {
  selfId: NodeId;
  clock: Clock;
  opts: Pick<DhtOptions, 'refreshMs' | 'emptyRefreshMs' | 'linksPerBucket' | 'random'>;
  table: RoutingTable;
  lookup: Lookup;
  call: Call;
  /** Adds a contact another node named (contacts.ts `learn`). */
  learn(id: NodeId): void;
}

export class BucketRefresh {
  private stops: (() => void)[] = [];

  constructor(private readonly deps: BucketRefreshDeps) {}

  start(): void {
    if (this.stops.length > 0) return;
    const opts = this.deps.opts;
    this.stops.push(every(this.deps.clock, Math.max(1000, opts.refreshMs / 4), () => void this.refresh(false)));
    this.stops.push(every(this.deps.clock, opts.emptyRefreshMs, () => void this.refresh(true, true)));
  }

  stop(): void {
    for (const s of this.stops) s();
    this.stops = [];
  }

  /** Looks up a random id in each bucket due (see bucketsToRefresh). */
  async refresh(joining: boolean, onlyEmpty = false): Promise<void> {
    const { deps } = this;
    if (this.stops.length === 0) return; // stopped
    const due = bucketsToRefresh(deps.table, deps.clock.now(), deps.opts.refreshMs, joining, onlyEmpty);
    await Promise.all(due.map((b) => deps.lookup(randomIdInBucket(deps.selfId, b, deps.opts.random)).catch(() => {})));
  }

  /** One FIND_NODE per empty far bucket, to the contact closest to a random id in it; its answer is learnt. */
  async probeEmptyBuckets(): Promise<void> {
    const { deps } = this;
    const jobs: Promise<unknown>[] = [];
    for (const b of bucketsToRefresh(deps.table, deps.clock.now(), deps.opts.refreshMs, true, true)) {
      const target = randomIdInBucket(deps.selfId, b, deps.opts.random);
      const to = deps.table.closest(target, 1)[0];
      if (!to) continue;
      deps.table.touch(b, deps.clock.now());
      const ask = deps.call(to.id, to.hex, { t: 'FIND_NODE', target }).then((m) => {
        if (m.t !== 'NODES') return;
        const found = m.nodes.filter((id) => bucketIndex(deps.selfId, id) === b).slice(0, deps.opts.linksPerBucket + 1);
        for (const id of found) deps.learn(id);
      });
      jobs.push(ask.catch(() => {}));
    }
    await Promise.all(jobs);
  }
}
