// A region's DHT records (location records, edit logs) are checked on the derivation budget
// of the peer that sent them (record-rules.ts `via`: a STORE's sender, the holder whose
// answer a lookup got), and the budget of all sources is shared fairly
// (core/derivation-budget.ts). An attacker with 12 keys, a link each, answers with location
// records signed by keys never met (each a derivation before it is found junk); an honest
// holder's record, its primary and granters never met either, is still taken at once.
// Before, every record was checked on one unattributed source the flood kept spent.
import { describe, expect, it } from 'vitest';
import { DerivationBudget, UNATTRIBUTED } from '../core/derivation-budget';
import { randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { cachingWebCryptoVerifier, ProvenKeys, type Signer } from '../core/signer';
import type { Dht } from '../dht/dht';
import { fixedNearView } from '../testing/near-views';
import { strangerIdentity } from '../testing/stranger-identity';
import { CertChecker } from './cert-checker';
import { signGrant, type ClaimTerms, type EpochCert } from './epoch-cert';
import { getLocation, locationRule, putLocation, type RecordAuth } from './region-records';
import type { GotValue, ValueFilter } from '../dht/dht';

const ATTACKER_LINKS = 12;
const JUNK_EVERY_MS = 20;
const FLOOD_BEFORE_MS = 1000;
const HONEST_EVERY_MS = 100;
const BOUND_MS = 1000;

/** The bytes putLocation would store for `auth`. */
async function locationValue(key: NodeId, auth: RecordAuth): Promise<Uint8Array> {
  let value: Uint8Array | undefined;
  const dht = { put: (_ns: string, _key: NodeId, v: Uint8Array) => ((value = v), Promise.resolve({ stored: 1 })) } as unknown as Pick<Dht, 'put' | 'get'>;
  await putLocation(dht, key, auth, 1);
  return value!;
}

describe("a region's location records checked while an attacker with 12 keys answers with junk ones", () => {
  it("an honest holder's record, signed by keys the reader never met, is taken within 1 s", async () => {
    let now = 0;
    const budget = new DerivationBudget({}, () => now);
    const rand = seededRandom(29);
    const [a, b, c] = [await strangerIdentity(), await strangerIdentity(), await strangerIdentity()];
    const key = randomId(rand);
    const verify = cachingWebCryptoVerifier(new ProvenKeys(64, 0, budget));
    const rule = locationRule(new CertChecker(verify, fixedNearView([a.id, b.id, c.id]), { idWorkBits: 0 }), verify);
    const terms: ClaimTerms = { e: 1, primary: a.id, hosts: [a.id, b.id, c.id] };
    const honest = await locationValue(key, { signer: a, cert: { ...terms, grants: [await signGrant(a, key, terms), await signGrant(b, key, terms), await signGrant(c, key, terms)] } });
    // Junk: a well-formed record whose primary's key is random bytes the reader must derive to refuse.
    const junk = async (): Promise<Uint8Array> => {
      const signer: Signer = { id: randomId(rand), alg: 'Ed25519', publicKey: crypto.getRandomValues(new Uint8Array(32)), sign: () => Promise.resolve(new Uint8Array(64)) };
      const hosts = [signer.id, randomId(rand), randomId(rand)];
      const grant = (id: NodeId, k: Uint8Array) => ({ id, a: 0 as const, k, s: new Uint8Array(64) });
      const cert: EpochCert = { e: 2, primary: signer.id, hosts, prev: { e: 1, hosts }, grants: [grant(signer.id, signer.publicKey), grant(hosts[1]!, crypto.getRandomValues(new Uint8Array(32)))] };
      return locationValue(key, { signer, cert });
    };
    const attackers = Array.from({ length: ATTACKER_LINKS }, (_, i) => `evil${i}`);
    const publisher = randomId(rand);
    let takenAt = -1;
    for (; now < FLOOD_BEFORE_MS + BOUND_MS && takenAt < 0; now += JUNK_EVERY_MS) {
      const checks: Promise<unknown>[] = attackers.map(async (via) => rule.check(key, await junk(), publisher, undefined, via));
      if (now >= FLOOD_BEFORE_MS && now % HONEST_EVERY_MS === 0) checks.push(rule.check(key, honest, publisher, undefined, 'honest').then((r) => r.ok && takenAt < 0 && (takenAt = now)));
      await Promise.all(checks);
    }
    expect(takenAt, `the honest record was taken ${takenAt - FLOOD_BEFORE_MS} ms after it first tried (-1: not within ${BOUND_MS} ms); ${budget.refused} derivations refused`).toBeGreaterThanOrEqual(FLOOD_BEFORE_MS);
    expect(budget.refused, 'the flood did meet the budget').toBeGreaterThan(300);
  });

  // A reader's own check of a record it read (getLocation, getEdits: Dht.get's `accept`), a
  // claimant's of the certificate it learns from the record (region-claimant.ts learnChain),
  // and a holder's of its own copy were charged to the one unattributed source, which
  // anything else left unnamed spends too (here: spent to the last token). Now the holder
  // that answered is charged, and named to the reader (main 1900680: the record refused).
  it("a reader's own check of a record it read spends the budget of the holder that answered", async () => {
    const budget = new DerivationBudget({}, () => 0);
    const rand = seededRandom(30);
    const [a, b, c] = [await strangerIdentity(), await strangerIdentity(), await strangerIdentity()];
    const key = randomId(rand);
    const verify = cachingWebCryptoVerifier(new ProvenKeys(64, 0, budget));
    const certs = new CertChecker(verify, fixedNearView([a.id, b.id, c.id]), { idWorkBits: 0 });
    const terms: ClaimTerms = { e: 1, primary: a.id, hosts: [a.id, b.id, c.id] };
    const value = await locationValue(key, { signer: a, cert: { ...terms, grants: [await signGrant(a, key, terms), await signGrant(b, key, terms), await signGrant(c, key, terms)] } });
    let spent = 0;
    while (budget.take(UNATTRIBUTED)) spent++;
    expect(spent, "the unattributed source's burst").toBe(64);
    const holder = 'ab12';
    const dht = {
      get: async (_ns: string, _key: NodeId, accept?: ValueFilter): Promise<GotValue | undefined> =>
        !accept || (await accept(value, holder)) ? { value, publisher: a.id, seq: 1, version: 1, ttlMs: 1000, via: holder } : undefined,
    };
    const rec = await getLocation(dht, key, { certs, verify });
    expect(rec?.epoch, 'the record, its keys never met, taken').toBe(1);
    expect(rec?.via).toBe(holder);
  });
});
