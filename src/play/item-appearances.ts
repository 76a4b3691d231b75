// When each item first appeared in this tab, in the machine's clock (epoch ms: the tab's
// performance.timeOrigin + its local time), so tabs of one machine can be compared for the
// spawn-skew figure (docs/ITEMS.md "What the tab figures measure") without reading them one
// after another. What "appeared" means depends on the tab:
// - a tab that draws: the time of the first frame that drew the item (the frame's
//   requestAnimationFrame time; the page shows an item on the first frame whose world time
//   reaches its `at`);
// - a tab that draws nothing (render=off, a 50 ms timer loop): the moment its item model
//   switched the item on, i.e. the local time at which its world clock read `at`, worked
//   out from the check that found it on (the clock's offset moves at most 5% meanwhile);
// - either, for an item first learned after its `at` (late): the check that first saw it.
// An item is keyed by id and `at` (a dropped item appears again at a later `at`).

/** Appearances kept (the oldest forgotten first). */
export const MAX_APPEARANCES = 256;

export interface Appearance {
  id: string;
  /** The item's synchronised appear time (world ms). */
  at: number;
  /** When it appeared here, machine clock (epoch ms). */
  shownMs: number;
  /** Learned after `at` (not announced in time). */
  late: boolean;
  /** Drawn in a frame (false: the model switched it on in a tab that draws nothing). */
  drawn: boolean;
}

export interface ItemTimes {
  id: string;
  at: number;
}

export class ItemAppearances {
  private readonly seen = new Map<string, Appearance>();
  /** Items known before they were due (keys), as of the last check. */
  private upcoming = new Set<string>();

  /** `origin`: the machine time of local time 0 (performance.timeOrigin). `drawn`: this tab draws its frames. */
  constructor(private readonly origin: number, private readonly drawn: boolean) {}

  /**
   * One frame or check at local time `localMs` (the frame's time) and world time `worldMs`
   * (the world clock at that local time): `lying` = every item lying near the player, also
   * those announced for later.
   */
  check(lying: readonly ItemTimes[], localMs: number, worldMs: number): void {
    const next = new Set<string>();
    for (const it of lying) {
      const key = `${it.id}@${it.at}`;
      if (this.seen.has(key)) continue;
      if (it.at > worldMs) {
        next.add(key);
        continue;
      }
      const late = !this.upcoming.has(key);
      // Not drawn and known in time: the model switched it on when the world clock read `at`.
      const local = this.drawn || late ? localMs : localMs - (worldMs - it.at);
      this.seen.set(key, { id: it.id, at: it.at, shownMs: this.origin + local, late, drawn: this.drawn });
      if (this.seen.size > MAX_APPEARANCES) this.seen.delete(this.seen.keys().next().value!);
    }
    this.upcoming = next;
  }

  /** Every appearance kept, oldest first. */
  list(): Appearance[] {
    return [...this.seen.values()];
  }
}
