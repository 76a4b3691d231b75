// A certificate whose grants' keys are new while the derivation budget is spent (an attacker
// spent it with junk keys, core/derivation-budget.ts) is refused for now, and checked anew
// once there is budget: the refusal is not remembered as a bad signature, or honest
// certificates would stay refused until they left the checker's cache.
import { describe, expect, it } from 'vitest';
import { DerivationBudget } from '../core/derivation-budget';
import { deriveNodeId } from '../core/key-ids';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { cachingWebCryptoVerifier, ProvenKeys, type Signer } from '../core/signer';
import { fixedNearView } from '../testing/near-views';
import { CertChecker } from './cert-checker';
import { signGrant, type ClaimTerms } from './epoch-cert';

/** A node key never met by this process (its id derived here without being remembered). */
async function unmetSigner(): Promise<Signer> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  return { id: deriveNodeId(publicKey), alg: 'Ed25519', publicKey, sign: async (d) => new Uint8Array(await crypto.subtle.sign('Ed25519', pair.privateKey, d as Uint8Array<ArrayBuffer>)) };
}

describe('a certificate checked while the derivation budget is spent', () => {
  it('is refused then, and taken once the budget refills (the refusal is not cached)', async () => {
    let t = 0;
    const budget = new DerivationBudget({ perSourcePerSec: 1, perSourceBurst: 4, totalPerSec: 1, totalBurst: 4 }, () => t);
    for (let i = 0; i < 4; i++) expect(budget.take()).toBe(true); // spent, as by an attacker's junk keys
    const [a, b, c] = [await unmetSigner(), await unmetSigner(), await unmetSigner()];
    const key = randomId(seededRandom(11));
    const checker = new CertChecker(cachingWebCryptoVerifier(new ProvenKeys(64, 0, budget)), fixedNearView([a.id, b.id, c.id]), { idWorkBits: 0 });
    const terms: ClaimTerms = { e: 1, primary: a.id, hosts: [a.id, b.id, c.id] };
    const cert = { ...terms, grants: [await signGrant(a, key, terms), await signGrant(b, key, terms)] };
    expect(await checker.signed(key, cert)).toBe('bad-signature');
    t = 10_000;
    expect(await checker.signed(key, cert)).toBeNull();
    expect(await checker.check(key, cert, { fresh: 'learn' })).toBeNull();
  });
});
