// Test-only page script: what a tab's node id costs to mint in Chromium (bench/
// id-work-bench.ts), through the page's real path (app/node-id-minter.ts: a Web Worker
// drawing keypairs until one's id shows the work, worker start included), and what one
// check of a new node key costs on the page's thread (core/key-ids.ts deriveNodeId, one
// scrypt). Exposed as window.vpIdWork.
import { idWorkBits } from '../../src/core/id-work';
import { deriveNodeId } from '../../src/core/key-ids';
import { mintNodeIdentity } from '../../src/app/node-id-minter';

export interface IdWorkRun {
  /** ms to mint each identity. */
  mintMs: number[];
  /** Keypairs drawn in all, and the ms all the mints took. */
  tries: number;
  totalMs: number;
  /** Identities whose id showed too little work (must be 0). */
  failed: number;
  /** ms of each of 200 node id derivations on the page's thread (a check of a new key). */
  deriveMs: number[];
}

declare global {
  interface Window {
    vpIdWork: { run(ids: number, bits: number): Promise<IdWorkRun> };
  }
}

window.vpIdWork = {
  async run(ids, bits) {
    const out: IdWorkRun = { mintMs: [], tries: 0, totalMs: 0, failed: 0, deriveMs: [] };
    const raw = new Uint8Array(32).fill(9);
    for (let i = 0; i < 200; i++) {
      raw[0] = i & 255;
      const t0 = performance.now();
      deriveNodeId(raw);
      out.deriveMs.push(performance.now() - t0);
    }
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
