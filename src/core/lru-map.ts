// A map that holds at most `max` keys and forgets the one used least recently. Keys that come
// from the network (node ids, player keys, public keys) are as many as an attacker likes, so
// every per-key table kept for them needs a bound; forgetting the least recently used keeps
// the keys honest traffic keeps busy. A JavaScript Map iterates in insertion order, so a key
// used is deleted and set again (last), and the first key is the one to forget.

export class LruMap<K, V> {
  private readonly map = new Map<K, V>();

  /** `dropped`: told each key forgotten for the bound (not one deleted or set again). */
  constructor(
    private readonly max: number,
    private readonly dropped?: (key: K, value: V) => void,
  ) {}

  get size(): number {
    return this.map.size;
  }

  /** The value of `key`, without counting it as used. */
  peek(key: K): V | undefined {
    return this.map.get(key);
  }

  /** The value of `key`, which becomes the most recently used; undefined (and nothing changed) when absent. */
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  /** Sets `key` as the most recently used; past `max` keys the least recently used is forgotten. */
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) {
      const [k, v] = this.map.entries().next().value!;
      this.map.delete(k);
      this.dropped?.(k, v);
    }
  }

  /** The value of `key`, made by `make` when absent; either way `key` becomes the most recently used (set). */
  use(key: K, make: () => V): V {
    const v = this.map.get(key) ?? make();
    this.set(key, v);
    return v;
  }

  /** The entries, least recently used first (not counted as used). */
  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }
}
