// A peer's identity keypair (WebCrypto). Its id is derived from the raw public key by the
// key's kind (key-ids.ts: scrypt for a node, SHA-256 for a player), so an id cannot be
// chosen at will and anyone holding the public key can check a claimed id. Ed25519 where
// the runtime has it (Chrome >= 113, Firefox >= 129, Safari >= 17, Node >= 18.4), else
// ECDSA P-256 (everywhere).
import { ID_WORK_BITS, idWorkOk } from './id-work';
import { deriveNodeId, idOfPublicKey, rememberNodeId, type KeyKind } from './key-ids';
import type { NodeId } from './node-id';
import { VoxelError } from './errors';

export type IdentityAlg = 'Ed25519' | 'ECDSA-P256';

/** JSON form of a keypair, for storage and for moving a player identity to another browser. */
export interface IdentityJson {
  v: 1;
  alg: IdentityAlg;
  /** Private key as JWK (includes the public part). */
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
}

/**
 * What a worker minting a node identity says (app/node-id.worker.ts): keypairs drawn so far
 * (every MINT_PROGRESS_EVERY, so the draws of the workers that did not find count too), then
 * the keys and its draws in all, or why it could not make them.
 */
export type MintReply = { drawn: number } | { json: IdentityJson; tries: number } | { error: string };

/** A minting worker says how many keypairs it drew every this many. */
export const MINT_PROGRESS_EVERY = 8;

export interface Identity {
  readonly id: NodeId;
  readonly alg: IdentityAlg;
  /** Raw public key bytes: 32 for Ed25519, 65 (uncompressed point) for P-256. */
  readonly publicKey: Uint8Array;
  sign(data: Uint8Array): Promise<Uint8Array>;
  toJson(): Promise<IdentityJson>;
}

export class IdentityError extends VoxelError {
  readonly code = 'identity-invalid';
  override readonly name = 'IdentityError';
}

const P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const P256_SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;
const ED = { name: 'Ed25519' } as const;

type Buf = Uint8Array<ArrayBuffer>;
const buf = (b: Uint8Array): Buf => (b.buffer instanceof ArrayBuffer && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? (b as Buf) : new Uint8Array(b) as Buf);

function keyAlg(alg: IdentityAlg): AlgorithmIdentifier | EcKeyImportParams {
  return alg === 'Ed25519' ? ED : P256;
}
function signAlg(alg: IdentityAlg): AlgorithmIdentifier | EcdsaParams {
  return alg === 'Ed25519' ? ED : P256_SIGN;
}

let ed25519Support: Promise<boolean> | undefined;

/** Feature-detects Ed25519 by trying to generate a key (cached per realm: a pure capability probe). */
export function hasEd25519(): Promise<boolean> {
  ed25519Support ??= crypto.subtle
    .generateKey(ED, false, ['sign', 'verify'])
    .then(() => true, () => false);
  return ed25519Support;
}

class WebCryptoIdentity implements Identity {
  constructor(
    readonly id: NodeId,
    readonly alg: IdentityAlg,
    readonly publicKey: Uint8Array,
    private readonly privateKey: CryptoKey,
    private readonly publicCryptoKey: CryptoKey,
  ) {}

  async sign(data: Uint8Array): Promise<Uint8Array> {
    return new Uint8Array(await crypto.subtle.sign(signAlg(this.alg), this.privateKey, buf(data)));
  }

  async toJson(): Promise<IdentityJson> {
    if (!this.privateKey.extractable) throw new IdentityError('identity key is not extractable');
    return {
      v: 1,
      alg: this.alg,
      privateJwk: await crypto.subtle.exportKey('jwk', this.privateKey),
      publicJwk: await crypto.subtle.exportKey('jwk', this.publicCryptoKey),
    };
  }
}

async function fromKeys(kind: KeyKind, alg: IdentityAlg, privateKey: CryptoKey, publicKey: CryptoKey): Promise<Identity> {
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', publicKey));
  return new WebCryptoIdentity(await idOfPublicKey(kind, raw), alg, raw, privateKey, publicKey);
}

export interface GenerateOptions {
  /** Force an algorithm (tests; default: Ed25519 when available, else ECDSA-P256). */
  alg?: IdentityAlg;
  /** Default true: keys can be exported with toJson() (needed to move a player identity). */
  extractable?: boolean;
}

/** A player identity (its id SHA-256 of the key); a node's is `generateNodeIdentity`. */
export async function generateIdentity(opts: GenerateOptions = {}): Promise<Identity> {
  const alg = opts.alg ?? ((await hasEd25519()) ? 'Ed25519' : 'ECDSA-P256');
  const pair = (await crypto.subtle.generateKey(keyAlg(alg), opts.extractable ?? true, ['sign', 'verify'])) as CryptoKeyPair;
  return fromKeys('player', alg, pair.privateKey, pair.publicKey);
}

