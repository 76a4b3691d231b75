// A claimant's check of the proofs its granters send (granted-states.ts: entries signed by
// the primary of an epoch of its chain, the certificate named by the GRANT) spends the
// derivation budget of the granter that sent the proof. A hostile host of the set sends a
// claimant 100 proofs, each under a certificate of the pending epoch whose grants carry keys
// never met (a derivation each before it is found junk); an honest granter's proof of the
// same epoch, its certificate's keys never met either, is still taken. Before, proofs carried
// no sender: every such derivation spent the one unattributed source, the hostile proofs
// spent it first and the honest proof was refused, its entry dropped (main 1900680).
import { describe, expect, it } from 'vitest';
import { DerivationBudget } from '../core/derivation-budget';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { cachingWebCryptoVerifier, ProvenKeys, type Signer } from '../core/signer';
import { CertChecker } from '../region/cert-checker';
import { proofBytes, type StateProof } from '../region/entry-proofs';
import { signGrant, type ClaimTerms, type EpochCert } from '../region/epoch-cert';
import { encodeEntries, type Entry } from '../region/region-state';
import { fixedNearView } from '../testing/near-views';
import { strangerIdentity } from '../testing/stranger-identity';
import { PLACEABLE } from '../world/blocks';
import { GrantedStates } from './granted-states';

const E = 4;
/** Block `n` at y 100 (the world floor is never taken). */
const entry = (n: number): Entry => ({ key: 100 * 256 + n, id: PLACEABLE[0]!, e: E, s: n });

async function signedProof(key: NodeId, primary: Signer, list: Entry[]): Promise<StateProof> {
  const p = { e: E, f: 1, t: list.length, b: encodeEntries(list) };
  return { ...p, s: await primary.sign(proofBytes(key, p)) };
}

describe("granters' proofs checked on the budget of the granter that sent them", () => {
  it("an honest granter's proof is taken after a hostile one's 100 proofs under junk certificates", async () => {
    const budget = new DerivationBudget({}, () => 0);
    const rand = seededRandom(31);
    const [a, b, c] = [await strangerIdentity(), await strangerIdentity(), await strangerIdentity()];
    const key = randomId(rand);
    const certs = new CertChecker(cachingWebCryptoVerifier(new ProvenKeys(64, 0, budget)), fixedNearView([a.id, b.id, c.id]), { idWorkBits: 0 });
    const terms: ClaimTerms = { e: E, primary: a.id, hosts: [a.id, b.id, c.id], prev: { e: E - 1, hosts: [a.id, b.id, c.id] } };
    const honestCert: EpochCert = { ...terms, grants: [await signGrant(a, key, terms), await signGrant(b, key, terms)] };
    // The pending epoch's certificate again, its grants' keys random bytes.
    const junkCert = (): EpochCert => ({ ...terms, grants: [a.id, b.id].map((id) => ({ id, a: 0 as const, k: crypto.getRandomValues(new Uint8Array(32)), s: new Uint8Array(64) })) });
    const g = new GrantedStates(1000);
    const evil = idToHex(randomId(rand));
    for (let i = 0; i < 100; i++) g.add(evil, [], [await signedProof(key, a, [entry(10 + i)])], [junkCert()]);
    g.add(idToHex(c.id), [], [await signedProof(key, a, [entry(1)])], [honestCert]);
    // As the claimant's check (region-claimant.ts adoptGranted), less its chain and nearness rules.
    const proven = async (p: StateProof, cert: EpochCert | undefined, from?: string) =>
      !!cert && !(await certs.signed(key, cert, from)) && certs.primarySigned(cert, proofBytes(key, p), p.s, from);
    const out = await g.outcome(() => undefined, [[a, b, c].map((x) => idToHex(x.id))], proven);
    expect(out.adopt.map((x) => x.s), `the honest proof's entry; ${budget.refused} derivations refused`).toEqual([1]);
    expect(budget.refused, 'the hostile proofs did meet the budget').toBeGreaterThan(100);
  });
});
