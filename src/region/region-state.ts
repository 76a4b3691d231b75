// A region's state: per block, the last writer's block id and stamp (epoch, seq). Merging
// two states keeps, per block, the entry with the higher stamp, so states from any hosts
// can be merged in any order and no confirmed edit is lost across takeovers. Terrain is
// generated from the seed; only these entries travel or get stored.
//
// Entries on the wire: 12 bytes each, [key u24][id u8][epoch u32][seq u32], key =
// column index << 16 | block index. Decoding trusts nothing.
import { BLOCK_COUNT } from '../world/blocks';
import { editAt, type BlockEdit } from '../world/chunk-edits';
import { CHUNK_VOLUME, blockIndex } from '../world/coords';
import { settableAtIndex } from '../world/world-rules';
import { REGION_COLUMNS } from './region-key';
import { VoxelError } from '../core/errors';

export const ENTRY_BYTES = 12;
/** Entries per frame when a whole state travels (SYNC, GRANT, SNAPSHOT): 768 KiB, well under the 2 MiB reassembly limit. */
export const PIECE_ENTRIES = 65_536;

/** A state cut into frame-sized pieces (at least one, possibly empty), so no frame outgrows the wire. */
export function pieces(entries: readonly Entry[], max = PIECE_ENTRIES): Entry[][] {
  const out: Entry[][] = [];
  for (let i = 0; i < entries.length; i += max) out.push(entries.slice(i, i + max));
  return out.length ? out : [[]];
}
const MAX_KEY = REGION_COLUMNS * CHUNK_VOLUME;

export interface Stamp {
  readonly e: number;
  readonly s: number;
}

export interface Entry {
  /** column index << 16 | block index */
  readonly key: number;
  readonly id: number;
  readonly e: number;
  readonly s: number;
}

export const ZERO: Stamp = { e: 0, s: 0 };

/** Negative when a is older than b. */
export function compareStamp(a: Stamp, b: Stamp): number {
  return a.e !== b.e ? a.e - b.e : a.s - b.s;
}

/**
 * Whether an entry obeys the world's rules (world/world-rules.ts: air or a placeable block,
 * never at the floor). Every entry another node sends is held to them before it is merged,
 * stored or shown, whoever signed it: a certified primary is one host of the set.
 */
export function obeysWorldRules(e: Pick<Entry, 'key' | 'id'>): boolean {
  return settableAtIndex(e.key, e.id);
}

export function entryKey(col: number, x: number, y: number, z: number): number {
  return col * CHUNK_VOLUME + blockIndex(x, y, z);
}

export class EntryDecodeError extends VoxelError {
  readonly code = 'entry-malformed';
  override readonly name = 'EntryDecodeError';
}

export function encodeEntries(entries: readonly Entry[]): Uint8Array {
  const out = new Uint8Array(entries.length * ENTRY_BYTES);
  const dv = new DataView(out.buffer);
  let p = 0;
  for (const e of entries) {
    out[p] = e.key >>> 16;
    out[p + 1] = (e.key >>> 8) & 0xff;
    out[p + 2] = e.key & 0xff;
    out[p + 3] = e.id;
    dv.setUint32(p + 4, e.e);
    dv.setUint32(p + 8, e.s);
    p += ENTRY_BYTES;
  }
  return out;
}

export function decodeEntries(bytes: Uint8Array): Entry[] {
  if (bytes.length % ENTRY_BYTES !== 0) throw new EntryDecodeError(`entries of ${bytes.length} bytes are not a multiple of ${ENTRY_BYTES}`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Entry[] = [];
  const seen = new Set<number>();
  for (let p = 0; p < bytes.length; p += ENTRY_BYTES) {
    const key = (bytes[p]! << 16) | (bytes[p + 1]! << 8) | bytes[p + 2]!;
    const id = bytes[p + 3]!;
    if (key >= MAX_KEY) throw new EntryDecodeError(`entry key ${key} is outside the region`);
    if (id >= BLOCK_COUNT) throw new EntryDecodeError(`entry has unknown block id ${id}`);
    if (seen.has(key)) throw new EntryDecodeError(`entry key ${key} repeats`);
    seen.add(key);
    out.push({ key, id, e: dv.getUint32(p + 4), s: dv.getUint32(p + 8) });
  }
  return out;
}

/** The entries, or undefined when the bytes are not valid entries (a frame to drop and count). */
export function tryDecodeEntries(bytes: Uint8Array): Entry[] | undefined {
  try {
    return decodeEntries(bytes);
  } catch {
    return undefined;
  }
}

/**
 * A frame's entries that obey the world's rules (`obeysWorldRules`), with how many did not
 * (`against`), or undefined when the bytes do not decode.
 */
export function tryDecodeWithinRules(bytes: Uint8Array): { entries: Entry[]; against: number } | undefined {
  const all = tryDecodeEntries(bytes);
  if (!all) return undefined;
  const entries = all.filter(obeysWorldRules);
  return { entries, against: all.length - entries.length };
}

export class RegionState {
  private readonly map = new Map<number, Entry>();
  /** Highest stamp of any entry ever merged (the state's version). */
  version: Stamp = ZERO;

  static from(entries: Iterable<Entry>): RegionState {
    const s = new RegionState();
    s.merge(entries);
    return s;
  }

  get size(): number {
    return this.map.size;
  }

  get(key: number): Entry | undefined {
    return this.map.get(key);
  }

  /** Keeps, per block, the higher stamp. Returns the entries that changed this state. */
  merge(entries: Iterable<Entry>): Entry[] {
    const changed: Entry[] = [];
    for (const e of entries) {
      const held = this.map.get(e.key);
      if (held && compareStamp(held, e) >= 0) continue;
      this.map.set(e.key, e);
      changed.push(e);
      if (compareStamp(e, this.version) > 0) this.version = { e: e.e, s: e.s };
    }
    return changed;
  }

  /** Entries stamped after `since` (everything for ZERO), in stamp order. */
  since(since: Stamp = ZERO): Entry[] {
    const out: Entry[] = [];
    for (const e of this.map.values()) if (compareStamp(e, since) > 0) out.push(e);
    return out.sort(compareStamp);
  }

  all(): Entry[] {
    return this.since(ZERO);
  }

  /** The edits of one column (local coordinates), for generateChunk + apply. */
  column(col: number): BlockEdit[] {
    const out: BlockEdit[] = [];
    const lo = col * CHUNK_VOLUME;
    for (const e of this.map.values()) if (e.key >= lo && e.key < lo + CHUNK_VOLUME) out.push(editAt(e.key - lo, e.id));
    return out;
  }

  /** A content fingerprint (for tests and diagnostics): sorted key=id pairs. */
  fingerprint(): string {
    return [...this.map.values()].sort((a, b) => a.key - b.key).map((e) => `${e.key}=${e.id}`).join(',');
  }
}
