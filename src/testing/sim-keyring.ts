// The simulator's keys (Node only: node:crypto). Simulated node ids are chosen by the tests
// (a node next to a region key, say), so they cannot be hashes of keys; instead the keyring
// is the simulation's public-key directory: each id gets an Ed25519 key derived from a
// secret of the run, and a signature counts only under the key registered for its id. Signing
// and verifying are synchronous, so runs stay reproducible on the virtual clock.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { idToHex, type NodeId } from '../core/node-id';
import type { Signer, Verifier } from '../core/signer';

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

interface Held {
  priv: KeyObject;
  pub: KeyObject;
  raw: Uint8Array;
}

export class SimKeyring {
  private readonly keys = new Map<string, Held>();

  constructor(private readonly secret = 'sim') {}

  private held(id: NodeId): Held {
    const hex = idToHex(id);
    let h = this.keys.get(hex);
    if (!h) {
      const seed = createHash('sha256').update(`${this.secret}:${hex}`).digest();
      const priv = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
      const pub = createPublicKey(priv);
      const raw = new Uint8Array(Buffer.from(pub.export({ format: 'jwk' }).x!, 'base64url'));
      this.keys.set(hex, (h = { priv, pub, raw }));
    }
    return h;
  }

  signer(id: NodeId): Signer {
    const h = this.held(id);
    const now = (data: Uint8Array) => new Uint8Array(sign(null, data, h.priv));
    return { id, alg: 'Ed25519', publicKey: h.raw, sign: (data) => Promise.resolve(now(data)), signNow: now };
  }

  /** Whether `publicKey` is the key registered for `id` (what deriving a tab's node id from a key tells). */
  owns(id: NodeId, publicKey: Uint8Array): boolean {
    const h = this.keys.get(idToHex(id));
    return !!h && publicKey.length === h.raw.length && publicKey.every((b, i) => b === h.raw[i]);
  }

  readonly verify: Verifier = (_kind, id, alg, publicKey, data, signature) => {
    const h = this.keys.get(idToHex(id));
    if (!h || alg !== 'Ed25519' || publicKey.length !== h.raw.length || !publicKey.every((b, i) => b === h.raw[i])) return Promise.resolve(false);
    try {
      return Promise.resolve(verify(null, data, h.pub, signature));
    } catch {
      return Promise.resolve(false);
    }
  };
}
