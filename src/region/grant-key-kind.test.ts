// A grant counts only from a node whose id is derived from its key through scrypt (core/
// key-ids.ts). A key whose SHA-256 is the id it grants as (a node id of the old kind, or a
// player's key speaking as a node) is refused even when that id shows the work and sits
// nearest the key: otherwise a grinder would pay a SHA-256 per place, not an scrypt.
import { describe, expect, it } from 'vitest';
import { idWorkOk } from '../core/id-work';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { cachingWebCryptoVerifier } from '../core/signer';
import { fixedNearView } from '../testing/near-views';
import { testNodeIdentity } from '../testing/node-identities';
import { oldKindIdentity } from '../testing/old-node-identity';
import { CertChecker } from './cert-checker';
import { signGrant, type ClaimTerms } from './epoch-cert';

describe('a grant by a key whose id is not derived through scrypt', () => {
  it('is refused, alone and in a certificate, where a node id of the new kind is taken', async () => {
    const [a, b, old] = [await testNodeIdentity(), await testNodeIdentity(), await oldKindIdentity()];
    expect(idWorkOk(old.id)).toBe(true); // the id alone passes: only its derivation tells
    const key = randomId(seededRandom(5));
    const checker = new CertChecker(cachingWebCryptoVerifier(), fixedNearView([a.id, b.id, old.id]));
    const terms: ClaimTerms = { e: 2, primary: old.id, hosts: [a.id, b.id, old.id], prev: { e: 1, hosts: [a.id, b.id, old.id] } };
    expect(await checker.grantValid(key, terms, await signGrant(a, key, terms))).toBe(true);
    expect(await checker.grantValid(key, terms, await signGrant(old, key, terms))).toBe(false);
    const grants = [await signGrant(old, key, terms), await signGrant(a, key, terms)];
    expect(await checker.check(key, { ...terms, grants }, { fresh: 'learn' })).not.toBeNull();
    const honest: ClaimTerms = { e: 2, primary: a.id, hosts: [a.id, b.id, old.id], prev: { e: 1, hosts: [a.id, b.id, old.id] } };
    expect(await checker.check(key, { ...honest, grants: [await signGrant(a, key, honest), await signGrant(b, key, honest)] }, { fresh: 'learn' })).toBeNull();
  });
});
