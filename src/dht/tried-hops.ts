// The first hops our own recent requests to each destination left by (overlay-router.ts).
// A retry (`detour`) leaves by one not among them: a request lost in a hostile first hop of
// ours (a fifth of our links, with 20% hostile nodes) is not sent into it again, as the
// next-ranked link toward another waypoint often was. Bounded: the destination not asked
// for longest is forgotten first, and a destination keeps its last few hops.
import { compareDistance, type NodeId } from '../core/node-id';

export class TriedHops {
  private readonly byDst = new Map<string, string[]>();

  constructor(
    private readonly maxDests = 128,
    private readonly maxHops = 8,
  ) {}

  /** Our request for dstHex left by hopHex. */
  note(dstHex: string, hopHex: string): void {
    const hops = this.byDst.get(dstHex) ?? [];
    this.byDst.delete(dstHex);
    if (!hops.includes(hopHex)) hops.push(hopHex);
    this.byDst.set(dstHex, hops.slice(-this.maxHops));
    if (this.byDst.size > this.maxDests) this.byDst.delete(this.byDst.keys().next().value!);
  }

  /** The first hops requests for dstHex took (oldest first). */
  of(dstHex: string): readonly string[] {
    return this.byDst.get(dstHex) ?? [];
  }
}

/**
 * A retry's first hop: our best link toward `toward` (the first waypoint, or the
 * destination) that is not in `used`, links that are `last` (a poor record, taken for dead)
 * after all others; all used: the `n`-th, round and round.
 */
export function firstHop<L extends { id: NodeId; hex: string }>(links: L[], toward: NodeId, used: readonly string[], last: (l: L) => boolean, n: number): L | null {
  const ranked = links.sort((a, b) => Number(last(a)) - Number(last(b)) || compareDistance(a.id, b.id, toward));
  if (ranked.length === 0) return null;
  return ranked.find((l) => !used.includes(l.hex)) ?? ranked[n % ranked.length]!;
}
