// The player record: where a player was and what they hold, stored in the DHT
// under the player id ('player' namespace) and locally, so a player who comes back, in a
// new session or after every host they knew has left, resumes where they stood.
// Anyone may store a value under any key, so the record is signed by the player's
// identity key and carries the public key; a reader checks that the key hashes to the
// player id, that the signature holds, and that the record is not older than one it
// already has (a replayed old record must not move a player back). docs/DESIGN.md "Bad input
// and trust": another peer's words about a player's record change nothing.
// The held items (id and kind, docs/ITEMS.md) are the owner's own word: the region state
// decides who holds an item; the record lets the owner's inventory show before (or without)
// the regions holding its items answering, e.g. after a reload far from them.
import * as v from 'valibot';
import { bytes, CodecError, defineCodec, epochMs } from '../core/codec';
import { verifySignature, type Identity } from '../core/identity';
import { publicKeyMatchesId } from '../core/key-ids';
import { ID_BYTES, idEquals, idToHex, type NodeId } from '../core/node-id';
import type { Pose } from '../world/pose';
import { ITEM_KINDS, type ItemKind } from '../agree/item-kinds';
import { itemIdSchema } from '../agree/item-ledger';
import { VoxelError } from '../core/errors';

/** A record stamped further than this ahead of the reader's clock is refused (it would pin the record). */
const MAX_FUTURE_MS = 10 * 60_000;

/** Largest encoded record: under the DHT's 4 KiB value limit for the 'player' namespace (32 held items of 40-char ids fit). */
export const MAX_PLAYER_RECORD_BYTES = 2560;
/** Held items a record lists at most (an inventory larger than this lists its first ones). */
export const MAX_HELD_IN_RECORD = 32;
/** Domain separation: a player-record signature can never be mistaken for another signed message. */
const SIGNING_CONTEXT = 'voxel-populi/player-record/v1';
/** Coordinates beyond this are not a place in any world. */
const MAX_COORD = 30_000_000;

/** A held item as the record names it. */
export interface HeldItem {
  id: string;
  kind: ItemKind;
}

/** What a player record keeps of a player. */
export type PlayerState = Pose & { items?: readonly HeldItem[] | undefined };

export interface PlayerRecord {
  playerId: NodeId;
  pos: { x: number; y: number; z: number };
  yaw: number;
  pitch: number;
  /** Wall-clock ms (Date.now()) when the player signed it; newer wins. */
  updatedAt: number;
  /** What the player held when signing (absent: nothing, or a record from before items). */
  items?: HeldItem[] | undefined;
  alg: 'Ed25519' | 'ECDSA-P256';
  publicKey: Uint8Array;
  sig: Uint8Array;
}

export type PlayerRecordRejection = 'malformed' | 'wrong-player' | 'key-mismatch' | 'bad-signature' | 'stale' | 'future';

export class PlayerRecordError extends VoxelError {
  override readonly name = 'PlayerRecordError';
  readonly code: `player-record-${PlayerRecordRejection}`;
  constructor(readonly reason: PlayerRecordRejection, message: string) {
    super(message);
    this.code = `player-record-${reason}`;
  }
}

const coord = v.pipe(v.number(), v.finite(), v.minValue(-MAX_COORD), v.maxValue(MAX_COORD));
const angle = v.pipe(v.number(), v.finite(), v.minValue(-8), v.maxValue(8));
const heldSchema = { id: itemIdSchema, kind: v.picklist(ITEM_KINDS) };
const body = {
  playerId: bytes(ID_BYTES, ID_BYTES),
  pos: v.strictObject({ x: coord, y: coord, z: coord }),
  yaw: angle,
  pitch: angle,
  updatedAt: epochMs,
  alg: v.picklist(['Ed25519', 'ECDSA-P256']),
  publicKey: bytes(65),
  items: v.optional(v.pipe(v.array(v.strictObject(heldSchema)), v.minLength(1), v.maxLength(MAX_HELD_IN_RECORD))),
};
const stateSchema = v.object({ x: coord, y: coord, z: coord, yaw: angle, pitch: angle, items: v.optional(v.array(v.object(heldSchema))) });
/** Held items as signed: only when there are some (a record without items signs the bytes it did before items existed). */
const heldField = (items: readonly HeldItem[] | undefined) => (items?.length ? { items: items.map((i) => ({ id: i.id, kind: i.kind })) } : {});
const codec = defineCodec({
  playerRecord: [1, v.strictObject({ ...body, sig: bytes(128) })],
  playerRecordSigned: [2, v.strictObject({ context: v.literal(SIGNING_CONTEXT), ...body })],
}, { maxFrame: MAX_PLAYER_RECORD_BYTES });

