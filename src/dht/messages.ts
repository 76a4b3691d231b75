// DHT wire messages: the Kademlia RPCs (PING, FIND_NODE, FIND_VALUE, STORE and their
// replies), overlay SIGNAL and application DATA. Every frame read from a link goes
// through `dhtCodec.decode` before anything else sees it, except the routed envelope
// ROUTE: its fixed header is read by route-frame.ts, and the one frame it carries goes
// through `dhtCodec.decode` at the destination.
//
// The dissertation's STORE_CHUNK/FIND_CHUNK/STORE_PLAYER/FIND_PLAYER are STORE and
// FIND_VALUE with a namespace: one routing table, separate value tables per namespace.
import * as v from 'valibot';
import { bytes, defineCodec, u32, type MessageOf } from '../core/codec';
import { ID_BYTES } from '../core/node-id';

/** Value namespaces: chunk (region host location records), player records, edit logs, diagnostics. */
export const NAMESPACES = ['chunk', 'player', 'edits', 'test'] as const;
export type Namespace = (typeof NAMESPACES)[number];

/** Per-namespace caps: largest value and most records one node keeps. */
export const NAMESPACE_LIMITS: Record<Namespace, { maxValueBytes: number; maxRecords: number }> = {
  chunk: { maxValueBytes: 1024, maxRecords: 50_000 },
  player: { maxValueBytes: 4096, maxRecords: 20_000 },
  edits: { maxValueBytes: 64 * 1024, maxRecords: 4_000 },
  test: { maxValueBytes: 1024, maxRecords: 10_000 },
};

/** Largest frame: an edits value plus envelope and routing trace. */
export const MAX_FRAME = 80 * 1024;
/** Most ids in one NODES/VALUE reply, ROUTE trace or source route. */
export const MAX_IDS = 64;
/** Hop limit ceiling of a routed message. */
export const MAX_TTL = 64;
/** Largest value TTL a STORE may ask for (48 h). */
export const MAX_VALUE_TTL_MS = 48 * 3600_000;

const id = bytes(ID_BYTES, ID_BYTES);
// A list of ids is checked and copied in one pass (NODES replies are the hottest frames).
const ids = v.pipe(
  v.custom<Uint8Array[]>(
    (x) => Array.isArray(x) && x.length <= MAX_IDS && x.every((b) => b instanceof Uint8Array && b.length === ID_BYTES),
    `expected at most ${MAX_IDS} ids of ${ID_BYTES} bytes`,
  ),
  v.transform((xs): Uint8Array[] => xs.map((b) => new Uint8Array(b))),
);
const ns = v.picklist(NAMESPACES);
const maxValue = Math.max(...Object.values(NAMESPACE_LIMITS).map((l) => l.maxValueBytes));

/** A stored value: bytes, who published it, its version and remaining lifetime. */
export const valueRecordSchema = v.object({
  /** The value bytes (checked against the namespace cap by the store). */
  v: bytes(maxValue),
  /** Publisher node id (a claim: nothing checks it unless the namespace's rule does). */
  pub: id,
  /**
   * The publisher's version. Orders values only in a namespace without an owner rule;
   * where there is one, holders and readers take the version from the rule (record-rules.ts).
   */
  seq: u32,
  /** Milliseconds the value still lives (relative, because clocks differ between peers). */
  ttl: v.pipe(u32, v.maxValue(MAX_VALUE_TTL_MS)),
});
export type ValueRecord = v.InferOutput<typeof valueRecordSchema>;

/**
 * Set (to 1) on every frame a read-only node sends (BEP 43's `ro`; read-only-peers.ts): its
 * receivers keep it out of their routing tables, their answers and their routes. Absent
 * on a full node's frames. Only ever says something about the frame's own sender (the
 * link's peer, or a routed message's signed source).
 */
const ro = v.optional(v.literal(1));
/**
 * Set (to 1) on every frame a node that hosts no regions sends (DhtOptions.noHost: a
 * `?hosting=off` tab): it stays a full contact, holder and router, but region hosts keep it
 * out of their host sets (host/hosting-service.ts), which it would only make smaller (it
 * never grants a claim nor acks a replica). Like `ro`, only ever about the frame's sender.
 */
const nh = v.optional(v.literal(1));

export const dhtSpec = {
  PING: [1, v.object({ r: u32, ro, nh })],
  PONG: [2, v.object({ r: u32, ro, nh })],
  FIND_NODE: [3, v.object({ r: u32, target: id, ro, nh })],
  NODES: [4, v.object({ r: u32, nodes: ids, ro, nh })],
  FIND_VALUE: [5, v.object({ r: u32, ns, key: id, ro, nh })],
  VALUE: [6, v.object({ r: u32, rec: v.optional(valueRecordSchema), nodes: ids, ro, nh })],
  STORE: [7, v.object({ r: u32, ns, key: id, rec: valueRecordSchema, ro, nh })],
  STORED: [8, v.object({ r: u32, ok: v.boolean(), ro, nh })],
  /** An offer/answer blob of a link being signaled through the overlay (always routed). */
  SIGNAL: [9, v.object({ blob: v.record(v.string(), v.unknown()), ro, nh })],
  /** An application payload sent with DhtNode.send (always routed). */
  DATA: [10, v.object({ body: bytes(MAX_FRAME), ro, nh })],
  // Code 11 was the msgpack ROUTE envelope; routed messages are route-frame.ts frames now.
  /**
   * Sent on a link (never routed) by the end that closes it for budget: the receiver stops
   * sending on it at once, and both ends keep reading it until the closer drops it, so
   * nothing already in flight either way is lost (link-set.ts, `retire`).
   */
  CLOSING: [12, v.object({})],
} as const;

export type DhtMessage = MessageOf<typeof dhtSpec>;
export type DhtMessageOf<T extends DhtMessage['t']> = Extract<DhtMessage, { t: T }>;

export const dhtCodec = defineCodec(dhtSpec, { maxFrame: MAX_FRAME });

/** Message types that are RPC requests, and the reply type each expects. */
export const REPLY_OF = { PING: 'PONG', FIND_NODE: 'NODES', FIND_VALUE: 'VALUE', STORE: 'STORED' } as const;
export type RequestType = keyof typeof REPLY_OF;
export type Request = DhtMessageOf<RequestType>;
export type Reply = DhtMessageOf<(typeof REPLY_OF)[RequestType]>;
