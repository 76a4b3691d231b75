// `npm run bench -- auth`: what certificates cost, with the tabs' WebCrypto (Node's, same
// API). Edits carry no signature: the commit path is unchanged, and signatures are made
// only when an epoch is claimed (one grant per host) and checked when a host follows or a
// player attaches to a primary (once per primary and epoch; checks are cached after).
import { generateIdentity, type Identity } from '../src/core/identity';
import type { NodeId } from '../src/core/node-id';
import { RouteVerifier } from '../src/dht/route-auth';
import { signedRouteData, type RouteEnvelope } from '../src/dht/route-frame';
import { subscriptionCodec } from '../src/region/subscription-messages';
import { webCryptoVerifier } from '../src/core/signer';
import { percentile } from '../src/core/percentile';
import { signGrant, type ClaimTerms, type EpochCert } from '../src/region/epoch-cert';
import { CertChecker } from '../src/region/cert-checker';

const RUNS = 200;

export async function benchAuth(): Promise<Record<string, number>> {
  const { ids, sign, check, cached } = await certCheckCost(RUNS);
  const edit = await routedEditCost(ids[0]!, ids[1]!.id);
  return {
    auth_cost_ms_p50: percentile(edit, 0.5),
    auth_cost_ms_p99: percentile(edit, 0.99),
    auth_grant_sign_ms_p50: percentile(sign, 0.5),
    auth_cert_check_ms_p50: percentile(check, 0.5),
    auth_cert_check_ms_p99: percentile(check, 0.99),
    auth_cert_check_cached_ms_p50: percentile(cached, 0.5),
    auth_samples: RUNS,
  };
}

/**
 * `runs` certificates of 3 hosts (Ed25519, WebCrypto), one per epoch, each granted anew and
 * checked by a fresh CertChecker whose reader finds the granters nearest the key, as a host
 * of the region does: ms to sign one grant, to check one uncached (shape, 3 signatures, each
 * key imported again, the anchor rule), and to check it again (the cached verdict).
 */
export async function certCheckCost(runs: number): Promise<{ ids: Identity[]; sign: number[]; check: number[]; cached: number[] }> {
  const ids = await Promise.all([0, 1, 2].map(() => generateIdentity({ alg: 'Ed25519' })));
  const key = new Uint8Array(20).fill(7);
  const sign: number[] = [], check: number[] = [], cached: number[] = [];
  for (let i = 0; i < runs; i++) {
    const terms: ClaimTerms = { e: i + 2, primary: ids[0]!.id, hosts: ids.map((x) => x.id), prev: { e: i + 1, hosts: ids.map((x) => x.id) } };
    let t = performance.now();
    const grants = [await signGrant(ids[0]!, key, terms)];
    sign.push(performance.now() - t);
    for (const x of ids.slice(1)) grants.push(await signGrant(x, key, terms));
    const cert: EpochCert = { ...terms, grants };
    const checker = new CertChecker(webCryptoVerifier, { near: () => ids.map((x) => x.id), refresh: () => Promise.resolve(false) });
    t = performance.now();
    const fault = await checker.check(key, cert);
    check.push(performance.now() - t);
    if (fault) throw new Error(`benchmark certificate refused: ${fault}`);
    t = performance.now();
    await checker.check(key, cert);
    cached.push(performance.now() - t);
  }
  return { ids, sign, check, cached };
}

/**
 * What authentication adds to one edit on the commit path. On a direct link (the player
 * links to its primary when it attaches) nothing: the link's handshake proved both ids and
 * DTLS carries the frames. Routed (no link yet, e.g. right after a failover), the player
 * signs the envelope (id, ts, src, dst and the EDIT frame) and the primary checks it before
 * the edit is read (dht/route-auth.ts): this is that sign + check, with the player's key
 * already verified and imported (it is after the first frame: route-auth's key cache).
 */
async function routedEditCost(player: Identity, primary: NodeId): Promise<number[]> {
  const verifier = new RouteVerifier();
  const body = subscriptionCodec.encode({ t: 'EDIT', rx: 1, rz: 2, r: 7, x: 100, y: 70, z: 150, id: 3, px: 101, py: 70, pz: 152 });
  const out: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const env: RouteEnvelope = { id: i, ttl: 16, src: player.id, dst: primary, trace: [], via: [], body, ts: Math.floor(Date.now() / 1000) };
    const t = performance.now();
    env.auth = { alg: player.alg, publicKey: player.publicKey, signature: await player.sign(signedRouteData(player.alg, env)) };
    if (!(await verifier.verify(env))) throw new Error('benchmark route signature refused');
    if (i > 0) out.push(performance.now() - t); // the first imports the key
  }
  return out;
}