/**
 * Keypairs asked of WebCrypto at once while minting: it works off the calling thread, so a
 * few in flight keep it busy between our hashes (measured: Chromium worker 11k -> 13.5k
 * keys/s, Node 4.2k -> 9k on 2 cores; docs/BENCHMARKS.md "Ids that cost work").
 */
const MINT_IN_FLIGHT = 4;

export interface NodeIdentityOptions extends GenerateOptions {
  /** Zero bits the id must show (default ID_WORK_BITS, core/id-work.ts). */
  bits?: number;
  /** Counts the keypairs drawn (a benchmark's keys per second). */
  counts?: { tries: number };
  /** Called with the keypairs drawn so far after each draw (a worker telling its page). */
  onDraw?: (tries: number) => void;
  /** The node id of a key (default deriveNodeId, plain JS; the headless peer passes node:crypto's scrypt). */
  derive?: (publicKey: Uint8Array) => NodeId | Promise<NodeId>;
}

/**
 * A node identity: keypairs are drawn until one's id (one scrypt of the key, key-ids.ts)
 * shows `bits` of work (id-work.ts), ~2^bits of them; with 0 bits, the first key. A tab
 * mints it in a worker (app/node-id-minter.ts) and keeps it; the player identity is a
 * plain `generateIdentity` (its work is a nonce, core/key-work.ts).
 */
export async function generateNodeIdentity(opts: NodeIdentityOptions = {}): Promise<Identity> {
  const alg = opts.alg ?? ((await hasEd25519()) ? 'Ed25519' : 'ECDSA-P256');
  const bits = opts.bits ?? ID_WORK_BITS;
  const derive = opts.derive ?? deriveNodeId;
  let found: Identity | undefined;
  let tries = 0;
  const draw = async () => {
    while (!found) {
      const pair = (await crypto.subtle.generateKey(keyAlg(alg), opts.extractable ?? true, ['sign', 'verify'])) as CryptoKeyPair;
      const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
      if (found) return;
      tries++;
      if (opts.counts) opts.counts.tries++;
      opts.onDraw?.(tries);
      // Derived without the remembered keys: ~2^bits keys thrown away would flush them.
      const id = await derive(raw);
      if (!found && idWorkOk(id, bits)) {
        rememberNodeId(raw, id);
        found = new WebCryptoIdentity(id, alg, raw, pair.privateKey, pair.publicKey);
      }
    }
  };
  await Promise.all(Array.from({ length: MINT_IN_FLIGHT }, draw));
  return found!;
}

export function isIdentityJson(x: unknown): x is IdentityJson {
  if (typeof x !== 'object' || x === null) return false;
  const o = x as Record<string, unknown>;
  return o.v === 1 && (o.alg === 'Ed25519' || o.alg === 'ECDSA-P256') &&
    typeof o.privateJwk === 'object' && o.privateJwk !== null &&
    typeof o.publicJwk === 'object' && o.publicJwk !== null;
}

/** The identity `json` holds, its id derived as a key of `kind` (a stored node key of another kind gets another id). */
export async function identityFromJson(json: unknown, kind: KeyKind, extractable = true): Promise<Identity> {
  if (!isIdentityJson(json)) throw new IdentityError('not an identity JSON object');
  try {
    const alg = keyAlg(json.alg);
    const privateKey = await crypto.subtle.importKey('jwk', json.privateJwk, alg, extractable, ['sign']);
    const publicKey = await crypto.subtle.importKey('jwk', json.publicJwk, alg, true, ['verify']);
    const id = await fromKeys(kind, json.alg, privateKey, publicKey);
    // A private key that does not match the public one would sign things nobody can verify.
    const probe = new TextEncoder().encode('voxel-populi identity check');
    if (!(await verifySignature(json.alg, id.publicKey, probe, await id.sign(probe)))) {
      throw new IdentityError('private and public keys do not match');
    }
    return id;
  } catch (e) {
    if (e instanceof IdentityError) throw e;
    throw new IdentityError(`cannot import identity: ${(e as Error).message}`);
  }
}

/** Verifies a signature by a raw public key; false (never a throw) on any malformed input. */
export async function verifySignature(alg: IdentityAlg, publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): Promise<boolean> {
  try {
    return await verifyWithKey(alg, await importPublicKey(alg, publicKey), data, signature);
  } catch {
    return false;
  }
}

/**
 * Imports a raw public key for verifying (rejects on a malformed key). For a verifier
 * that checks many signatures by one key: importing is a good share of a verify's cost.
 */
export function importPublicKey(alg: IdentityAlg, publicKey: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', buf(publicKey), keyAlg(alg), false, ['verify']);
}

/** Verifies a signature by a key from `importPublicKey`; false (never a throw) on any malformed input. */
export async function verifyWithKey(alg: IdentityAlg, key: CryptoKey, data: Uint8Array, signature: Uint8Array): Promise<boolean> {
  try {
    return await crypto.subtle.verify(signAlg(alg), key, buf(signature), buf(data));
  } catch {
    return false;
  }
}