/** The exact bytes a player signs: built field by field, so the encoding is canonical. */
export function signedBytes(r: Omit<PlayerRecord, 'sig'>): Uint8Array {
  return codec.encode({
    t: 'playerRecordSigned', context: SIGNING_CONTEXT,
    playerId: r.playerId, pos: { x: r.pos.x, y: r.pos.y, z: r.pos.z }, yaw: r.yaw, pitch: r.pitch,
    updatedAt: r.updatedAt, alg: r.alg, publicKey: r.publicKey, ...heldField(r.items),
  });
}

/** Signs the player's state with their identity; the bytes are what goes into the DHT. */
export async function makePlayerRecord(identity: Identity, state: PlayerState, updatedAt = Date.now()): Promise<Uint8Array> {
  const bad = v.safeParse(stateSchema, state);
  if (!bad.success) throw new PlayerRecordError('malformed', `player state: ${bad.issues[0].message}`);
  const unsigned: Omit<PlayerRecord, 'sig'> = {
    playerId: identity.id, pos: { x: state.x, y: state.y, z: state.z }, yaw: state.yaw, pitch: state.pitch,
    updatedAt: Math.floor(updatedAt), alg: identity.alg, publicKey: identity.publicKey, ...heldField(state.items?.slice(0, MAX_HELD_IN_RECORD)),
  };
  const sig = await identity.sign(signedBytes(unsigned));
  return encodePlayerRecord({ ...unsigned, sig });
}

export function encodePlayerRecord(r: PlayerRecord): Uint8Array {
  return codec.encode({
    t: 'playerRecord', playerId: r.playerId, pos: { x: r.pos.x, y: r.pos.y, z: r.pos.z }, yaw: r.yaw, pitch: r.pitch,
    updatedAt: r.updatedAt, alg: r.alg, publicKey: r.publicKey, ...heldField(r.items), sig: r.sig,
  });
}

/** Schema check only (no signature check): throws PlayerRecordError('malformed'). */
export function decodePlayerRecord(data: Uint8Array): PlayerRecord {
  let msg;
  try {
    msg = codec.decode(data);
  } catch (e) {
    throw new PlayerRecordError('malformed', `player record: ${e instanceof CodecError ? e.message : String(e)}`);
  }
  if (msg.t !== 'playerRecord') throw new PlayerRecordError('malformed', 'player record: not a record');
  const { t: _t, ...r } = msg;
  return r;
}

export interface VerifyOptions {
  /** Reader's wall clock (default Date.now()). */
  now?: number;
  /** updatedAt of the record the reader already holds: only a strictly newer one is accepted. */
  newerThan?: number;
}

/**
 * Decodes and checks a record fetched for `expectedPlayerId`: schema, the public key
 * hashing to the id, the signature, and freshness. Throws PlayerRecordError (stable
 * `reason`) when any check fails; nothing from a rejected record may be used.
 */
export async function verifyPlayerRecord(data: Uint8Array, expectedPlayerId: NodeId, opts: VerifyOptions = {}): Promise<PlayerRecord> {
  const r = decodePlayerRecord(data);
  if (!idEquals(r.playerId, expectedPlayerId)) {
    throw new PlayerRecordError('wrong-player', `record is for player ${idToHex(r.playerId).slice(0, 8)}, not ${idToHex(expectedPlayerId).slice(0, 8)}`);
  }
  if (!(await publicKeyMatchesId('player', r.publicKey, r.playerId))) {
    throw new PlayerRecordError('key-mismatch', 'the record\'s public key is not the player\'s');
  }
  if (!(await verifySignature(r.alg, r.publicKey, signedBytes(r), r.sig))) {
    throw new PlayerRecordError('bad-signature', 'the player record\'s signature does not verify');
  }
  const now = opts.now ?? Date.now();
  if (r.updatedAt > now + MAX_FUTURE_MS) {
    throw new PlayerRecordError('future', `record is stamped ${r.updatedAt - now} ms in the future`);
  }
  if (opts.newerThan !== undefined && r.updatedAt <= opts.newerThan) {
    throw new PlayerRecordError('stale', `record of ${r.updatedAt} is not newer than the held one of ${opts.newerThan}`);
  }
  return r;
}

/** Of several fetched copies (DHT replicas), the newest that verifies; undefined if none does. */
export async function newestPlayerRecord(copies: Uint8Array[], expectedPlayerId: NodeId, opts: VerifyOptions = {}): Promise<PlayerRecord | undefined> {
  let best: PlayerRecord | undefined;
  for (const c of copies) {
    try {
      const r = await verifyPlayerRecord(c, expectedPlayerId, { ...opts, newerThan: Math.max(opts.newerThan ?? -1, best?.updatedAt ?? -1) });
      best = r;
    } catch {
      // A forged or stale copy is simply not the answer.
    }
  }
  return best;
}
