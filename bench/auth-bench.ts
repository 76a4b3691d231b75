// `npm run bench -- auth`: what certificates cost, with the tabs' WebCrypto (Node's, same
// API). Edits carry no signature: the commit path is unchanged, and signatures are made
// only when an epoch is claimed (one grant per host) and checked when a host follows or a
// player attaches to a primary (once per primary and epoch; checks are cached after).
import { generateIdentity } from '../src/core/identity';
import { webCryptoVerifier } from '../src/core/signer';
import { percentile } from '../src/core/percentile';
import { CertChecker, signGrant, type ClaimTerms, type EpochCert } from '../src/region/epoch-cert';

const RUNS = 200;

export async function benchAuth(): Promise<Record<string, number>> {
  const ids = await Promise.all([0, 1, 2].map(() => generateIdentity({ alg: 'Ed25519' })));
  const key = new Uint8Array(20).fill(7);
  const sign: number[] = [], check: number[] = [], cached: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const terms: ClaimTerms = { e: i + 2, primary: ids[0]!.id, hosts: ids.map((x) => x.id), prev: { e: i + 1, hosts: ids.map((x) => x.id) } };
    let t = performance.now();
    const grants = [await signGrant(ids[0]!, key, terms)];
    sign.push(performance.now() - t);
    for (const x of ids.slice(1)) grants.push(await signGrant(x, key, terms));
    const cert: EpochCert = { ...terms, grants };
    const checker = new CertChecker(webCryptoVerifier);
    t = performance.now();
    const fault = await checker.check(key, cert);
    check.push(performance.now() - t);
    if (fault) throw new Error(`benchmark certificate refused: ${fault}`);
    t = performance.now();
    await checker.check(key, cert);
    cached.push(performance.now() - t);
  }
  return {
    auth_grant_sign_ms_p50: percentile(sign, 0.5),
    auth_cert_check_ms_p50: percentile(check, 0.5),
    auth_cert_check_ms_p99: percentile(check, 0.99),
    auth_cert_check_cached_ms_p50: percentile(cached, 0.5),
    auth_samples: RUNS,
  };
}
