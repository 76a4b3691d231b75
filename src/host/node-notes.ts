// Nodes a region noted for a while (declined-handoffs.ts, quiet-hosts.ts, region-claimant.ts's
// silent and replaced primaries): each note ends at its time or when forgotten, and a region
// keeps at most `max`, the oldest dropped first, so one region's notes stay bounded whatever
// joins.
import { idToHex, type NodeId } from '../core/node-id';

/** Nodes noted per region, by default. */
export const NOTES_MAX = 4;

export class NodeNotes {
  private readonly until = new Map<string, number>();

  /** `forMs`: how long a note lasts; `max`: notes kept, the oldest dropped first. */
  constructor(
    private readonly forMs: number,
    private readonly max = NOTES_MAX,
  ) {}

  /** Notes `hex` at `now` (again: its note starts over). */
  note(hex: string, now: number): void {
    if (!hex) return;
    this.until.delete(hex);
    this.until.set(hex, now + this.forMs);
    while (this.until.size > this.max) this.until.delete(this.until.keys().next().value!);
  }

  /** Ends `hex`'s note, if any. */
  forget(hex: string): void {
    if (this.until.size > 0) this.until.delete(hex);
  }

  /** Whether `id` is noted at `now`. */
  noted(id: NodeId, now: number): boolean {
    return this.notedHex(idToHex(id), now);
  }

  /** Whether `hex` is noted at `now` (a note past its time is dropped). */
  notedHex(hex: string, now: number): boolean {
    const t = this.until.get(hex);
    if (t === undefined) return false;
    if (now < t) return true;
    this.until.delete(hex);
    return false;
  }

  /** The nodes noted at `now`, oldest note first. */
  all(now: number): string[] {
    return [...this.until.keys()].filter((hex) => this.notedHex(hex, now));
  }
}
