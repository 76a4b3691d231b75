// What a player identity costs to mint and to check (region/player-pass.ts): the
// proof of work on the player key at PLAYER_PASS_BITS, minted for fresh keys in Node (one
// thread, as a hostile script would in plain JS) and in real Chromium through the page's own
// path (a Web Worker, the nonce stored in IndexedDB), the time to read a stored nonce back,
// and a host's check of a pass (two hashes and a signature check) in both.
// player_key_mint_ms_{node,chromium}_{p50,p90,max}, player_key_read_ms_p50_chromium,
// player_pass_check_us_{node,chromium}, player_key_bits.
import { withDevPage } from '../e2e/browser';
import type { PlayerKeyRun } from '../e2e/pages/player-key';
import { percentile } from '../src/core/percentile';
import { generateIdentity } from '../src/core/identity';
import { mintWork } from '../src/core/key-work';
import { webCryptoVerifier } from '../src/core/signer';
import { checkPlayerPass, makePlayerPass, PLAYER_PASS_BITS } from '../src/region/player-pass';

const PORT = 8096;
const KEYS = 12;
const CHECKS = 500;

const r1 = (x: number) => Math.round(x * 10) / 10;

function spread(prefix: string, ms: number[], out: Record<string, number>): void {
  out[`${prefix}_p50`] = r1(percentile(ms, 0.5));
  out[`${prefix}_p90`] = r1(percentile(ms, 0.9));
  out[`${prefix}_max`] = r1(Math.max(...ms));
}

export async function benchPlayerKey(keys = KEYS): Promise<Record<string, number>> {
  const out: Record<string, number> = { player_key_bits: PLAYER_PASS_BITS };
  const node = new Uint8Array(20).fill(7);
  const ms: number[] = [];
  let pass;
  for (let i = 0; i < keys; i++) {
    const id = await generateIdentity();
    const t0 = performance.now();
    const nonce = mintWork(id.publicKey, PLAYER_PASS_BITS);
    ms.push(performance.now() - t0);
    pass = await makePlayerPass(id, node, nonce);
  }
  spread('player_key_mint_ms_node', ms, out);
  const t0 = performance.now();
  for (let i = 0; i < CHECKS; i++) await checkPlayerPass(pass!, node, PLAYER_PASS_BITS, webCryptoVerifier);
  out.player_pass_check_us_node = r1(((performance.now() - t0) / CHECKS) * 1000);
  const run: PlayerKeyRun = await withDevPage(PORT, 'e2e/pages/player-key.html', 'vpPlayerKey', (page) =>
    page.evaluate(([k, b, c]) => window.vpPlayerKey.run(k, b, c), [keys, PLAYER_PASS_BITS, CHECKS] as const));
  spread('player_key_mint_ms_chromium', run.mintMs, out);
  out.player_key_read_ms_p50_chromium = r1(percentile(run.readMs, 0.5));
  out.player_pass_check_us_chromium = r1(run.checkUs);
  out.player_key_failed = run.failed;
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchPlayerKey(Number(process.argv[2] ?? KEYS))));
}
