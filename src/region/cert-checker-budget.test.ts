// A certificate whose grants' keys are new while the derivation budget is spent (an attacker
// spent it with junk keys, core/derivation-budget.ts) is refused for now, and checked anew
// once there is budget: the refusal is not remembered as a bad signature, or honest
// certificates would stay refused until they left the checker's cache.
import { describe, expect, it } from 'vitest';
import { DerivationBudget } from '../core/derivation-budget';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { cachingWebCryptoVerifier, ProvenKeys } from '../core/signer';
import { fixedNearView } from '../testing/near-views';
import { strangerIdentity } from '../testing/stranger-identity';
import { CertChecker } from './cert-checker';
import { signGrant, type ClaimTerms } from './epoch-cert';

describe('a certificate checked while the derivation budget is spent', () => {
  it('is refused then, and taken once the budget refills (the refusal is not cached)', async () => {
    let t = 0;
    const budget = new DerivationBudget({ perSourcePerSec: 1, perSourceBurst: 4, totalPerSec: 1, totalBurst: 4 }, () => t);
    for (let i = 0; i < 4; i++) expect(budget.take()).toBe(true); // spent, as by an attacker's junk keys
    const [a, b, c] = [await strangerIdentity(), await strangerIdentity(), await strangerIdentity()];
    const key = randomId(seededRandom(11));
    const checker = new CertChecker(cachingWebCryptoVerifier(new ProvenKeys(64, 0, budget)), fixedNearView([a.id, b.id, c.id]), { idWorkBits: 0 });
    const terms: ClaimTerms = { e: 1, primary: a.id, hosts: [a.id, b.id, c.id] };
    const cert = { ...terms, grants: [await signGrant(a, key, terms), await signGrant(b, key, terms), await signGrant(c, key, terms)] };
    expect(await checker.signed(key, cert)).toBe('bad-signature');
    t = 10_000;
    expect(await checker.signed(key, cert)).toBeNull();
    expect(await checker.check(key, cert, { fresh: 'learn' })).toBeNull();
  });

  it("a grant is checked on its sender's budget: proven while the unattributed one and an attacker's are spent", async () => {
    const budget = new DerivationBudget({ perSourcePerSec: 1, perSourceBurst: 2, totalPerSec: 100, totalBurst: 100 }, () => 0);
    while (budget.take()); // spent: frames checked with no carrier named
    while (budget.take('evil')); // spent: the attacker's own link
    const granter = await strangerIdentity();
    const key = randomId(seededRandom(12));
    const checker = new CertChecker(cachingWebCryptoVerifier(new ProvenKeys(64, 0, budget)), fixedNearView([granter.id]), { idWorkBits: 0 });
    const terms: ClaimTerms = { e: 1, primary: granter.id, hosts: [granter.id] };
    const grant = await signGrant(granter, key, terms);
    expect(await checker.grantValid(key, terms, grant, 'evil')).toBe(false);
    expect(await checker.grantValid(key, terms, grant, 'granter')).toBe(true);
  });
});
