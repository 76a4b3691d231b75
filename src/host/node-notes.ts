// Nodes a region noted for a while (declined-handoffs.ts, quiet-hosts.ts): each note ends at
// its time or when forgotten, and a region keeps at most NOTES_MAX, the oldest dropped first,
// so one region's notes stay bounded whatever joins.
import { idToHex, type NodeId } from '../core/node-id';

/** Nodes noted per region. */
export const NOTES_MAX = 4;

export class NodeNotes {
  private readonly until = new Map<string, number>();

  /** `forMs`: how long a note lasts. */
  constructor(private readonly forMs: number) {}

  /** Notes `hex` at `now` (again: its note starts over). */
  note(hex: string, now: number): void {
    if (!hex) return;
    this.until.delete(hex);
    this.until.set(hex, now + this.forMs);
    while (this.until.size > NOTES_MAX) this.until.delete(this.until.keys().next().value!);
  }

  /** Ends `hex`'s note, if any. */
  forget(hex: string): void {
    if (this.until.size > 0) this.until.delete(hex);
  }

  /** Whether `id` is noted at `now`. */
  noted(id: NodeId, now: number): boolean {
    const hex = idToHex(id), t = this.until.get(hex);
    if (t === undefined) return false;
    if (now < t) return true;
    this.until.delete(hex);
    return false;
  }
}
