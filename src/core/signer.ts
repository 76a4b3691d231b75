// Who signs and how a signature is checked, as two small injected pieces: a tab signs
// with its identity (WebCrypto) and checks that a public key hashes to the node id it
// speaks for; the simulator injects a synchronous keyring so runs stay reproducible on
// the virtual clock (WebCrypto settles outside it).
import { publicKeyMatchesId, verifySignature, type IdentityAlg } from './identity';
import type { NodeId } from './node-id';

export interface Signer {
  readonly id: NodeId;
  readonly alg: IdentityAlg;
  /** Raw public key: 32 bytes (Ed25519) or 65 (P-256). */
  readonly publicKey: Uint8Array;
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** True only when `publicKey` stands for `id` and signed `data` (never throws). */
export type Verifier = (id: NodeId, alg: IdentityAlg, publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array) => Promise<boolean>;

/** The tabs' verifier: the node id is SHA-256 of the key, and WebCrypto checks the signature. */
export const webCryptoVerifier: Verifier = async (id, alg, publicKey, data, signature) =>
  (await publicKeyMatchesId(publicKey, id)) && verifySignature(alg, publicKey, data, signature);
