// The number signed records carry for their key's algorithm (`a`: 0 Ed25519, 1 P-256), so a
// receiver can check the signature with the key beside it: grants and region records,
// decision proofs and owner requests, looks, chat lines, passes and direct messages. One
// numbering for all of them, written once.
import * as v from 'valibot';
import type { IdentityAlg } from './identity';

/** Key algorithms by their number. */
export const KEY_ALGS = ['Ed25519', 'ECDSA-P256'] as const satisfies readonly IdentityAlg[];

/** The number a signed record carries for `alg` (its index in KEY_ALGS). */
export const keyAlgCode = (alg: IdentityAlg): 0 | 1 => (alg === 'Ed25519' ? 0 : 1);

/** The schema of that number in a frame or record: a receiver drops any other value before it looks at the key. */
export const keyAlgSchema = v.picklist([0, 1]);
