// Which offered entries a primary may adopt: those a majority of one host set offered, the
// identical entry (block, id and stamp) from each. A single host of the set, or any minority
// of it, cannot make the primary write a block (docs/TRUST.md rule 8): one node that got a
// place in a region's host set (a backup near the key) could otherwise plant any number of
// blocks no player placed, past reach, passes and rate limits, with one OFFER frame.
// Confirmed edits never need this path: they reach every later epoch through the granters'
// majority; OFFER only carries what a minority held (region-offers.ts).
// Pure: time is passed in. Every structure is bounded: a host's tallied entries
// (`perHost`), their age (`ttlMs`); entries dropped unmatched are counted.
import { quorum } from '../region/epoch-cert';
import type { Entry } from '../region/region-state';

/** One host set an offer is tallied in: its name (the certificate's own set, or its previous one) and its hosts (hex). */
export interface OfferSet {
  name: string;
  hosts: readonly string[];
}

export interface OfferTallyOptions {
  /** Most entries waiting for a majority that one host started (its offers past this are dropped). */
  perHost: number;
  /** An entry no majority offered within this long is dropped. */
  ttlMs: number;
}

interface Tally {
  entry: Entry;
  /** Hosts of the set that offered it. */
  by: Set<string>;
  /** The host whose offer started it (charged against its `perHost`). */
  starter: string;
  at: number;
  need: number;
}

export class OfferTally {
  /** By set name and the entry's identity; in order of `at` (entries are never re-timed). */
  private readonly tallies = new Map<string, Tally>();
  private readonly started = new Map<string, number>();

  constructor(private readonly o: OfferTallyOptions, private readonly stats: { offersUnmatched: number }) {}

  get size(): number {
    return this.tallies.size;
  }

  /**
   * `from`'s offered entries, tallied in each of `sets` that names it: returns those a
   * majority of one of them has now offered (each once; its tally ends there).
   */
  add(from: string, sets: readonly OfferSet[], entries: readonly Entry[], now: number): Entry[] {
    this.expire(now);
    const out: Entry[] = [];
    for (const set of sets) {
      if (!set.hosts.includes(from)) continue;
      for (const e of entries) {
        const id = `${set.name}|${e.key}|${e.id}|${e.e}|${e.s}`;
        let t = this.tallies.get(id);
        if (!t) {
          const n = this.started.get(from) ?? 0;
          if (n >= this.o.perHost) {
            this.stats.offersUnmatched++;
            continue;
          }
          this.started.set(from, n + 1);
          this.tallies.set(id, (t = { entry: e, by: new Set(), starter: from, at: now, need: quorum(set.hosts.length) }));
        }
        t.by.add(from);
        if (t.by.size >= t.need) {
          out.push(t.entry);
          this.end(id, t);
        }
      }
    }
    return out;
  }

  /** Forgets every tally (the sets changed: a new certificate), counting them unmatched. */
  clear(): void {
    this.stats.offersUnmatched += this.tallies.size;
    this.tallies.clear();
    this.started.clear();
  }

  private expire(now: number): void {
    for (const [id, t] of this.tallies) {
      if (now - t.at < this.o.ttlMs) break;
      this.stats.offersUnmatched++;
      this.end(id, t);
    }
  }

  private end(id: string, t: Tally): void {
    this.tallies.delete(id);
    const n = (this.started.get(t.starter) ?? 1) - 1;
    if (n > 0) this.started.set(t.starter, n);
    else this.started.delete(t.starter);
  }
}
