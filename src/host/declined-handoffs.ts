// Nodes a region was handed to that did not take it: a primary hands its region to a node
// nearer the key (host-set-check.ts) and stops ordering; the node is to claim the next epoch
// at once. One that never claims (a dead or overloaded tab, or an attacker's node ground
// nearest the key) leaves the region without a primary until the backups claim themselves,
// and every primary that follows would hand it over again at its next re-check: measured
// with an attacker node nearest the key, 14-15 s of 40 without a primary, 16 gaps
// (testing/handoff-sink-scenario.ts). A host that starts a claim of its own while a handoff
// stands (its primary's notice, or its own handoff: the primary that handed the region to a
// host of its set takes it back when no claim came, hosted-region.ts handOff) notes the node
// it was handed to, and as
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
/** Declines of one node this far apart count as in a row (`hosted`). */
export const DECLINED_COUNT_MS = 2 * DECLINED_HANDOFF_MS;

/**
 * `note(hex, now)`: `hex` was handed the region and did not claim it (seen at `now`); the
 * constructor's `forMs`: how long it is not handed the region again. A node declined once
 * that then hosts with us (acked a frame of our epoch: `hosted`) is handed the region again:
 * a node whose claim came late (a joiner whose hosting started after it was handed the
 * region, a starved tab) and that was then synced as a backup is nearest the key and hosts:
 * held out for the whole note, it stayed a backup of a farther primary for a minute. A node
 * declined twice stays declined for its whole time however it acks: one that acks every frame
 * and never claims (hosting-handoff-hostile.test.ts) costs the region two take-backs' gaps in
 * DECLINED_COUNT_MS, not one at every re-check.
 */
export class DeclinedHandoffs extends NodeNotes {
  /** Per node: declines in a row (forgotten DECLINED_COUNT_MS after the last), the oldest dropped first. */
  private readonly count = new Map<string, { n: number; at: number }>();

  override note(hex: string, now: number): void {
    const c = this.count.get(hex);
    const n = c && now - c.at < DECLINED_COUNT_MS ? c.n + 1 : 1;
    this.count.delete(hex);
    this.count.set(hex, { n, at: now });
    while (this.count.size > DECLINED_MAX) this.count.delete(this.count.keys().next().value!);
    super.note(hex, now);
  }

  /** `hex` acked a frame of our epoch at `now`: declined only once lately, its note ends. */
  hosted(hex: string, now: number): void {
    const c = this.count.get(hex);
    if (c && c.n < 2 && now - c.at < DECLINED_COUNT_MS) this.forget(hex);
  }

  /** Whether `id` may not be handed the region at `now`. */
  declined(id: NodeId, now: number): boolean {
    return this.noted(id, now);
  }
}
