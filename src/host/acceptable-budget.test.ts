// Certificates a host checks from the wire (hosted-region.ts `acceptable`: a CLAIM's known
// one, a SYNC's, a HANDOFF's, a refusal's) spend the derivation budget of the node that sent
// them (core/derivation-budget.ts), and the budget of all sources is shared fairly. An
// attacker with 12 keys, a link each, floods a host with certificates whose grants carry
// keys never met (each costs a derivation before it is found junk); an honest node's
// certificate, granted by keys the host never met either, is still taken at once. Before,
// every such check was charged to one unattributed source that the flood kept spent (and 8
// or more sources at their own rate spent the whole budget): the honest certificate was
// refused as long as the flood went on.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../core/clock';
import { DerivationBudget } from '../core/derivation-budget';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { cachingWebCryptoVerifier, ProvenKeys } from '../core/signer';
import { CertChecker } from '../region/cert-checker';
import { signGrant, type ClaimTerms, type EpochCert } from '../region/epoch-cert';
import { certCheckingRegion } from '../testing/cert-region';
import { fixedNearView } from '../testing/near-views';
import { strangerIdentity } from '../testing/stranger-identity';

const ATTACKER_LINKS = 12;
/** Each attacker link's junk certificate this often (virtual ms): 2 new keys each, 100 a second, far past its 8. */
const JUNK_EVERY_MS = 20;
const FLOOD_BEFORE_MS = 1000;
const HONEST_EVERY_MS = 100;
/** How long the honest certificate may wait (virtual ms). */
const BOUND_MS = 1000;

describe('certificates a host checks while an attacker with 12 keys floods it with junk ones', () => {
  it("an honest sender's certificate, granted by keys the host never met, is taken within 1 s", async () => {
    let now = 0;
    const clock: Clock = { now: () => now, setTimeout: () => 0, clearTimeout: () => {} };
    const budget = new DerivationBudget({}, () => now);
    const rand = seededRandom(28);
    const [a, b, c] = [await strangerIdentity(), await strangerIdentity(), await strangerIdentity()];
    const key = randomId(rand);
    const certs = new CertChecker(cachingWebCryptoVerifier(new ProvenKeys(64, 0, budget)), fixedNearView([a.id, b.id, c.id]), { idWorkBits: 0 });
    const region = certCheckingRegion(randomId(rand), key, certs, clock);
    const terms: ClaimTerms = { e: 1, primary: a.id, hosts: [a.id, b.id, c.id] };
    const honest: EpochCert = { ...terms, grants: [await signGrant(a, key, terms), await signGrant(b, key, terms), await signGrant(c, key, terms)] };
    // Junk: well formed, its two grants' keys random bytes the host must derive to refuse.
    const junk = (): EpochCert => {
      const hosts = [randomId(rand), randomId(rand), randomId(rand)];
      const grant = (id: (typeof hosts)[number]) => ({ id, a: 0 as const, k: crypto.getRandomValues(new Uint8Array(32)), s: new Uint8Array(64) });
      return { e: 2, primary: hosts[0]!, hosts, prev: { e: 1, hosts }, grants: [grant(hosts[0]!), grant(hosts[1]!)] };
    };
    const attackers = Array.from({ length: ATTACKER_LINKS }, (_, i) => `evil${i}`);
    let takenAt = -1;
    for (; now < FLOOD_BEFORE_MS + BOUND_MS && takenAt < 0; now += JUNK_EVERY_MS) {
      const checks: Promise<unknown>[] = attackers.map((via) => region.acceptable(junk(), undefined, via));
      if (now >= FLOOD_BEFORE_MS && now % HONEST_EVERY_MS === 0) checks.push(region.acceptable(honest, undefined, 'honest').then((hold) => hold && takenAt < 0 && (takenAt = now)));
      await Promise.all(checks);
    }
    expect(takenAt, `the honest certificate was taken ${takenAt - FLOOD_BEFORE_MS} ms after it first tried (-1: not within ${BOUND_MS} ms); ${budget.refused} derivations refused`).toBeGreaterThanOrEqual(FLOOD_BEFORE_MS);
    expect(budget.refused, 'the flood did meet the budget').toBeGreaterThan(300);
  });
});
