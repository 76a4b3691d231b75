// A direct message as it travels on the 'player' channel: from one player's node to another
// player's node, routed over the DHT like any node-to-node frame (direct when the two nodes
// are linked). The sending player signs it with the player key over the world, the sending
// and the receiving node, the time, the name, the colour and the text: so it is the named player's
// word (a key hashes to the player id it names), said from that node (the receiver checks the
// frame came from the node the signature names, which the routed envelope or the link
// proves), to this node only (a captured message cannot be sent on to someone else), and
// once (the time only goes up per player). The text follows the chat's rule (region/chat-line.ts):
// plain text for a text node, never markup. The receiver answers a message it showed with
// DM_ACK, which the sender reads as "delivered" when it comes from the node it wrote to.
import * as v from 'valibot';
import { bytes, defineCodec, type MessageOf } from '../core/codec';
import { ID_BYTES, idToHex, type NodeId } from '../core/node-id';
import type { Signer, Verifier } from '../core/signer';
import { KEY_ALGS, keyAlgCode } from '../core/key-alg-code';
import { chatLineFields, playerSignedBytes } from '../region/chat-line';
import { defaultPlayerColour } from '../world/player-colour';

const time = chatLineFields.w;

/** A direct message's fields: from node, to node, and a chat line's (player id, key algorithm, key, when, name, colour, text, signature). */
const messageFields = {
  f: bytes(ID_BYTES, ID_BYTES),
  to: bytes(ID_BYTES, ID_BYTES),
  ...chatLineFields,
};

export const directMessageSpec = {
  /** The sender's node -> the receiver's node: a message signed by the sender's player key. */
  DM: [1, v.object(messageFields)],
  /** The receiver's node -> the sender's node: the message stamped `w` was shown. */
  DM_ACK: [2, v.object({ w: time })],
} as const;

export type DirectFrame = MessageOf<typeof directMessageSpec>;
export type DirectMessage = Extract<DirectFrame, { t: 'DM' }>;

/** A DM is a few hundred bytes (200 characters of up to 4 bytes, two ids, a key, a signature); anything longer is refused before decoding. */
export const MAX_DM_FRAME = 2048;

export const directMessageCodec = defineCodec(directMessageSpec, { maxFrame: MAX_DM_FRAME });

const DOMAIN = new TextEncoder().encode('voxel-populi/dm/v2\0');

/** The bytes the sending player signs. */
export function directMessageBytes(world: string, m: Omit<DirectMessage, 't' | 's' | 'a' | 'k'>): Uint8Array {
  return playerSignedBytes(DOMAIN, m.p, [world, idToHex(m.f), idToHex(m.to), m.w, m.n, m.c, m.x]);
}

/** A message from `player` at node `from` to node `to`, as `name` in `colour` (default: the one the player id gives), stamped `w`; `text` already normalised (normaliseChatText). */
export async function makeDirectMessage(player: Signer, world: string, from: NodeId, to: NodeId, name: string, text: string, w: number, colour = defaultPlayerColour(idToHex(player.id))): Promise<DirectMessage> {
  const unsigned = { f: from, to, p: player.id, w: Math.floor(w), n: name, c: colour, x: text };
  return { t: 'DM', ...unsigned, a: keyAlgCode(player.alg), k: player.publicKey, s: await player.sign(directMessageBytes(world, unsigned)) };
}

/** True when the player the message names signed it, in this world, with the key that is theirs (never throws). */
export function verifyDirectMessage(m: DirectMessage, world: string, verify: Verifier): Promise<boolean> {
  return verify('player', m.p, KEY_ALGS[m.a], m.k, directMessageBytes(world, m), m.s).catch(() => false);
}
