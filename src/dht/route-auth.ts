// Source authentication of routed messages. Direct links prove the peer's id (the link
// handshake, src/net/link-handshake.ts), but a routed message names its source in the
// envelope, which any forwarder could rewrite. So the source signs the fields no
// forwarder changes (id, src, dst, body: `signedRouteData`) and puts its public key and
// the signature in the envelope's auth block (route-frame.ts); forwarders pass both on
// untouched and check nothing; the destination checks that the key stands for src as a node key (core/key-ids.ts) and
// that the signature verifies before it acts on the message (overlay-router.ts).
//
// ttl, trace and via are routing hints that forwarders change: not signed, so a forwarder
// can misroute a message or its reply (as it can drop it), but not put words in another
// node's mouth. A captured message replayed later is caught only by the destination's
// duplicate window (`DEDUP_SIZE` message ids, overlay-router.ts).
import { type IdentityAlg, verifyWithKey } from '../core/identity';
import { ProvenKeys } from '../core/signer';
import { AUTH_FORMATS, signedRouteData, type RouteEnvelope } from './route-frame';

/** What a node signs its routed messages with: an `Identity` (src/core/identity.ts) is one. */
export interface RouteSigner {
  readonly alg: IdentityAlg;
  /** Raw public key; must stand for the node's id (core/key-ids.ts). */
  readonly publicKey: Uint8Array;
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** Verified public keys remembered (by source id), so a busy source costs one hash and import. */
export const VERIFIED_KEYS = 256;

/** Throws when the signer's key has the wrong length for its algorithm. */
export function checkSigner(signer: RouteSigner): void {
  const fmt = AUTH_FORMATS[signer.alg] as (typeof AUTH_FORMATS)[IdentityAlg] | undefined;
  if (!fmt || signer.publicKey.length !== fmt.keyBytes) throw new Error(`route signer: a ${signer.alg} public key of ${signer.publicKey.length} bytes`);
}

export class RouteVerifier {
  /** Keys proven to stand for their source ids (core/signer.ts: the verifiers of every frame share the class). */
  private readonly keys: ProvenKeys;

  constructor(maxKeys = VERIFIED_KEYS) {
    // A hop does not check what it forwards: a forged source's key is not held against the link.
    this.keys = new ProvenKeys(maxKeys, 0, undefined, true);
  }

  get cachedKeys(): number {
    return this.keys.size;
  }

  /**
   * Whether env's auth block proves that src sent it: the key stands for src and the
   * signature over id, src, dst and body checks. False (never a throw or a rejection) for
   * anything else. What it needs of env is read before the first await, so env may be
   * views into a frame. `via`: the link it came over, whose derivation budget a source key
   * not met before spends (core/derivation-budget.ts): one link forwarding endless fresh
   * keys costs its own budget's scrypts, not the node's.
   */
  async verify(env: RouteEnvelope, via?: string): Promise<boolean> {
    try {
      if (!env.auth) return false;
      const { alg } = env.auth;
      const data = signedRouteData(alg, env);
      const publicKey = env.auth.publicKey.slice();
      const signature = env.auth.signature.slice();
      const src = env.src.slice();
      const key = await this.keys.keyFor('node', src, alg, publicKey, via === undefined ? undefined : `link:${via}`);
      return key !== null && (await verifyWithKey(alg, key, data, signature));
    } catch {
      return false;
    }
  }
}
