// A player's look as the others see it: the name and colour they chose (world/player-name.ts,
// world/player-colour.ts), signed by the key of the node they play at, over the world, the
// node's id and the time they signed it. It travels with their MOVE to the primary of the
// region they stand in, and from there (and from the backups serving a share of the
// subscribers) in the roster of POSITIONS; every receiver checks the signature against the
// roster's node id before the name shows anywhere, so no host that carries it can put another
// name or colour on a player: it can only leave the look out (the player shows unnamed) or
// carry an older one the player signed, which a receiver holding a newer one drops.
// Signed by the node key, not the player key: the roster names nodes, and nothing ties a
// player key to a node but words a host could make up with a player key of its own.
import * as v from 'valibot';
import { bytes, epochMs } from '../core/codec';
import type { NodeId } from '../core/node-id';
import type { Signer, Verifier } from '../core/signer';
import { KEY_ALGS, keyAlgCode, keyAlgSchema } from '../core/key-alg-code';
import { playerColour, playerName } from './frame-schemas';
import { playerSignedBytes } from './chat-line';

export const LOOK_RULES = {
  /** A look stamped this far ahead of the receiver's clock is not taken (it would pin later ones out). */
  maxAheadMs: 30_000,
  /** A player's MOVE carries its look at least this often (a primary that lost it, a backup's share). */
  sendEveryMs: 5000,
};

/** A look's fields: node key algorithm (0 Ed25519, 1 P-256), node key, when (epoch ms), name, colour, signature. */
export const lookSchema = v.object({ a: keyAlgSchema, k: bytes(65), w: epochMs, n: playerName, c: playerColour, s: bytes(72) });
export type PlayerLook = v.InferOutput<typeof lookSchema>;

const DOMAIN = new TextEncoder().encode('voxel-populi/look/v1\0');

/** The bytes the node signs: this name and colour, at this node, in this world, at `w`. */
export function lookBytes(world: string, node: NodeId, look: Pick<PlayerLook, 'w' | 'n' | 'c'>): Uint8Array {
  return playerSignedBytes(DOMAIN, node, [world, look.w, look.n, look.c]);
}

/** The look of the player at node `node` (its signer), named `name` (already valid) in colour `colour`, stamped `w` (wall-clock ms). */
export async function makePlayerLook(node: Signer, world: string, name: string, colour: number, w: number): Promise<PlayerLook> {
  const unsigned = { w: Math.floor(w), n: name, c: colour };
  return { a: keyAlgCode(node.alg), k: node.publicKey, ...unsigned, s: await node.sign(lookBytes(world, node.id, unsigned)) };
}

/**
 * True when the node `node` signed this look in this world with the key that is its own (never
 * throws). `via`: the node (hex) that carried it, whose derivation budget the key spends if new:
 * a host listing looks of many nodes pays for them, not the nodes it names.
 */
export function verifyPlayerLook(look: PlayerLook, world: string, node: NodeId, verify: Verifier, via?: string): Promise<boolean> {
  return verify('node', node, KEY_ALGS[look.a], look.k, lookBytes(world, node, look), look.s, via).catch(() => false);
}

/** True when two looks show the same (name and colour), whenever signed. */
export const sameLook = (a: PlayerLook | undefined, b: PlayerLook | undefined): boolean => a?.n === b?.n && a?.c === b?.c;
