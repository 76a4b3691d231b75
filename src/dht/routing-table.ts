// Kademlia routing table: 160 k-buckets ordered least-recently seen first, each with a
// replacement cache. Pure logic (no I/O): when a bucket is full, `add` reports the oldest
// contact, the node pings it, and `pingResult` keeps it (moved to the tail) or evicts it
// for the freshest replacement. Contacts are node ids known to be alive; whether a live
// link to them exists is the link budget's business, not the table's.
import { bucketIndex, compareDistance, ID_BITS, ID_BYTES, idToHex, type NodeId } from '../core/node-id';

export const DEFAULT_K = 20;

/** Answers the table keeps (see `answers`); past this many it starts again. */
const MAX_ANSWERS = 256;

export interface Contact {
  readonly id: NodeId;
  readonly hex: string;
  /** Clock time of the last message from this contact. */
  lastSeen: number;
  /** Consecutive RPC failures; reset by any message. */
  fails: number;
}

export type AddResult =
  | { status: 'updated'; contact: Contact }
  | { status: 'added'; contact: Contact }
  /** Bucket full: the candidate waits in the replacement cache; ping `oldest`, unless `pinging` already. */
  | { status: 'full'; oldest: Contact; pinging: boolean }
  | { status: 'self' };

interface Bucket {
  contacts: Contact[]; // least-recently seen first
  replacements: Contact[]; // most recent last
  pinging: string | null; // hex of the oldest contact under an eviction ping
  touched: number; // last lookup into this bucket's range (for refresh)
}

export class RoutingTable {
  private readonly buckets: Bucket[] = [];
  private readonly index = new Map<string, Contact>();
  /**
   * Answers of `nearest`, by target and count, while the table's members stay the same (a
   * contact heard again only moves within its bucket, which changes no answer): a node answers
   * FIND_NODE and FIND_VALUE for the same few keys over and over (the regions around it, its
   * neighbours' ids), and sorting buckets for each was a visible share of a simulation's time.
   */
  private readonly answers = new Map<string, Contact[]>();

  constructor(
    readonly selfId: NodeId,
    readonly k = DEFAULT_K,
  ) {
    for (let i = 0; i < ID_BITS; i++) this.buckets.push({ contacts: [], replacements: [], pinging: null, touched: 0 });
  }

  get size(): number {
    return this.index.size;
  }

  has(hex: string): boolean {
    return this.index.has(hex);
  }

  get(hex: string): Contact | undefined {
    return this.index.get(hex);
  }

  /** Records that `id` was heard from at `now` (any message proves it alive). */
  add(id: NodeId, now: number, hex = idToHex(id)): AddResult {
    const b = bucketIndex(this.selfId, id);
    if (b < 0) return { status: 'self' };
    const bucket = this.buckets[b]!;
    const known = this.index.get(hex);
    if (known) {
      known.lastSeen = now;
      known.fails = 0;
      // To the tail (most recently seen); a peer that keeps talking is there already. Moved
      // by hand, not by splice and push: every frame from a linked peer comes here, and
      // splice's array of what it removed was a share of a DHT simulation's garbage.
      const cs = bucket.contacts;
      const last = cs.length - 1;
      if (cs[last] !== known) {
        for (let i = cs.indexOf(known); i < last; i++) cs[i] = cs[i + 1]!;
        cs[last] = known;
      }
      return { status: 'updated', contact: known };
    }
    const contact: Contact = { id, hex, lastSeen: now, fails: 0 };
    if (bucket.contacts.length < this.k) {
      bucket.contacts.push(contact);
      this.index.set(hex, contact);
      this.answers.clear();
      return { status: 'added', contact };
    }
    // Into the replacement cache, most recent last (a peer heard again moves there). Every
    // frame from a peer in a full bucket comes here: a peer that keeps talking is last already.
    const rs = bucket.replacements;
    let waiting = rs.length - 1;
    while (waiting >= 0 && rs[waiting]!.hex !== hex) waiting--;
    if (waiting >= 0 && waiting === rs.length - 1) rs[waiting] = contact;
    else {
      if (waiting >= 0) rs.splice(waiting, 1);
      rs.push(contact);
      if (rs.length > this.k) rs.shift();
    }
    const oldest = bucket.contacts[0]!;
    const pinging = bucket.pinging !== null;
    if (!pinging) bucket.pinging = oldest.hex;
    return { status: 'full', oldest, pinging };
  }

  /** Outcome of the eviction ping of `hex`: alive keeps it (now most recent), dead evicts it. */
  pingResult(hex: string, alive: boolean, now: number): Contact | undefined {
    const contact = this.index.get(hex);
    const bucket = contact ? this.buckets[bucketIndex(this.selfId, contact.id)]! : this.buckets.find((b) => b.pinging === hex);
    if (bucket && bucket.pinging === hex) bucket.pinging = null;
    if (!contact) return undefined;
    if (alive) {
      this.add(contact.id, now, hex);
      return undefined;
    }
    return this.remove(hex);
  }

  /** Counts a failed RPC; at `maxFails` the contact is removed. Returns the promoted replacement, if any. */
  fail(hex: string, maxFails: number): { removed: boolean; promoted?: Contact } {
    const contact = this.index.get(hex);
    if (!contact) return { removed: false };
    if (++contact.fails < maxFails) return { removed: false };
    const promoted = this.remove(hex);
    return promoted ? { removed: true, promoted } : { removed: true };
  }

