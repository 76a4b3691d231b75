// The nodes a node's lookups gave up on lately (lookup.ts `giveUpMs`): the next lookups
// still ask them, once, but do not wait for them. A node that left is named by every node
// that knew it until each finds it dead (the heartbeat timeout), so without this each of our
// lookups near it waited `lookupGiveUpMs` for it anew: a tab joining a world a friend had
// just closed waited for it in its self-lookup and again in the first lookups of its regions.
// A node we hear answer a lookup is forgotten here at once, so one that was only slow is
// waited for again as soon as it shows it is there; the rest are forgotten after `forMs`, by
// when no node should name them any more. A live node whose queries a hostile forwarder
// dropped lands here too, and is still asked in every lookup that meets it: one answer in
// time and it is waited for again. Bounded: the ids are those answers named, as many as a
// hostile node likes.
import { LruMap } from '../core/lru-map';

/** Nodes remembered at most (the least recently given up forgotten first). */
const MAX_SILENT = 256;

export class SilentCandidates {
  /** When each node was given up, by hex id. */
  private readonly since = new LruMap<string, number>(MAX_SILENT);

  constructor(
    private readonly now: () => number,
    /** How long a node given up stays unwaited for (the heartbeat timeout). */
    private readonly forMs: number,
  ) {}

  /** A lookup gave up on hex (or it failed all its queries). */
  gaveUp(hex: string): void {
    this.since.set(hex, this.now());
  }

  /** hex answered a lookup: waited for again. */
  answered(hex: string): void {
    this.since.delete(hex);
  }

  /** Whether a lookup should ask hex without waiting for it. */
  has(hex: string): boolean {
    const at = this.since.peek(hex);
    if (at === undefined) return false;
    if (this.now() - at < this.forMs) return true;
    this.since.delete(hex);
    return false;
  }

  get size(): number {
    return this.since.size;
  }
}
