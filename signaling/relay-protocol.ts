// The relay's wire protocol: JSON text frames over one WebSocket. Shared by the relay
// (signaling/relay.ts) and its client adapter (src/net/relay-bootstrap.ts keeps its own
// copy of the client-side schemas, since src/ must not import from signaling/).
//
// client -> relay
//   { type: 'register', id }                  first message; id = 40 hex chars (node id)
//   { type: 'signal', to, blob }              relay an opaque signal object to a live id
//   { type: 'peers', n? }                     ask for up to n (<= MAX_PEERS) random live ids
// relay -> client
//   { type: 'registered', id }
//   { type: 'signal', from, blob }
//   { type: 'peers', ids }
//   { type: 'error', code, message, to? }     the socket stays open unless it keeps erring
import * as v from 'valibot';

export const MAX_PEERS = 32;
const Hex40 = v.pipe(v.string(), v.regex(/^[0-9a-f]{40}$/));

export const ClientMessageSchema = v.variant('type', [
  v.object({ type: v.literal('register'), id: Hex40 }),
  v.object({ type: v.literal('signal'), to: Hex40, blob: v.record(v.string(), v.unknown()) }),
  v.object({ type: v.literal('peers'), n: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_PEERS))) }),
]);
export type ClientMessage = v.InferOutput<typeof ClientMessageSchema>;

export type RelayErrorCode =
  | 'too-large' | 'rate-limited' | 'bad-json' | 'bad-message' | 'not-registered'
  | 'already-registered' | 'id-taken' | 'unknown-peer' | 'full';

export type RelayMessage =
  | { type: 'registered'; id: string }
  | { type: 'signal'; from: string; blob: Record<string, unknown> }
  | { type: 'peers'; ids: string[] }
  | { type: 'error'; code: RelayErrorCode; message: string; to?: string };
