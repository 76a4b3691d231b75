// Which edit requests a region has ordered, and as what stamp: (editor, request id, block,
// id) -> stamp. The primary answers a re-sent edit from it instead of ordering it again,
// and the backups keep it too (REPLICATE carries the requests of each batch), so a
// primary's successor recognises an edit its predecessor ordered and the editor re-sent
// when it detached: applying that edit again could overwrite a later edit of the block.
import { hexToId, idToHex, type NodeId } from '../core/node-id';
import { compareStamp, type Stamp } from '../region/region-state';

export interface OrderedRequest extends Stamp {
  at: number;
}

/** One ordered request as SYNC and GRANT carry it: (editor, request id, block key, block id, epoch, seq). */
export type RequestEntry = [NodeId, number, number, number, number, number];

/** A primary remembers (editor, request id) of accepted edits this long (re-sent edits apply once). */
export const DEDUPE_MS = 60_000;

export const requestTag = (editorHex: string, r: number, key: number, id: number): string => `${editorHex}:${r}:${key}:${id}`;

export class RequestLog {
  private readonly byTag = new Map<string, OrderedRequest>();

  constructor(
    private readonly ttlMs: number,
    private readonly max = 16_384,
  ) {}

  get size(): number {
    return this.byTag.size;
  }

  find(tag: string): OrderedRequest | undefined {
    return this.byTag.get(tag);
  }

  remember(tag: string, stamp: Stamp, now: number): void {
    this.byTag.set(tag, { e: stamp.e, s: stamp.s, at: now });
    if (this.byTag.size > this.max) this.byTag.delete(this.byTag.keys().next().value!);
  }

  /** The newest `max` requests, for a host taking over (SYNC, GRANT): a re-sent edit must apply at most once. */
  export(max: number): RequestEntry[] {
    const all = [...this.byTag];
    return all.slice(Math.max(0, all.length - max)).map(([tag, q]) => {
      const [hex, r, key, id] = tag.split(':');
      return [hexToId(hex!), Number(r), Number(key), Number(id), q.e, q.s];
    });
  }

  /**
   * Takes over another host's requests (kept as if heard now: they live a full TTL here).
   * A request known here under a lower stamp keeps the higher one: it was ordered twice,
   * first by a primary whose batch never committed (so its successor did not know it and
   * ordered the re-sent edit again), and the later ordering is what the merged state holds.
   * Keeping the first would CONFIRM the editor a stamp its block does not carry (with claims
   * that end early: an edit answered e7s1 while the region held it at e8s6, after a later
   * edit of the block).
   */
  import(list: readonly RequestEntry[], now: number): void {
    for (const [editor, r, key, id, e, s] of list) {
      const tag = requestTag(idToHex(editor), r, key, id);
      const had = this.byTag.get(tag);
      if (!had || compareStamp({ e, s }, had) > 0) this.remember(tag, { e, s }, now);
    }
  }

  /** Forgets requests older than the TTL (oldest first: the map is in insertion order). */
  prune(now: number): void {
    for (const [tag, req] of this.byTag) {
      if (now - req.at <= this.ttlMs) break;
      this.byTag.delete(tag);
    }
  }
}
