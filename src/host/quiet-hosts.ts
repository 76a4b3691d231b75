// Hosts a primary took out of its region's set because they went quiet: the set's fill
// (host-set-check.ts fillFromLinks) drops a backup that answered no beat for backupQuietMs.
// Its DHT may still answer lookups and pings (a tab whose hosting stalled, or an attacker's
// node ground nearest the key that hosts nothing), so the next re-check's lookup found it
// nearest again and named it a backup, and the fill dropped it again: one epoch each, every
// re-check, each a gap for the subscribers (testing/handoff-sink-scenario.ts, seed 2 with
// the sink's host started: e1 -> e11 in 40 s, 9 gaps). A noted node stays out of the set
// until a frame of the region comes from it, or its note ends (each re-check that finds it
// silent notes it again).
// A frame is taken on trust once: an honest node coming back says so with a CLAIM (it lost
// its primary when it was dropped) or an OFFER, never with an ACK, as it follows nobody. A
// node dropped again without having acked or asked for a SYNC since (`hosts`) showed that its
// frames were no sign of hosting: the kit's hostile node, sending its rows and acking nothing,
// came back at every re-check, two epochs every RECHECK_MS and in the set a third of the
// time (hosting-rebase-hostile.test.ts). After such a drop its frames do not end its note for
// QUIET_HOLD_MS, doubling with each drop like it, up to QUIET_HOLD_MAX_MS.
// A node dropped as quiet is not handed the region (host-set-check.ts handOffTo) until it has
// acked or asked for a SYNC since (`droppedLately`), whatever frames brought it back into the
// set: the kit's hostile node, dropped, came back on its rows' frames nearest the key and was
// handed the region, which it never claimed (sybil_1k seed 2, region 2,1: the released primary
// and a backup then claimed in lockstep, 10.8 s without a primary).
import type { NodeId } from '../core/node-id';
import { idToHex } from '../core/node-id';
import { NodeNotes } from './node-notes';

/**
 * A node dropped as quiet stays out of the set this long after a re-check last found it
 * silent, unless a frame of the region comes from it.
 */
export const QUIET_HOST_MS = 60_000;
/** A node dropped again after a comeback on frames alone: its frames do not end its note for this long (doubling per such drop). */
export const QUIET_HOLD_MS = 60_000;
export const QUIET_HOLD_MAX_MS = 8 * QUIET_HOLD_MS;
/** Nodes whose drops are counted, per region (the oldest forgotten first). */
const DROPS_KEPT = 8;

/** `note(hex, now)`: `hex` hosts nothing we hear (dropped from our set as quiet, or found so since). */
export class QuietHosts extends NodeNotes {
  /** Per node: drops since it last showed it hosts, and the last one's time. */
  private readonly drops = new Map<string, { n: number; at: number }>();

  /** The set's fill dropped `hex` as quiet at `now`. */
  dropped(hex: string, now: number): void {
    const d = this.drops.get(hex);
    const n = d && now - d.at < 2 * QUIET_HOLD_MAX_MS ? d.n + 1 : 1;
    this.drops.delete(hex);
    this.drops.set(hex, { n, at: now });
    while (this.drops.size > DROPS_KEPT) this.drops.delete(this.drops.keys().next().value!);
    this.note(hex, now);
  }

  /** A frame of the region came from `hex` at `now`: it hosts again, unless its frames proved no sign of hosting lately. */
  heard(hex: string, now: number): void {
    if (now >= this.heldUntil(hex)) this.forget(hex);
  }

  /** `hex` acked our epoch or asked for its SYNC: it hosts; its note and its drops end. */
  hosts(hex: string): void {
    this.drops.delete(hex);
    this.forget(hex);
  }

  /**
   * Whether we dropped `id` as quiet within the last QUIET_HOST_MS and it has not acked our
   * epoch or asked for a SYNC since (`hosts`): a frame alone ends its note, not this.
   */
  droppedLately(id: NodeId, now: number): boolean {
    const d = this.drops.get(idToHex(id));
    return !!d && now - d.at < QUIET_HOST_MS;
  }

  /** Whether `id` is kept out of the set at `now`. */
  quiet(id: NodeId, now: number): boolean {
    return this.noted(id, now) || now < this.heldUntil(idToHex(id));
  }

  /** Until when `hex`'s frames do not end its note (-Infinity: they do). */
  private heldUntil(hex: string): number {
    const d = this.drops.get(hex);
    return !d || d.n < 2 ? -Infinity : d.at + Math.min(QUIET_HOLD_MAX_MS, QUIET_HOLD_MS * 2 ** (d.n - 2));
  }
}
