// Where a region's players stand as a backup of its items knows it: the primary's
// motion-checked presence, heard in ITEM_SEEN every SEEN_EVERY_MS (region-items.ts), kept for
// ttlMs. A backup checks claims against it, so a claim from a player the hosts saw elsewhere
// is refused by every voter, not only by the primary; and its spawn timer runs while players
// stand in the region.
import { idToHex, type NodeId } from '../core/node-id';

type Spot = { x: number; y: number; z: number };

export class SeenPlayers {
  private readonly seen = new Map<string, Spot & { at: number }>();

  constructor(private readonly ttlMs: number, private readonly now: () => number) {}

  /** An ITEM_SEEN's positions (already bounded by its schema). */
  heard(p: readonly (readonly [NodeId, number, number, number])[]): void {
    const now = this.now();
    for (const [id, x, y, z] of p) this.seen.set(idToHex(id), { x, y, z, at: now });
    for (const [h, s] of this.seen) if (now - s.at > this.ttlMs) this.seen.delete(h);
  }

  position(who: string): Spot | undefined {
    const s = this.seen.get(who);
    return s && this.now() - s.at <= this.ttlMs ? s : undefined;
  }

  standing(): [string, Spot][] {
    const now = this.now();
    return [...this.seen].filter(([, s]) => now - s.at <= this.ttlMs);
  }
}
