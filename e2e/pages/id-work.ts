// Test-only page script: what a tab's node id costs to mint in Chromium (bench/
// id-work-bench.ts), through the page's real path (app/node-id-minter.ts: a Web Worker
// drawing keypairs until one's id shows the work, worker start included). Exposed as
// window.vpIdWork.
import { idWorkBits } from '../../src/core/id-work';
import { mintNodeIdentity } from '../../src/app/node-id-minter';

export interface IdWorkRun {
  /** ms to mint each identity. */
  mintMs: number[];
  /** Keypairs drawn in all, and the ms all the mints took. */
  tries: number;
  totalMs: number;
  /** Identities whose id showed too little work (must be 0). */
  failed: number;
}

declare global {
  interface Window {
    vpIdWork: { run(ids: number, bits: number): Promise<IdWorkRun> };
  }
}

window.vpIdWork = {
  async run(ids, bits) {
    const out: IdWorkRun = { mintMs: [], tries: 0, totalMs: 0, failed: 0 };
    const counts = { tries: 0 };
    for (let i = 0; i < ids; i++) {
      const t0 = performance.now();
      const id = await mintNodeIdentity(bits, counts);
      out.mintMs.push(performance.now() - t0);
      if (idWorkBits(id.id) < bits) out.failed++;
    }
    out.tries = counts.tries;
    out.totalMs = out.mintMs.reduce((a, b) => a + b, 0);
    return out;
  },
};
