// The relay's wire protocol: JSON text frames over one WebSocket. The one definition both
// ends use: the relay (signaling/relay.ts) checks client frames against ClientMessageSchema
// and sends RelayMessage; the client adapter (relay-bootstrap.ts) sends ClientMessage and
// checks the relay's frames against RelayMessageSchema. It lives in src/ because the client
// is bundled into the tab; it is pure (valibot only), so the Node relay can import it.
//
// relay -> client, first, on every new socket
//   { type: 'challenge', nonce }              32 random bytes, base64
// client -> relay
//   { type: 'register', id, alg, pk, sig, net? }
//                                             id = 40 hex chars (node id); pk = the raw public key
//                                             it hashes from (node id = first 160 bits of its
//                                             SHA-256, core/identity.ts); sig = signature by
//                                             that key over registerProof(nonce, id); net = the
//                                             network id (32 hex chars, net/network-id.ts: a hash
//                                             of the world's name and seed). The socket joins that
//                                             network's room; without net, the room of the unnamed
//                                             network (clients from before rooms, among themselves)
//   { type: 'signal', to, blob }              relay an opaque signal object to a live id of the
//                                             sender's room (another room's id is 'unknown-peer')
//   { type: 'peers', n? }                     ask for up to n (<= MAX_PEERS) random live ids of
//                                             the sender's room (unregistered: of the unnamed one)
//   { type: 'ice' }                           ask for fresh ICE servers (registered sockets)
//   { type: 'ping' }                          answered with 'pong': the client's keepalive (a
//                                             socket whose NAT mapping was lost is heard from
//                                             nowhere: only the client's own sending finds it)
// relay -> client
//   { type: 'registered', id, net?, ice?, ping? }
//                                             net: the room joined, as asked (a relay from before
//                                             rooms says none: it lists every world's peers). A live socket of the same id (a tab that crashed
//                                             and came back) is closed: the proven owner takes
//                                             its id back at once. ice: the relay's ICE servers,
//                                             TURN ones with credentials good for ttl seconds
//                                             (IceGrant; only to a proven id). ping: 1, this
//                                             relay answers 'ping' (an older one would count it
//                                             a bad frame: its clients probe with 'peers')
//   { type: 'ice', ice }                      the answer to 'ice': a fresh IceGrant
//   { type: 'signal', from, blob }
//   { type: 'peers', ids }
//   { type: 'pong' }                          the answer to 'ping'
//   { type: 'error', code, message, to? }     the socket stays open unless it keeps erring
import * as v from 'valibot';
import { IceServerListSchema } from './ice-servers';

/** The room of a socket that names no network (network-id.ts), for the relay's own use. */
export { UNNAMED_NETWORK } from './network-id';

export const MAX_PEERS = 32;
const Hex40 = v.pipe(v.string(), v.regex(/^[0-9a-f]{40}$/));
/** A network id (net/network-id.ts). */
const NetworkHex = v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/));
const B64 = (max: number) => v.pipe(v.string(), v.maxLength(max), v.regex(/^[A-Za-z0-9+/]*={0,2}$/));

/** Bytes of the relay's challenge nonce. */
export const CHALLENGE_BYTES = 32;
const PROOF_CONTEXT = 'voxel-populi relay register v1\0';

/** What a client signs to register `idHex` on the socket that got `nonce` (base64). */
export function registerProof(nonce: string, idHex: string): Uint8Array {
  return new TextEncoder().encode(`${PROOF_CONTEXT}${nonce}\0${idHex}`);
}

export const ClientMessageSchema = v.variant('type', [
  v.object({
    type: v.literal('register'),
    id: Hex40,
    alg: v.picklist(['Ed25519', 'ECDSA-P256']),
    /** Raw public key: 32 bytes (Ed25519) or 65 (P-256), base64. */
    pk: B64(100),
    /** Signature over registerProof(nonce, id), base64 (64 bytes for both algorithms). */
    sig: B64(100),
    /** The network whose room the socket joins (none: the unnamed network's). Not signed: a room is a meeting place, not a proof. */
    net: v.optional(NetworkHex),
  }),
  v.object({ type: v.literal('signal'), to: Hex40, blob: v.record(v.string(), v.unknown()) }),
  v.object({ type: v.literal('peers'), n: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_PEERS))) }),
  v.object({ type: v.literal('ice') }),
  v.object({ type: v.literal('ping') }),
]);
export type ClientMessage = v.InferOutput<typeof ClientMessageSchema>;

export type RelayErrorCode =
  | 'too-large' | 'rate-limited' | 'bad-json' | 'bad-message' | 'not-registered'
  | 'already-registered' | 'bad-proof' | 'unknown-peer' | 'full' | 'address-full';

/** Longest credential lifetime a client believes (seconds): a week. */
export const MAX_ICE_TTL = 7 * 86_400;

/**
 * ICE servers a relay hands out: its STUN and TURN servers, the TURN ones with credentials
 * minted for this id (signaling/turn-credentials.ts), good for `ttl` seconds from now.
 * Bounded (ice-servers.ts) so a relay cannot make a tab try many servers.
 */
export const IceGrantSchema = v.object({
  iceServers: IceServerListSchema,
  ttl: v.optional(v.pipe(v.number(), v.integer(), v.minValue(60), v.maxValue(MAX_ICE_TTL))),
});
export type IceGrant = v.InferOutput<typeof IceGrantSchema>;

/** What the relay sends. */
export type RelayMessage =
  | { type: 'challenge'; nonce: string }
  | { type: 'registered'; id: string; net?: string; ice?: IceGrant; ping?: 1 }
  | { type: 'ice'; ice: IceGrant }
  | { type: 'signal'; from: string; blob: Record<string, unknown> }
  | { type: 'peers'; ids: string[] }
  | { type: 'pong' }
  | { type: 'error'; code: RelayErrorCode; message: string; to?: string };

/**
 * What the client accepts from a relay. Looser than RelayMessage where a relay of another
 * version may differ without harm: any short error code (only 'unknown-peer' is acted on),
 * an optional message, up to 64 ids.
 */
export const RelayMessageSchema = v.variant('type', [
  v.object({ type: v.literal('challenge'), nonce: B64(64) }),
  // The grant is checked on its own (IceGrantSchema) so a bad one is dropped, not the registration.
  // `ping` read loosely too: only 1 means the relay answers pings; anything else, that it may not.
  v.object({ type: v.literal('registered'), id: Hex40, net: v.optional(NetworkHex), ice: v.optional(v.unknown()), ping: v.optional(v.unknown()) }),
  v.object({ type: v.literal('ice'), ice: IceGrantSchema }),
  v.object({ type: v.literal('signal'), from: Hex40, blob: v.record(v.string(), v.unknown()) }),
  v.object({ type: v.literal('peers'), ids: v.pipe(v.array(Hex40), v.maxLength(64)) }),
  v.object({ type: v.literal('pong') }),
  v.object({ type: v.literal('error'), code: v.pipe(v.string(), v.maxLength(64)), message: v.optional(v.string()), to: v.optional(Hex40) }),
]);

// Compile-time tie between the two ends: every message the relay can send has the shape
// the client's schema reads (the values are checked at run time by the schema itself).
const relaySendsWhatClientReads = (m: RelayMessage): v.InferInput<typeof RelayMessageSchema> => m;
void relaySendsWhatClientReads;
