// What a node id that shows work (core/id-work.ts) costs an honest tab, and what placing
// sybils costs an attacker (docs/BENCHMARKS.md "Ids that cost work"):
// - id_work_ms_{p50,p90}_chromium: a tab minting its node id through the page's own path
//   (app/node-id-minter.ts, a Web Worker, worker start included), in real Chromium;
//   id_keygen_per_s_chromium: keypairs drawn per second there, and
//   id_work_ms_p50_chromium_from_rate: the median the rate gives (ln 2 * 2^bits draws), as
//   the median of a few dozen geometric draws moves by a third from run to run;
// - id_work_ms_{p50,p90}_node, id_keygen_per_s_node_webcrypto: the same in Node (the
//   headless peer's path: WebCrypto, a few keys in flight);
// - id_keygen_per_s_node: keypairs made and checked per second on one core, synchronously
//   (node:crypto keygen, the node id through node:crypto's scrypt, the work hash): an
//   attacker's plain rate;
// - id_derive_per_s_native: node ids derived per second on one core through node:crypto's
//   scrypt alone: the rate of an attacker whose keys cost nothing (a vanity-key search by
//   point addition), since each candidate key still costs one scrypt;
// - id_derive_ms_{p50,p90}_{node,chromium}: one derivation in plain JS (core/scrypt.ts),
//   what a tab pays to check a new peer's key (once per key, remembered);
// - sybil_place_cpu_s_{100,1k,10k}: CPU-seconds to put 2 ids among the 3 closest of a
//   chosen key among N honest nodes at the plain rate, 2 * (N / 3) * 2^bits / rate, and
//   sybil_place_cpu_s_{1k,10k}_fast at the native derivation rate (the key free): 2 * (N / 3)
//   * 2^bits * t_scrypt.
import { createHash, generateKeyPairSync, scryptSync } from 'node:crypto';
import { withDevPage } from '../e2e/browser';
import type { IdWorkRun } from '../e2e/pages/id-work';
import { ID_WORK_BITS, idWorkBits } from '../src/core/id-work';
import { generateNodeIdentity } from '../src/core/identity';
import { deriveNodeId, NODE_ID_CONTEXT, NODE_ID_SCRYPT } from '../src/core/key-ids';
import { percentile } from '../src/core/percentile';
import { nativeNodeId } from '../src/store/native-node-id';

const PORT = 8087;
const IDS_CHROMIUM = 40;
const IDS_NODE = 12;
/** How long the synchronous rate is sampled. */
const RATE_MS = 3000;
/**
 * Keys per second of an attacker that derives Ed25519 public keys by point addition
 * (P, P + B, P + 2B, ... with batched inversions, as vanity-address tools do) and hashed
 * them natively while a node id was SHA-256 of the key: a stated figure, not measured here
 * (docs/BENCHMARKS.md). Such keys are still free; each now costs one scrypt.
 */
export const FAST_RATE = 1e7;

const r1 = (x: number) => Math.round(x * 10) / 10;
const { N, r, dkLen } = NODE_ID_SCRYPT;
const nativeDerive = (raw: Uint8Array) => new Uint8Array(scryptSync(raw, NODE_ID_CONTEXT, dkLen, { N, r, p: 1 }).subarray(0, 20));

/** Keypairs made and checked per second on this thread (node:crypto keygen and scrypt, synchronous). */
export function syncKeygenRate(ms = RATE_MS): number {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    const { publicKey } = generateKeyPairSync('ed25519');
    // SPKI DER of an Ed25519 key: a 12-byte header, then the 32-byte raw key.
    const raw = publicKey.export({ type: 'spki', format: 'der' }).subarray(12);
    if (idWorkBits(nativeDerive(raw)) >= 0) n++;
  }
  return (n / (performance.now() - t0)) * 1000;
}

