// Hosts a primary took out of its region's set because they went quiet: the set's fill
// (host-set-check.ts fillFromLinks) drops a backup that answered no beat for backupQuietMs.
// Its DHT may still answer lookups and pings (a tab whose hosting stalled, or an attacker's
// node ground nearest the key that hosts nothing), so the next re-check's lookup found it
// nearest again and named it a backup, and the fill dropped it again: one epoch each, every
// re-check, each a gap for the subscribers (testing/handoff-sink-scenario.ts, seed 2 with
// the sink's host started: e1 -> e11 in 40 s, 9 gaps). A noted node stays out of the set
// until a frame of the region comes from it, or its note ends (each re-check that finds it
// silent notes it again).
import type { NodeId } from '../core/node-id';
import { NodeNotes } from './node-notes';

/**
 * A node dropped as quiet stays out of the set this long after a re-check last found it
 * silent, unless a frame of the region comes from it.
 */
export const QUIET_HOST_MS = 60_000;

/** `note(hex, now)`: `hex` hosts nothing we hear (dropped from our set as quiet, or found so since). */
export class QuietHosts extends NodeNotes {
  /** A frame of the region came from `hex`: it hosts again. */
  heard(hex: string): void {
    this.forget(hex);
  }

  /** Whether `id` is kept out of the set at `now`. */
  quiet(id: NodeId, now: number): boolean {
    return this.noted(id, now);
  }
}
