// What a region leaves in the DHT: the location record ('chunk' namespace: who is primary
// in which epoch, and the host set) and the edit log ('edits' namespace: the entries, so
// the region outlives its hosts). Both are hints to whoever reads them: a location record
// only says where to ask first, and edit entries carry their stamps, so merging a stale
// or partial value is harmless.
//
// The 'edits' value is capped at NAMESPACE_LIMITS.edits.maxValueBytes (64 KiB): a log
// larger than one value is split into parts stored under derived keys
// SHA-256("region-edits:" + key hex + ":" + i); at most MAX_EDIT_PARTS parts (about 80k
// edited blocks); beyond that only the newest entries are published (hosts keep all).
import * as v from 'valibot';
import { bytes, defineCodec, u32 } from '../core/codec';
import { ID_BYTES, idToHex, type NodeId } from '../core/node-id';
import type { DhtNode } from '../dht/dht-node';
import { NAMESPACE_LIMITS } from '../dht/messages';
import { keyHashing } from './region-key';
import { compareStamp, decodeEntries, encodeEntries, ENTRY_BYTES, type Entry, type Stamp } from './region-state';

export const MAX_EDIT_PARTS = 16;
/** Entries per 'edits' value, leaving room for the envelope. */
export const ENTRIES_PER_VALUE = Math.floor((NAMESPACE_LIMITS.edits.maxValueBytes - 256) / ENTRY_BYTES);

const id = bytes(ID_BYTES, ID_BYTES);
const recordCodec = defineCodec(
  {
    LOCATION: [1, v.object({ primary: id, epoch: u32, hosts: v.pipe(v.array(id), v.maxLength(8)) })],
    EDITS: [2, v.object({ v: v.object({ e: u32, s: u32 }), n: v.pipe(u32, v.minValue(1), v.maxValue(MAX_EDIT_PARTS)), entries: bytes(NAMESPACE_LIMITS.edits.maxValueBytes) })],
    EDITS_PART: [3, v.object({ v: v.object({ e: u32, s: u32 }), i: u32, entries: bytes(NAMESPACE_LIMITS.edits.maxValueBytes) })],
  },
  { maxFrame: NAMESPACE_LIMITS.edits.maxValueBytes },
);

export interface LocationRecord {
  primary: NodeId;
  epoch: number;
  hosts: NodeId[];
}

type Dht = Pick<DhtNode, 'put' | 'get'>;

/** DHT value seq of a stamp: later stamps replace earlier values (epochs < 4096 fit u32). */
export function stampSeq(s: Stamp): number {
  return Math.min(0xffffffff, s.e * 2 ** 20 + Math.min(s.s, 2 ** 20 - 1));
}

export async function putLocation(dht: Dht, key: NodeId, rec: LocationRecord, revision: number): Promise<void> {
  const value = recordCodec.encode({ t: 'LOCATION', primary: rec.primary, epoch: rec.epoch, hosts: rec.hosts });
  await dht.put('chunk', key, value, { seq: Math.min(0xffffffff, rec.epoch * 1024 + Math.min(revision, 1023)) });
}

export async function getLocation(dht: Pick<DhtNode, 'get'>, key: NodeId): Promise<LocationRecord | undefined> {
  const got = await dht.get('chunk', key);
  if (!got) return undefined;
  try {
    const m = recordCodec.decode(got.value);
    return m.t === 'LOCATION' ? { primary: m.primary, epoch: m.epoch, hosts: m.hosts } : undefined;
  } catch {
    return undefined;
  }
}

async function partKey(key: NodeId, i: number): Promise<NodeId> {
  return keyHashing.hash(`region-edits:${idToHex(key)}:${i}`);
}

/** Publishes the region's entries (newest first when capped). Resolves with the entries left out. */
export async function putEdits(dht: Dht, key: NodeId, version: Stamp, entries: Entry[]): Promise<number> {
  const cap = ENTRIES_PER_VALUE * MAX_EDIT_PARTS;
  const list = entries.length > cap ? [...entries].sort((a, b) => compareStamp(b, a)).slice(0, cap) : entries;
  const n = Math.max(1, Math.ceil(list.length / ENTRIES_PER_VALUE));
  const seq = stampSeq(version);
  const slice = (i: number) => encodeEntries(list.slice(i * ENTRIES_PER_VALUE, (i + 1) * ENTRIES_PER_VALUE));
  // Parts first, so a reader of the new head finds its parts.
  const parts: Promise<unknown>[] = [];
  for (let i = 1; i < n; i++) parts.push(partKey(key, i).then((k) => dht.put('edits', k, recordCodec.encode({ t: 'EDITS_PART', v: version, i, entries: slice(i) }), { seq })));
  await Promise.all(parts);
  await dht.put('edits', key, recordCodec.encode({ t: 'EDITS', v: version, n, entries: slice(0) }), { seq });
  return entries.length - list.length;
}

/** The region's published entries (whatever parts could be read), or undefined when none. */
export async function getEdits(dht: Pick<DhtNode, 'get'>, key: NodeId): Promise<Entry[] | undefined> {
  const got = await dht.get('edits', key);
  if (!got) return undefined;
  try {
    const head = recordCodec.decode(got.value);
    if (head.t !== 'EDITS') return undefined;
    const out = decodeEntries(head.entries);
    const parts = await Promise.all(
      Array.from({ length: head.n - 1 }, async (_, j) => {
        const part = await dht.get('edits', await partKey(key, j + 1)).catch(() => undefined);
        if (!part) return [];
        try {
          const m = recordCodec.decode(part.value);
          return m.t === 'EDITS_PART' ? decodeEntries(m.entries) : [];
        } catch {
          return [];
        }
      }),
    );
    for (const p of parts) out.push(...p);
    return out;
  } catch {
    return undefined;
  }
}
