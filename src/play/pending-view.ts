// Edits a region's primary has ordered but not yet committed, as one subscriber holds them
// (docs/HOSTING.md "Pending edits"). The primary sends each batch it orders to its
// subscribers at once (PENDING), alongside its REPLICATE to the backups, so a player draws
// another's edit one round trip to the backups sooner than its commit (the DELTA) allows.
//
// A pending entry is kept apart from the region state, which holds committed edits only (a
// snapshot, the DHT log and what this client tells others are all committed). It is drawn
// over the state and leaves this view when the state moves past its stamp: committed (the
// state then shows it) or not (the state shows what it holds instead: taken back). What the
// view gives back on each change is what the player must redraw from the state:
// - a delta or snapshot committed up to (e, s) covers every pending entry of e up to s, and
//   every entry of an earlier epoch (a new primary's state holds them or not: its say);
// - an entry nothing commits within `ttlMs` is taken back (the primary died mid-batch and
//   no one told us, or a host of the set sent what no primary ordered);
// - unsubscribing takes back all.
// Bounded: at most MAX_PENDING blocks per region (more are not shown until committed).
import { compareStamp, type Entry, type RegionState, type Stamp } from '../region/region-state';

/** Blocks one region may show pending at once (docs/BOUNDS.md). */
export const MAX_PENDING = 512;

/** A block whose pending entry left the view and that the state shows otherwise: redraw it as the state has it (`entry` undefined: no edit, the terrain). */
export interface TakenBack {
  key: number;
  entry: Entry | undefined;
}

export class PendingView {
  private readonly byKey = new Map<number, { entry: Entry; at: number }>();

  constructor(private readonly ttlMs: number) {}

  get size(): number {
    return this.byKey.size;
  }

  /** The pending entry of a block, if one is shown. */
  at(key: number): Entry | undefined {
    return this.byKey.get(key)?.entry;
  }

  /** Every pending entry (a column loading draws them over the state). */
  entries(): Entry[] {
    return [...this.byKey.values()].map((p) => p.entry);
  }

  /**
   * A PENDING frame's entries, of the epoch we follow, committed up to seq `committed` in
   * it: those to draw now (newer than what we show of their block and than the commit), and
   * how many the bound refused.
   */
  take(entries: readonly Entry[], committed: number, now: number): { shown: Entry[]; refused: number } {
    const shown: Entry[] = [];
    let refused = 0;
    for (const x of entries) {
      // Committed already (its DELTA overtook this frame) or superseded by what is.
      if (x.s <= committed) continue;
      const had = this.byKey.get(x.key);
      if (had && compareStamp(had.entry, x) >= 0) continue;
      if (!had && this.byKey.size >= MAX_PENDING) {
        refused++;
        continue;
      }
      this.byKey.set(x.key, { entry: x, at: now });
      shown.push(x);
    }
    return { shown, refused };
  }

  /**
   * The state moved: committed up to `since`, following epoch `epoch`. Drops what it covers
   * (entries of earlier epochs, and of `epoch` up to since's seq); returns those the state
   * shows otherwise.
   */
  settle(epoch: number, since: Stamp, state: RegionState): TakenBack[] {
    const committed = since.e === epoch ? since.s : 0;
    return this.drop((p) => p.e < epoch || (p.e === epoch && p.s <= committed), state);
  }

  /** Entries shown longer than `ttlMs` without a commit: taken back. */
  expire(now: number, state: RegionState): TakenBack[] {
    const old = new Set<number>();
    for (const [key, p] of this.byKey) if (now - p.at > this.ttlMs) old.add(key);
    return old.size === 0 ? [] : this.drop((p) => old.has(p.key), state);
  }

  /** All of them (we stop following the region). */
  clear(state: RegionState): TakenBack[] {
    return this.drop(() => true, state);
  }

  private drop(covered: (p: Entry) => boolean, state: RegionState): TakenBack[] {
    const back: TakenBack[] = [];
    for (const [key, p] of this.byKey) {
      if (!covered(p.entry)) continue;
      this.byKey.delete(key);
      const now = state.get(key);
      if (now?.id !== p.entry.id) back.push({ key, entry: now });
    }
    return back;
  }
}
