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
//   (node:crypto keygen, SHA-256 of the key, the work hash): an attacker's plain rate;
// - sybil_place_cpu_s_{100,1k,10k}: CPU-seconds to put 2 ids among the 3 closest of a
//   chosen key among N honest nodes at that rate, 2 * (N / 3) * 2^bits / rate, and
//   sybil_place_cpu_s_{1k,10k}_fast at FAST_RATE (a vanity-key search by point addition).
import { createHash, generateKeyPairSync } from 'node:crypto';
import { withDevPage } from '../e2e/browser';
import type { IdWorkRun } from '../e2e/pages/id-work';
import { ID_WORK_BITS, idWorkBits } from '../src/core/id-work';
import { generateNodeIdentity } from '../src/core/identity';
import { percentile } from '../src/core/percentile';

const PORT = 8087;
const IDS_CHROMIUM = 40;
const IDS_NODE = 12;
/** How long the synchronous rate is sampled. */
const RATE_MS = 3000;
/**
 * Keys per second of an attacker that derives Ed25519 public keys by point addition
 * (P, P + B, P + 2B, ... with batched inversions, as vanity-address tools do) and hashes
 * them natively: a stated figure, not measured here (docs/BENCHMARKS.md).
 */
export const FAST_RATE = 1e7;

const r1 = (x: number) => Math.round(x * 10) / 10;

/** Keypairs made and checked per second on this thread (node:crypto, synchronous). */
export function syncKeygenRate(ms = RATE_MS): number {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    const { publicKey } = generateKeyPairSync('ed25519');
    // SPKI DER of an Ed25519 key: a 12-byte header, then the 32-byte raw key.
    const raw = publicKey.export({ type: 'spki', format: 'der' }).subarray(12);
    const id = new Uint8Array(createHash('sha256').update(raw).digest().subarray(0, 20));
    if (idWorkBits(id) >= 0) n++;
  }
  return (n / (performance.now() - t0)) * 1000;
}

/** CPU-seconds to place 2 ids among the `among` (default 3) closest to a key among `n` honest nodes. */
export function sybilPlaceCpuS(n: number, bits: number, rate: number, among = 3): number {
  return (2 * (n / among) * 2 ** bits) / rate;
}

export async function benchIdWork(bits = ID_WORK_BITS): Promise<Record<string, number>> {
  const out: Record<string, number> = { id_work_bits: bits };
  const rate = syncKeygenRate();
  out.id_keygen_per_s_node = Math.round(rate);
  for (const [n, name] of [[100, '100'], [1000, '1k'], [10_000, '10k']] as const) out[`sybil_place_cpu_s_${name}`] = r1(sybilPlaceCpuS(n, bits, rate));
  out.sybil_place_cpu_s_1k_fast = Math.round(sybilPlaceCpuS(1000, bits, FAST_RATE) * 1000) / 1000;
  out.sybil_place_cpu_s_10k_fast = Math.round(sybilPlaceCpuS(10_000, bits, FAST_RATE) * 1000) / 1000;

  const ms: number[] = [];
  const counts = { tries: 0 };
  for (let i = 0; i < IDS_NODE; i++) {
    const t0 = performance.now();
    await generateNodeIdentity({ bits, counts });
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
  out.id_work_failed = run.failed;
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchIdWork(process.argv[2] ? Number(process.argv[2]) : undefined)));
}
