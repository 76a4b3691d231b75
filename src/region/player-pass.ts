// A player pass: what a node shows a region's primary before it may edit. It names the
// player (the id of the player key, as the signed player record does), carries a proof of
// work on that key (core/key-work.ts) and the player key's signature over the node's id, so:
// - a player identity costs about 2^PLAYER_PASS_BITS hashes to mint, once per profile, and
//   the primary keys an editor's rate and the budget of its fresh positions by the player,
//   not by the node id, which a hostile bundle can mint for free;
// - a pass works only for the node the player signed it for: copied to another node it is
//   refused, so nobody can spend another player's rate.
// Checking one costs two hashes and, only when the work holds, one signature check.
import * as v from 'valibot';
import { bytes, u32 } from '../core/codec';
import { checkWork } from '../core/key-work';
import { ID_BYTES, type NodeId } from '../core/node-id';
import type { Signer, Verifier } from '../core/signer';
import { KEY_ALGS, keyAlgCode, keyAlgSchema } from '../core/key-alg-code';

/**
 * Leading zero bits of the pass's work: 2^20 tries, ~0.75 s in Node and ~1 s in Chromium
 * on this project's machine (docs/HOSTING.md "Player passes" has the measurement).
 */
export const PLAYER_PASS_BITS = 20;

/** The PLAYER frame's fields: player id, key algorithm (0 Ed25519, 1 P-256), key, work nonce, signature. */
export const passFields = {
  p: bytes(ID_BYTES, ID_BYTES),
  a: keyAlgSchema,
  k: bytes(65),
  n: u32,
  s: bytes(72),
};
export type PlayerPass = v.InferOutput<ReturnType<typeof v.object<typeof passFields>>>;

/** Why a pass was refused. */
export type PassFault = 'work' | 'signature';

const DOMAIN = new TextEncoder().encode('voxel-populi/player-pass/v1\0');

/** The bytes the player key signs: this pass is for node `node`. */
export function passBytes(node: NodeId): Uint8Array {
  const out = new Uint8Array(DOMAIN.length + node.length);
  out.set(DOMAIN);
  out.set(node, DOMAIN.length);
  return out;
}

/** The player's pass for `node`, with the work `nonce` already found for the player's key. */
export async function makePlayerPass(player: Signer, node: NodeId, nonce: number): Promise<PlayerPass> {
  return { p: player.id, a: keyAlgCode(player.alg), k: player.publicKey, n: nonce, s: await player.sign(passBytes(node)) };
}

/** Why `pass`, shown by `node`, does not let it edit with `bits` of work asked, or undefined when it does. Never throws. */
export async function checkPlayerPass(pass: PlayerPass, node: NodeId, bits: number, verify: Verifier): Promise<PassFault | undefined> {
  if (!checkWork(pass.k, pass.n, bits)) return 'work';
  const ok = await verify('player', pass.p, KEY_ALGS[pass.a], pass.k, passBytes(node), pass.s).catch(() => false);
  return ok ? undefined : 'signature';
}
