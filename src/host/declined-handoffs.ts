// Nodes a region was handed to that did not take it: a primary hands its region to a node
// nearer the key (host-set-check.ts) and stops ordering; the node is to claim the next epoch
// at once. One that never claims (a dead or overloaded tab, or an attacker's node ground
// nearest the key) leaves the region without a primary until the backups claim themselves,
// and every primary that follows would hand it over again at its next re-check: measured
// with an attacker node nearest the key, 14-15 s of 40 without a primary, 16 gaps
// (testing/handoff-sink-scenario.ts). A host that starts a claim of its own while a handoff
// stands (its primary's notice, or its own handoff) notes the node it was handed to, and as
// primary hands the region to no noted node while the note lasts: such a node may still be
// a backup of the set, as any near node may.
import type { NodeId } from '../core/node-id';
import { NodeNotes, NOTES_MAX } from './node-notes';

/** Nodes noted per region (oldest dropped first): one region's notes stay bounded whatever joins. */
export const DECLINED_MAX = NOTES_MAX;
/**
 * A node handed the region that did not claim it (we claimed ourselves while the handoff
 * stood) is not handed it again by us for this long: a node nearest the key that never
 * claims would otherwise cost the region its primary at every re-check.
 */
export const DECLINED_HANDOFF_MS = 60_000;

/** `note(hex, now)`: `hex` was handed the region and did not claim it (seen at `now`); the constructor's `forMs`: how long it is not handed the region again. */
export class DeclinedHandoffs extends NodeNotes {
  /** Whether `id` may not be handed the region at `now`. */
  declined(id: NodeId, now: number): boolean {
    return this.noted(id, now);
  }
}
