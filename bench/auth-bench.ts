// `npm run bench -- auth`: what certificates cost, with the tabs' WebCrypto (Node's, same
// API). Edits carry no signature of their own: the primary signs each commit batch once
// (and each SYNC piece: host/state-proofs.ts), its backups keep the signature unchecked,
// and a claimant checks one only for entries no majority of its granters agreed on. Grants
// are signed when an epoch is claimed (one per host) and certificates checked when a host
// follows or a player attaches to a primary (once per primary and epoch; cached after).
import type { Identity } from '../src/core/identity';
import { testNodeIdentity } from '../src/testing/node-identities';
import type { NodeId } from '../src/core/node-id';
import { RouteVerifier } from '../src/dht/route-auth';
import { signedRouteData, type RouteEnvelope } from '../src/dht/route-frame';
import { subscriptionCodec } from '../src/region/subscription-messages';
import { cachingWebCryptoVerifier, webCryptoVerifier } from '../src/core/signer';
import { percentile } from '../src/core/percentile';
import { signGrant, type ClaimTerms, type EpochCert } from '../src/region/epoch-cert';
import { CertChecker } from '../src/region/cert-checker';
import { encodeEntries, PIECE_ENTRIES, type Entry } from '../src/region/region-state';
import { proofBytes } from '../src/region/entry-proofs';
import { ProofSigner } from '../src/host/state-proofs';
import { RelayCheck } from '../src/play/relay-proofs';

const RUNS = 200;

export async function benchAuth(): Promise<Record<string, number>> {
  const { ids, sign, check, cached } = await certCheckCost(RUNS);
  const edit = await routedEditCost(ids[0]!, ids[1]!.id);
  const batch = await proofCost(ids[0]!, 16), piece = await proofCost(ids[0]!, PIECE_ENTRIES);
  const relay = await relayCost(ids[0]!);
  return {
    auth_batch_group_wait_ms_p50: percentile(relay.wait, 0.5),
    auth_batch_group_wait_ms_p99: percentile(relay.wait, 0.99),
    auth_relay_check_ms_p50: percentile(relay.check, 0.5),
    auth_relay_check_ms_p99: percentile(relay.check, 0.99),
    auth_relay_check_cached_ms_p50: percentile(relay.cached, 0.5),
    auth_batch_sign_ms_p50: percentile(batch.sign, 0.5),
    auth_batch_sign_ms_p99: percentile(batch.sign, 0.99),
    auth_batch_check_ms_p50: percentile(batch.check, 0.5),
    auth_sync_piece_sign_ms_p50: percentile(piece.sign, 0.5),
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
  // Hosts' ids show the id work production asks (a checker counts no other id near a key).
  const ids = [await testNodeIdentity(), await testNodeIdentity(), await testNodeIdentity()];
  const key = new Uint8Array(20).fill(7);
  const sign: number[] = [], check: number[] = [], cached: number[] = [];
  for (let i = 0; i < runs; i++) {
    const terms: ClaimTerms = { e: i + 2, primary: ids[0]!.id, hosts: ids.map((x) => x.id), prev: { e: i + 1, hosts: ids.map((x) => x.id) } };
    let t = performance.now();
    const grants = [await signGrant(ids[0]!, key, terms)];
    sign.push(performance.now() - t);
    for (const x of ids.slice(1)) grants.push(await signGrant(x, key, terms));
    const cert: EpochCert = { ...terms, grants };
    const checker = new CertChecker(webCryptoVerifier, { near: () => ids.map((x) => x.id), refresh: () => Promise.resolve(false), live: () => Promise.resolve(ids.map((x) => x.id)) });
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
 * A primary's signature over one commit batch of `n` entries (a SYNC piece: PIECE_ENTRIES),
 * as commit-pipeline.ts makes it (proofBytes, then sign), and a claimant's check of it (the
 * tabs' verifier: the primary's key remembered after its first use).
 */
async function proofCost(primary: Identity, n: number): Promise<{ sign: number[]; check: number[] }> {
  const key = new Uint8Array(20).fill(7);
  const entries: Entry[] = Array.from({ length: n }, (_, i) => ({ key: i, id: 1, e: 3, s: i + 1 }));
  const runs = n > 1000 ? 20 : RUNS;
  const sign: number[] = [], check: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    const p = { e: 3, f: i + 1, t: i + n, b: encodeEntries(entries) };
    const s = await primary.sign(proofBytes(key, p));
    sign.push(performance.now() - t);
    t = performance.now();
    if (!(await webCryptoVerifier('node', primary.id, primary.alg, primary.publicKey, proofBytes(key, p), s))) throw new Error('benchmark proof refused');
    check.push(performance.now() - t);
  }
  return { sign, check };
}

/**
 * What a tick's frames wait for in a tab (ProofSigner.run with one 16-entry batch: its
 * signature made by WebCrypto, from the call to the frames leaving), and a subscriber's
 * check of a relayed one-batch DELTA (RelayCheck, the primary's key remembered as a tab's
 * verifier keeps it), then of the same batch again (its PENDING came first: remembered).
 */
async function relayCost(primary: Identity): Promise<{ wait: number[]; check: number[]; cached: number[] }> {
  const key = new Uint8Array(20).fill(7);
  const signer = new ProofSigner(primary, key, () => {});
  const verify = cachingWebCryptoVerifier();
  const relays = new RelayCheck((_c, data, s) => verify('node', primary.id, primary.alg, primary.publicKey, data, s));
  const cert = { e: 3, primary: primary.id, hosts: [primary.id], grants: [] } as unknown as EpochCert;
  const wait: number[] = [], check: number[] = [], cached: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const entries: Entry[] = Array.from({ length: 16 }, (_, k) => ({ key: k, id: 1, e: 3, s: 16 * i + k + 1 }));
    const p = { e: 3, f: 16 * i + 1, t: 16 * i + 16, b: encodeEntries(entries) };
    const t0 = performance.now();
    const sig = await new Promise<Uint8Array | undefined>((done) => signer.run([p], (sigs) => done(sigs[0])));
    wait.push(performance.now() - t0);
    const frame = { e: 3, from: p.f, to: p.t, entries: p.b };
    for (const into of [check, cached]) {
      const t = performance.now();
      if (!(await relays.covers(key, cert, frame, [[p.f, p.t, sig!]]))) throw new Error('benchmark relay refused');
      into.push(performance.now() - t);
    }
  }
  return { wait, check, cached };
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
