// What the primary's commit machine (commit-machine.ts) decides, as plain data: the batches
// it orders and the effects its shell (commit-pipeline.ts) performs, in order.
import type { NodeId } from '../core/node-id';
import { encodeEntries, type Entry } from '../region/region-state';
import type { RejectReason } from '../region/subscription-messages';

export interface Batch {
  from: number;
  to: number;
  entries: Entry[];
  waiters: { id: NodeId; r: number; s: number }[];
  at: number;
  /** Enough backups hold it (its ack latency is recorded once). */
  acked?: boolean;
  /** Our signature over it (state-proofs.ts), once made: a re-sent REPLICATE carries it too. */
  sig?: Uint8Array;
}

/**
 * The REPLICATE of a batch (sent when ordered, and again to a backup being re-synced), with
 * its edit requests as (editor, request id, seq).
 */
export function replicateFrame(region: { rx: number; rz: number }, e: number, hosts: NodeId[], batch: Batch) {
  const reqs = batch.waiters.map((w): [NodeId, number, number] => [w.id, w.r, w.s]);
  return { t: 'REPLICATE' as const, ...region, e, from: batch.from, to: batch.to, entries: encodeEntries(batch.entries), hosts, reqs, ...(batch.sig ? { sig: batch.sig } : {}) };
}

/** What the shell must do, in this order. */
export type CommitEffect =
  /** REJECT to the editor. */
  | { t: 'reject'; to: NodeId; r: number; reason: RejectReason }
  /** CONFIRM to the editor: its edit holds stamp (e, s). */
  | { t: 'confirm'; to: NodeId; r: number; e: number; s: number }
  /** An edit was ordered (a test hook). */
  | { t: 'accepted'; e: number }
  /** REPLICATE the batch to every backup. */
  | { t: 'replicate'; batch: Batch }
  /** Write the region to our store, then give the machine `stored(batch)`: no CONFIRM of the batch leaves before. */
  | { t: 'persist'; batch: Batch }
  /** PENDING of the batch to the subscribers: shown at once, before its commit (never in the region state). */
  | { t: 'pending'; batch: Batch }
  /** DELTA of seqs from..to to the subscribers; the DHT records are due for publishing. */
  | { t: 'delta'; e: number; from: number; to: number; entries: Entry[]; batches: Batch[] }
  /** Confirms follow, under the lease held at `at` (a test hook). */
  | { t: 'confirming'; e: number; at: number };
