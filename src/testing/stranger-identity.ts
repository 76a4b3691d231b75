// A node identity whose key this process never derived (its id computed, not remembered:
// core/key-ids.ts), so a checker here meets it as a stranger's and pays its derivation from a
// budget or a line: what tests of those bounds need, where the kept test identities
// (node-identities.ts) are remembered as they load. Test files only; id work 0.
import type { Identity } from '../core/identity';
import { deriveNodeId } from '../core/key-ids';

export async function strangerIdentity(): Promise<Identity> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  return {
    id: deriveNodeId(publicKey),
    alg: 'Ed25519',
    publicKey,
    sign: async (d) => new Uint8Array(await crypto.subtle.sign('Ed25519', pair.privateKey, d as Uint8Array<ArrayBuffer>)),
    toJson: () => Promise.reject(new Error('a stranger identity is not kept')),
  };
}
