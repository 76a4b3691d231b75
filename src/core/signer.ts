// Who signs and how a signature is checked, as two small injected pieces: a tab signs
// with its identity (WebCrypto) and checks that a public key hashes to the node id it
// speaks for; the simulator injects a synchronous keyring so runs stay reproducible on
// the virtual clock (WebCrypto settles outside it).
import { importPublicKey, nodeIdOfPublicKey, verifyWithKey, type IdentityAlg } from './identity';
import { idEquals, type NodeId } from './node-id';

export interface Signer {
  readonly id: NodeId;
  readonly alg: IdentityAlg;
  /** Raw public key: 32 bytes (Ed25519) or 65 (P-256). */
  readonly publicKey: Uint8Array;
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** True only when `publicKey` stands for `id` and signed `data` (never throws). */
export type Verifier = (id: NodeId, alg: IdentityAlg, publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array) => Promise<boolean>;

/** Keys a verifier keeps imported (least recently used dropped first). */
const KEYS_KEPT = 512;

/**
 * A verifier that remembers, per public key, the node id it hashes to and the imported
 * WebCrypto key: a tab checks the same few peers' signatures over and over (grants, passes,
 * routed frames, chat), and the SHA-256 of the key and its import were a third of a verify
 * (bench/agents.ts --profile, 8 bots: digest 134 + importKey 87 of 540 ms of crypto in 30 s).
 */
export function cachingWebCryptoVerifier(kept = KEYS_KEPT): Verifier {
  const keys = new Map<string, { id: NodeId; key: Promise<CryptoKey> }>();
  return async (id, alg, publicKey, data, signature) => {
    const tag = `${alg}:${String.fromCharCode.apply(null, publicKey as unknown as number[])}`;
    let k = keys.get(tag);
    if (k) {
      keys.delete(tag);
      keys.set(tag, k); // most recently used last
    } else {
      let key: Promise<CryptoKey>;
      try {
        key = importPublicKey(alg, publicKey);
      } catch {
        return false;
      }
      key.catch(() => keys.delete(tag)); // a malformed key is not kept
      k = { id: await nodeIdOfPublicKey(publicKey), key };
      keys.set(tag, k);
      if (keys.size > kept) keys.delete(keys.keys().next().value!);
    }
    if (!idEquals(k.id, id)) return false;
    try {
      return await verifyWithKey(alg, await k.key, data, signature);
    } catch {
      return false;
    }
  };
}

/** The tabs' verifier: the node id is SHA-256 of the key, and WebCrypto checks the signature (keys remembered). */
export const webCryptoVerifier: Verifier = cachingWebCryptoVerifier();
