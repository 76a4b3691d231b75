// A chat line as it travels: said by a player (the line names the player id and carries the
// player key), signed by that key over the world, the time, the speaker's name and colour
// (world/player-colour.ts) and the text.
// The region hosts carry lines like positions (SAY to the primary of the region the speaker
// stands in, CHAT from it to the region's subscribers), but they are not trusted with the
// words: every receiver checks the signature itself, so no host, and no other player, can
// put words in a player's mouth. The text is plain text for a text node, never markup:
// the rule below refuses control and format characters (bidi overrides, zero-width ones)
// and towers of combining marks (three or more in a row), so what one player sees is what the speaker typed.
import * as v from 'valibot';
import { bytes, epochMs } from '../core/codec';
import { ID_BYTES } from '../core/node-id';
import type { Signer, Verifier } from '../core/signer';
import { defaultPlayerColour } from '../world/player-colour';
import { idToHex } from '../core/node-id';
import { KEY_ALGS, keyAlgCode, keyAlgSchema } from '../core/key-alg-code';
import { playerColour, playerName } from './frame-schemas';

/** Characters (code points) a line holds at most. */
export const MAX_CHAT_CHARS = 200;

/**
 * Lines one player may say at once, and then per second: a region's primary passes on no more
 * (host/chat-relay.ts refuses the rest as 'player-rate'), and the chat client says no more
 * (play/chat-client.ts), so that no line is said in vain.
 */
export const CHAT_RATE = { burst: 5, perSec: 1 };

const REFUSED = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}]|\p{M}{3,}/u;

/** What a person typed made a line's text (NFC, spaces made one, trimmed), or undefined when none can be. */
export function normaliseChatText(typed: string): string | undefined {
  if (typed.length > MAX_CHAT_CHARS * 8) return undefined;
  const text = typed.normalize('NFC').replace(/\s+/gu, ' ').trim();
  const chars = [...text].length;
  return chars >= 1 && chars <= MAX_CHAT_CHARS && !REFUSED.test(text) ? text : undefined;
}

/** True when `text` is exactly a line's text (what a receiver checks: it cleans nothing). */
export function isChatText(text: string): boolean {
  return normaliseChatText(text) === text;
}

/** A line's fields in SAY and CHAT: player id, key algorithm (0 Ed25519, 1 P-256), key, when (epoch ms; not `t`, a frame's type), name, colour, text, signature. */
export const chatLineFields = {
  p: bytes(ID_BYTES, ID_BYTES),
  a: keyAlgSchema,
  k: bytes(65),
  w: epochMs,
  n: playerName,
  c: playerColour,
  x: v.pipe(v.string(), v.maxLength(MAX_CHAT_CHARS * 2), v.check((x: string) => isChatText(x), 'not chat text')),
  s: bytes(72),
};
export type ChatLine = v.InferOutput<ReturnType<typeof v.object<typeof chatLineFields>>>;

const DOMAIN = new TextEncoder().encode('voxel-populi/chat/v2\0');

/** The bytes a player signs for words of theirs: the domain (what kind of words), the player id, then `fields` as JSON. */
export function playerSignedBytes(domain: Uint8Array, player: Uint8Array, fields: readonly unknown[]): Uint8Array {
  const body = new TextEncoder().encode(JSON.stringify(fields));
  const out = new Uint8Array(domain.length + player.length + body.length);
  out.set(domain);
  out.set(player, domain.length);
  out.set(body, domain.length + player.length);
  return out;
}

/** The bytes the player signs: this line, in this world (a line cannot be carried to another world). */
export function chatBytes(world: string, line: Omit<ChatLine, 's' | 'a' | 'k'>): Uint8Array {
  return playerSignedBytes(DOMAIN, line.p, [world, line.w, line.n, line.c, line.x]);
}

/** A line said by `player` as `name` in `colour` (default: the one its id gives) at wall-clock `w`; `text` must already be normalised (normaliseChatText). */
export async function makeChatLine(player: Signer, world: string, name: string, text: string, w: number, colour = defaultPlayerColour(idToHex(player.id))): Promise<ChatLine> {
  const unsigned = { p: player.id, w: Math.floor(w), n: name, c: colour, x: text };
  return { ...unsigned, a: keyAlgCode(player.alg), k: player.publicKey, s: await player.sign(chatBytes(world, unsigned)) };
}

/** True when the player the line names signed it, in this world, with the key that is theirs (never throws). */
export function verifyChatLine(line: ChatLine, world: string, verify: Verifier): Promise<boolean> {
  return verify('player', line.p, KEY_ALGS[line.a], line.k, chatBytes(world, line), line.s).catch(() => false);
}