/** Node ids derived and checked per second on this thread from keys that cost nothing (node:crypto's scrypt). */
export function nativeDeriveRate(ms = RATE_MS): number {
  let n = 0;
  const raw = new Uint8Array(createHash('sha256').update('free keys').digest());
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    raw[0] = n & 255; raw[1] = (n >>> 8) & 255; raw[2] = (n >>> 16) & 255;
    if (idWorkBits(nativeDerive(raw)) >= 0) n++;
  }
  return (n / (performance.now() - t0)) * 1000;
}

/** ms of one plain-JS node id derivation (what a check of a new key costs), `runs` keys. */
export function jsDeriveMs(runs = 200): number[] {
  const ms: number[] = [];
  const raw = new Uint8Array(32).fill(9);
  for (let i = 0; i < runs; i++) {
    raw[0] = i & 255; raw[1] = i >>> 8;
    const t0 = performance.now();
    deriveNodeId(raw);
    ms.push(performance.now() - t0);
  }
  return ms;
}

/** CPU-seconds to place 2 ids among the `among` (default 3) closest to a key among `n` honest nodes. */
export function sybilPlaceCpuS(n: number, bits: number, rate: number, among = 3): number {
  return (2 * (n / among) * 2 ** bits) / rate;
}

export async function benchIdWork(bits = ID_WORK_BITS): Promise<Record<string, number>> {
  const out: Record<string, number> = { id_work_bits: bits };
  const rate = syncKeygenRate();
  out.id_keygen_per_s_node = Math.round(rate);
  const fast = Math.min(FAST_RATE, nativeDeriveRate());
  out.id_derive_per_s_native = Math.round(fast);
  for (const [n, name] of [[100, '100'], [1000, '1k'], [10_000, '10k']] as const) out[`sybil_place_cpu_s_${name}`] = r1(sybilPlaceCpuS(n, bits, rate));
  out.sybil_place_cpu_s_1k_fast = r1(sybilPlaceCpuS(1000, bits, fast));
  out.sybil_place_cpu_s_10k_fast = r1(sybilPlaceCpuS(10_000, bits, fast));
  const derive = jsDeriveMs();
  out.id_derive_ms_p50_node = Math.round(percentile(derive, 0.5) * 100) / 100;
  out.id_derive_ms_p90_node = Math.round(percentile(derive, 0.9) * 100) / 100;

  // The headless peer's path: WebCrypto keys, node:crypto's scrypt (LevelStore.nodeIdentity).
  const ms: number[] = [];
  const counts = { tries: 0 };
  for (let i = 0; i < IDS_NODE; i++) {
    const t0 = performance.now();
    await generateNodeIdentity({ bits, counts, derive: nativeNodeId });
    ms.push(performance.now() - t0);
  }
  out.id_work_ms_p50_node = Math.round(percentile(ms, 0.5));
  out.id_work_ms_p90_node = Math.round(percentile(ms, 0.9));
  out.id_keygen_per_s_node_webcrypto = Math.round((counts.tries / ms.reduce((a, b) => a + b, 0)) * 1000);

  const run: IdWorkRun = await withDevPage(PORT, 'e2e/pages/id-work.html', 'vpIdWork', (page) =>
    page.evaluate(([k, b]) => window.vpIdWork.run(k, b), [IDS_CHROMIUM, bits] as const));
  out.id_work_ms_p50_chromium = Math.round(percentile(run.mintMs, 0.5));
  out.id_work_ms_p90_chromium = Math.round(percentile(run.mintMs, 0.9));
  out.id_keygen_per_s_chromium = Math.round((run.tries / run.totalMs) * 1000);
  out.id_work_ms_p50_chromium_from_rate = Math.round(((Math.LN2 * 2 ** bits) / out.id_keygen_per_s_chromium) * 1000);
  out.id_derive_ms_p50_chromium = Math.round(percentile(run.deriveMs, 0.5) * 100) / 100;
  out.id_derive_ms_p90_chromium = Math.round(percentile(run.deriveMs, 0.9) * 100) / 100;
  out.id_work_failed = run.failed;
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchIdWork(process.argv[2] ? Number(process.argv[2]) : undefined)));
}
