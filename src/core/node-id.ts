// 160-bit Kademlia node ids and XOR distance. Ids are Uint8Array(20); hex strings are
// used only as Map keys and on screen.

export const ID_BYTES = 20;
export const ID_BITS = ID_BYTES * 8;

export type NodeId = Uint8Array;

const HEX_CHARS = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const hexCodes = new Uint16Array(2 * ID_BYTES);

/**
 * Hex of an id. Built from char codes in one call so the result is a flat string: hex
 * ids are Map keys on every hop, and a string made by 20 concatenations is flattened
 * (copied) again when first hashed.
 */
export function idToHex(id: NodeId): string {
  const codes = id.length === ID_BYTES ? hexCodes : new Uint16Array(2 * id.length);
  for (let i = 0; i < id.length; i++) {
    codes[2 * i] = HEX_CHARS[id[i]! >> 4]!;
    codes[2 * i + 1] = HEX_CHARS[id[i]! & 15]!;
  }
  return String.fromCharCode.apply(null, codes as unknown as number[]);
}

export function hexToId(hex: string): NodeId {
  if (!/^[0-9a-f]{40}$/.test(hex)) throw new TypeError(`not a 160-bit hex node id: ${hex.slice(0, 48)}`);
  const out = new Uint8Array(ID_BYTES);
  for (let i = 0; i < ID_BYTES; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function isNodeId(x: unknown): x is NodeId {
  return x instanceof Uint8Array && x.length === ID_BYTES;
}

export function idEquals(a: NodeId, b: NodeId): boolean {
  for (let i = 0; i < ID_BYTES; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Negative when a is closer to target than b, positive when farther, 0 when equal. */
export function compareDistance(a: NodeId, b: NodeId, target: NodeId): number {
  for (let i = 0; i < ID_BYTES; i++) {
    const da = a[i]! ^ target[i]!;
    const db = b[i]! ^ target[i]!;
    if (da !== db) return da - db;
  }
  return 0;
}

/**
 * k-bucket index of `other` seen from `self`: 159 for ids differing in the top bit,
 * 0 for ids differing only in the last bit, -1 for the same id.
 */
export function bucketIndex(self: NodeId, other: NodeId): number {
  for (let i = 0; i < ID_BYTES; i++) {
    const x = self[i]! ^ other[i]!;
    if (x !== 0) return (ID_BYTES - 1 - i) * 8 + (31 - Math.clz32(x));
  }
  return -1;
}

export function sortByDistance<T>(items: T[], idOf: (t: T) => NodeId, target: NodeId): T[] {
  return items.sort((a, b) => compareDistance(idOf(a), idOf(b), target));
}

export async function sha256(data: Uint8Array | string): Promise<Uint8Array> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}

/** A DHT key or node id derived from content: first 160 bits of SHA-256. */
export async function idFromSha256(data: Uint8Array | string): Promise<NodeId> {
  return (await sha256(data)).slice(0, ID_BYTES);
}

/** A random id (for bucket refresh targets and simulated nodes); `rand` is injectable for determinism. */
export function randomId(rand: () => number = Math.random): NodeId {
  const out = new Uint8Array(ID_BYTES);
  for (let i = 0; i < ID_BYTES; i++) out[i] = Math.floor(rand() * 256);
  return out;
}
