// Who signs and how a signature is checked, as two small injected pieces: a tab signs
// with its identity (WebCrypto) and checks that a public key stands for the id it speaks
// for, as a node's key or a player's (key-ids.ts); the simulator injects a synchronous keyring so runs stay reproducible on
// the virtual clock (WebCrypto settles outside it).
import { importPublicKey, verifyWithKey, type IdentityAlg } from './identity';
import { ID_WORK_BITS, idWorkOk } from './id-work';
import type { DerivationBudget } from './derivation-budget';
import { idOfSentKey, type KeyKind } from './key-ids';
import { idEquals, type NodeId } from './node-id';
import { LruMap } from './lru-map';

export interface Signer {
  readonly id: NodeId;
  readonly alg: IdentityAlg;
  /** Raw public key: 32 bytes (Ed25519) or 65 (P-256). */
  readonly publicKey: Uint8Array;
  sign(data: Uint8Array): Promise<Uint8Array>;
  /**
   * The same signature made at once, where the runtime can (node:crypto: the simulator's
   * keyring; WebCrypto cannot): frames waiting for it then leave without a turn of the event
   * loop (host/state-proofs.ts).
   */
  signNow?(data: Uint8Array): Uint8Array;
}

/**
 * True only when `publicKey`, as a key of `kind` (a node's or a player's: their ids are
 * derived apart, key-ids.ts), stands for `id` and signed `data` (never throws). `via`: the
 * link or address the key came from, whose derivation budget a new node key spends
 * (core/derivation-budget.ts; default: the unattributed source's).
 */
export type Verifier = (kind: KeyKind, id: NodeId, alg: IdentityAlg, publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array, via?: string) => Promise<boolean>;

/** Keys a verifier keeps imported (least recently used dropped first). */
const KEYS_KEPT = 512;

/**
 * Public keys proven to stand for their node ids, imported for WebCrypto, least recently
 * used dropped first: a node checks the same few peers' signatures over and over (grants,
 * passes, routed frames, chat), and the SHA-256 of the key and its import were a third of a
 * verify (bench/agents.ts --profile, 8 bots: digest 134 + importKey 87 of 540 ms of crypto
 * in 30 s). A key is imported only once some id it is checked against matches.
 */
export class ProvenKeys {
  private readonly keys: LruMap<string, { id: NodeId; key?: Promise<CryptoKey | null> }>;

  /**
   * `idWorkBits`: the work a node id must show (core/id-work.ts) before its key is derived:
   * no node key an honest peer holds stands for an id without it, and the puzzle is one
   * SHA-256 where the derivation is a scrypt (0: every id's key is derived). `budget`: the
   * derivations new keys may spend (default: the realm's, key-ids.ts `nodeIdBudget`).
   * `forwarded`: the `via` of its checks passes on frames it did not check (a routed
   * message's last hop), so a junk key is not held against it (key-ids.ts `sentNodeIdOfKey`).
   */
  constructor(kept = KEYS_KEPT, private readonly idWorkBits = 0, private readonly budget?: DerivationBudget, private readonly forwarded = false) {
    this.keys = new LruMap(kept);
  }

  get size(): number {
    return this.keys.size;
  }

  /**
   * The imported key when `publicKey`, as a key of `kind`, stands for `id`; null otherwise,
   * when it is malformed, when a node id shows too little work, or when its key is new and
   * `via`'s derivation budget is spent (then not remembered: it is derived once there is
   * budget). Never rejects.
   */
  async keyFor(kind: KeyKind, id: NodeId, alg: IdentityAlg, publicKey: Uint8Array, via?: string): Promise<CryptoKey | null> {
    const tag = `${kind}:${alg}:${String.fromCharCode.apply(null, publicKey as unknown as number[])}`;
    let k = this.keys.get(tag);
    if (!k) {
      if (kind === 'node' && !idWorkOk(id, this.idWorkBits)) return null;
      const derived = await idOfSentKey(kind, publicKey, via, this.budget, id, this.forwarded);
      // A key that stands for another id is not kept: junk keys at the budget's rate would push honest ones out.
      if (!derived || !idEquals(derived, id)) return null;
      this.keys.set(tag, (k = { id: derived }));
    }
    if (!idEquals(k.id, id)) return null;
    k.key ??= importPublicKey(alg, publicKey).catch(() => {
      this.keys.delete(tag); // a malformed key is not kept
      return null;
    });
    return k.key;
  }
}

/** A verifier over `keys` (ProvenKeys): the key must stand for the id as its kind asks, and WebCrypto checks the signature. */
export function cachingWebCryptoVerifier(keys = new ProvenKeys()): Verifier {
  return async (kind, id, alg, publicKey, data, signature, via) => {
    const key = await keys.keyFor(kind, id, alg, publicKey, via);
    return key !== null && verifyWithKey(alg, key, data, signature);
  };
}

/**
 * The tabs' verifier: a node id must show ID_WORK_BITS of work before its key is derived, the
 * key must stand for the id as its kind asks, and WebCrypto checks the signature (keys remembered).
 */
export const webCryptoVerifier: Verifier = cachingWebCryptoVerifier(new ProvenKeys(KEYS_KEPT, ID_WORK_BITS));