  /** Removes a contact and promotes the most recently seen replacement. */
  remove(hex: string): Contact | undefined {
    const contact = this.index.get(hex);
    if (!contact) return undefined;
    const bucket = this.buckets[bucketIndex(this.selfId, contact.id)]!;
    bucket.contacts.splice(bucket.contacts.indexOf(contact), 1);
    this.index.delete(hex);
    this.answers.clear();
    if (bucket.pinging === hex) bucket.pinging = null;
    const promoted = bucket.replacements.pop();
    if (promoted) {
      bucket.contacts.push(promoted);
      this.index.set(promoted.hex, promoted);
    }
    return promoted;
  }

  /** The `n` known contacts closest to `target` (XOR), closest first (`exclude` left out). */
  closest(target: NodeId, n = this.k, exclude?: string): Contact[] {
    // The n + 1 closest with nobody left out, kept: leaving `exclude` out of them gives the same
    // n whoever asks (a FIND_NODE leaves out its asker).
    const key = `${n}:${idToHex(target)}`;
    let near = this.answers.get(key);
    if (!near) {
      if (this.answers.size >= MAX_ANSWERS) this.answers.clear();
      this.answers.set(key, (near = this.nearest(target, n + 1)));
    }
    const out: Contact[] = [];
    for (const c of near) if (out.length < n && c.hex !== exclude) out.push(c);
    return out;
  }

  private nearest(target: NodeId, n: number): Contact[] {
    // Buckets are visited in distance order, so only the first few are sorted. With
    // d = self XOR target and b its top bit: bucket b holds the closest; a bucket i < b
    // clears bit i of the distance when d has bit i set (closer than every bucket under
    // it: taken from high i down), else sets it (farther: taken from low i up after the
    // first group); buckets above b come last, in increasing order.
    const b = bucketIndex(this.selfId, target);
    const out: Contact[] = [];
    const take = (i: number) => {
      const cs = this.buckets[i]!.contacts;
      if (cs.length === 0) return;
      const sorted = cs.length === 1 ? cs : byDistance(cs, target, i);
      for (const c of sorted) {
        if (out.length >= n) return;
        out.push(c);
      }
    };
    const top = b < 0 ? ID_BITS : b;
    if (b >= 0) take(b);
    const filled = (i: number) => this.buckets[i]!.contacts.length > 0;
    for (let i = top - 1; i >= 0 && out.length < n; i--) if (filled(i) && distanceBit(this.selfId, target, i)) take(i);
    for (let i = 0; i < top && out.length < n; i++) if (filled(i) && !distanceBit(this.selfId, target, i)) take(i);
    // Our own id (b < 0) has no buckets above its own: the loop before took every bucket.
    if (b >= 0) for (let i = b + 1; i < ID_BITS && out.length < n; i++) take(i);
    return out;
  }

  /** Contacts of bucket i, least-recently seen first. */
  bucket(i: number): readonly Contact[] {
    return this.buckets[i]?.contacts ?? [];
  }

  replacements(i: number): readonly Contact[] {
    return this.buckets[i]?.replacements ?? [];
  }

  /** Indices of non-empty buckets. */
  nonEmptyBuckets(): number[] {
    const out: number[] = [];
    for (let i = 0; i < ID_BITS; i++) if (this.buckets[i]!.contacts.length > 0) out.push(i);
    return out;
  }

  touch(bucket: number, now: number): void {
    const b = this.buckets[bucket];
    if (b) b.touched = now;
  }

  touchedAt(bucket: number): number {
    return this.buckets[bucket]?.touched ?? 0;
  }

  *all(): IterableIterator<Contact> {
    yield* this.index.values();
  }
}

/**
 * Bucket `bit`'s contacts, closest to `target` first: the order of compareDistance, found
 * by an insertion sort on a number per contact. Every contact of the bucket agrees with us
 * on the bits above `bit`, so their distances to any target agree there too: the 4 bytes
 * from the one holding `bit` tell them apart (the rest only on a tie). Answering a
 * FIND_NODE sorts a bucket or more, and a comparator that walked the ids byte by byte
 * from the top was 3% of a crowd simulation's time.
 */
function byDistance(cs: readonly Contact[], target: NodeId, bit: number): Contact[] {
  const from = ID_BYTES - 1 - (bit >> 3);
  const out: Contact[] = [];
  const keys: number[] = [];
  for (const c of cs) {
    let key = 0;
    for (let b = from; b < from + 4; b++) key = key * 256 + (b < ID_BYTES ? c.id[b]! ^ target[b]! : 0);
    let p = out.length;
    out.push(c);
    keys.push(key);
    while (p > 0 && (keys[p - 1]! > key || (keys[p - 1] === key && compareDistance(out[p - 1]!.id, c.id, target) > 0))) {
      out[p] = out[p - 1]!;
      keys[p] = keys[p - 1]!;
      p--;
    }
    out[p] = c;
    keys[p] = key;
  }
  return out;
}

/** Bit i (0 = least significant) of a XOR b. */
function distanceBit(a: NodeId, b: NodeId, i: number): boolean {
  const byte = a.length - 1 - (i >> 3);
  return (((a[byte]! ^ b[byte]!) >> (i & 7)) & 1) === 1;
}
