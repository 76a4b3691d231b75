// Test-only page script: what a player key's proof of work costs in Chromium (bench/
// player-key-bench.ts): minting through the page's real path (app/key-work-minter.ts: a Web
// Worker, the nonce stored in IndexedDB) for fresh keys, and checking a pass as a host does
// (two hashes and a WebCrypto signature check). Exposed as window.vpPlayerKey.
import { generateIdentity } from '../../src/core/identity';
import { webCryptoVerifier } from '../../src/core/signer';
import { checkPlayerPass, makePlayerPass } from '../../src/region/player-pass';
import { playerWork } from '../../src/app/key-work-minter';

export interface PlayerKeyRun {
  /** ms to mint each fresh key's work (worker start included). */
  mintMs: number[];
  /** ms to read a stored nonce back (a returning player). */
  readMs: number[];
  /** µs per pass check, averaged over the checks. */
  checkUs: number;
  failed: number;
}

declare global {
  interface Window {
    vpPlayerKey: { run(keys: number, bits: number, checks: number): Promise<PlayerKeyRun> };
  }
}

window.vpPlayerKey = {
  async run(keys, bits, checks) {
    const out: PlayerKeyRun = { mintMs: [], readMs: [], checkUs: 0, failed: 0 };
    const node = new Uint8Array(20).fill(7);
    let pass;
    for (let i = 0; i < keys; i++) {
      const id = await generateIdentity();
      const db = `vp-player-key-${i}`;
      const w = await playerWork(id.publicKey, bits, db);
      out.mintMs.push(w.ms);
      const again = await playerWork(id.publicKey, bits, db);
      out.readMs.push(again.ms);
      if (!w.minted || again.minted) out.failed++;
      pass = await makePlayerPass(id, node, w.nonce);
    }
    const t0 = performance.now();
    for (let i = 0; i < checks; i++) if (await checkPlayerPass(pass!, node, bits, webCryptoVerifier)) out.failed++;
    out.checkUs = ((performance.now() - t0) / checks) * 1000;
    return out;
  },
};
