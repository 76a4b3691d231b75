// What the two region codecs share: frame size limits, the schema pieces both use, and the
// PART frame that carries a frame larger than WIRE_MAX in pieces. The host-to-player codec
// is subscription-messages.ts; the host-to-host one is host/replication-messages.ts.
import * as v from 'valibot';
import { bytes, u32 } from '../core/codec';
import { ID_BYTES } from '../core/node-id';
import { MAX_CERT_HOSTS } from './epoch-cert';
import { PLAYER_COLOUR_MAX } from '../world/player-colour';
import { isPlayerName } from '../world/player-name';

/** Largest frame sent as one DATA payload; larger ones travel as PART frames. */
export const WIRE_MAX = 60 * 1024;
/** Bytes of one PART. */
export const PART_BYTES = 48 * 1024;
/** Largest reassembled frame (a region state of ~170k edited blocks). */
export const ASSEMBLED_MAX = 2 * 1024 * 1024;
/** Host ids named in a frame: a host set, so as many as a certificate names. */
export const MAX_HOSTS = MAX_CERT_HOSTS;

export const id = bytes(ID_BYTES, ID_BYTES);
export const hosts = v.pipe(v.array(id), v.maxLength(MAX_HOSTS));
export const i32 = v.pipe(v.number(), v.integer(), v.minValue(-0x80000000), v.maxValue(0x7fffffff));
export const coord = v.pipe(v.number(), v.finite(), v.minValue(-1e8), v.maxValue(1e8));
export const entries = bytes(ASSEMBLED_MAX);
export const stamp = v.object({ e: u32, s: u32 });
export const region = { rx: i32, rz: i32 };
/** A player's colour: an index into the palette (world/player-colour.ts), nothing else. */
export const playerColour = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(PLAYER_COLOUR_MAX));

/**
 * A player's name: a name outside the rule (world/player-name.ts) is a hostile sender's, its
 * frame dropped and counted (an honest sender normalises before sending), never shown cleaned.
 */
export const playerName = v.pipe(v.string(), v.maxLength(32), v.check((s: string) => isPlayerName(s), 'not a player name'));

/** One piece of a frame larger than WIRE_MAX (same type code in both codecs). */
export const PART = [19, v.object({ x: u32, i: u32, n: v.pipe(u32, v.minValue(1), v.maxValue(Math.ceil(ASSEMBLED_MAX / PART_BYTES))), b: bytes(PART_BYTES) })] as const;

/** The largest encoded frame either codec accepts (a reassembled state plus its frame fields). */
export const CODEC_MAX_FRAME = ASSEMBLED_MAX + 1024;
