// The memory of keys matched to their node ids (key-ids.ts): a key met again costs no scrypt.
// Bounded three ways, because an attacker brings as many keys as it likes: at most `kept`
// keys, least recently used forgotten first; at most `perSource` of them put there by one
// source (the link or address a key came over); and the keys of ids a part of the node still
// needs (its own, its contacts', its links', the hosts' of regions it holds or follows: the
// `guarded` test) are kept apart when the least recently used memory lets them go, up to
// `guarded` of them. Without that, an attacker sending keys that stand for their ids (ids
// minted with work) over kept / perSource links pushed every other key out, an honest host's
// too, and each then cost a derivation again on a budget the attacker can keep spent.
import { OWN_SOURCE, UNATTRIBUTED } from './derivation-budget';
import { LruMap } from './lru-map';
import type { NodeId } from './node-id';

export interface KeyMemorySizes {
  /** Keys remembered, least recently used forgotten first. */
  kept: number;
  /** Of `kept`, how many one source may have put there (past it, its new keys are not remembered). */
  perSource: number;
  /** Keys of guarded ids kept apart when the least recently used memory lets them go. */
  guarded: number;
}

/** What the memory counts: keys not kept for their source's bound, guarded keys kept apart, and those dropped past `guarded`. */
export interface KeyMemoryCounts {
  unkept: number;
  sheltered: number;
  unsheltered: number;
}

/** A remembered key's id, and the source that put it there (undefined: one we hold, loaded, or met in a handshake). */
interface Kept {
  id: NodeId;
  via: string | undefined;
}

/** Kept-apart keys looked at, least recently used first, for one no longer guarded to make room. */
const SHELTER_LOOKS = 32;

/** Whether a source's keys count toward its bound (not ours, not unnamed, not undefined). */
const bounded = (via: string | undefined): via is string => via !== undefined && via !== UNATTRIBUTED && via !== OWN_SOURCE;

export class KeyMemory {
  /** Keys each source has in `recent` (only sources with some). */
  private readonly keptBy = new Map<string, number>();
  private readonly recent: LruMap<string, Kept>;
  /** Guarded keys `recent` let go. */
  private readonly apart: LruMap<string, NodeId>;

  /** `guarded`: whether a part of the node still needs the key of `id` (asked only as `recent` lets a key go, and when a source is past its bound). */
  constructor(
    private readonly sizes: KeyMemorySizes,
    private readonly guarded: (id: NodeId) => boolean,
    readonly counts: KeyMemoryCounts = { unkept: 0, sheltered: 0, unsheltered: 0 },
  ) {
    this.apart = new LruMap(sizes.guarded, () => counts.unsheltered++);
    this.recent = new LruMap(sizes.kept, (tag, k) => {
      this.unkeep(k.via);
      if (guarded(k.id)) this.shelter(tag, k.id);
    });
  }

  /** Keys remembered now (at most kept + guarded). */
  get size(): number {
    return this.recent.size + this.apart.size;
  }

  /** The id remembered for the key `tag`, which becomes the most recently used. */
  get(tag: string): NodeId | undefined {
    return this.recent.get(tag)?.id ?? this.apart.get(tag);
  }

  /** Remembers `id` as the key `tag`'s, put there by `via` (nothing when `via` has its `perSource` here, unless `id` is guarded). */
  keep(tag: string, id: NodeId, via?: string): void {
    if (this.get(tag)) return;
    if (bounded(via)) {
      const n = this.keptBy.get(via) ?? 0;
      if (n >= this.sizes.perSource && !this.guarded(id)) {
        this.counts.unkept++;
        return;
      }
      this.keptBy.set(via, n + 1);
    }
    this.recent.set(tag, { id, via });
  }

  private unkeep(via: string | undefined): void {
    if (!bounded(via)) return;
    const n = (this.keptBy.get(via) ?? 0) - 1;
    if (n > 0) this.keptBy.set(via, n);
    else this.keptBy.delete(via);
  }

  /** Keeps a guarded key `recent` let go; when full, one no longer guarded among the least recently used goes first. */
  private shelter(tag: string, id: NodeId): void {
    if (this.apart.size >= this.sizes.guarded) {
      let looked = 0;
      for (const [t, i] of this.apart.entries()) {
        if (!this.guarded(i)) {
          this.apart.delete(t);
          break;
        }
        if (++looked >= SHELTER_LOOKS) break;
      }
    }
    this.apart.set(tag, id);
    this.counts.sheltered++;
  }
}
