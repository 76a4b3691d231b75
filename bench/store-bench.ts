// Bytes written to the host store per edit (docs/BENCHMARKS.md "Storage"): the real IdbHostStore in
// real Chromium on a profile on disk, 3,000 single-block edits in one region of 2,000
// edited blocks (enough for the log to be compacted twice, at 1,024 records, so the bases
// that compaction writes are in the figure), each edit's write as a host makes it now (host/stored-copy.ts: an append
// of what changed, a compaction past the log limits) and, side by side in the same run
// (alternating which goes first), as it did before: the whole region record rewritten.
// store_bytes_per_edit{,_rewrite}: payload bytes handed to IndexedDB per edit (compactions
// included); store_save_ms_{p50,p99}{,_rewrite}: time per edit's write (strict durability).
import { withDevPage } from '../e2e/browser';
import type { StoreBenchRun } from '../e2e/pages/store-log';
import { percentile } from '../src/core/percentile';

const PORT = 8097;
const EDITS = 3000;
const BASE_ENTRIES = 2000;

export function benchStore(): Promise<Record<string, number>> {
  return withDevPage(PORT, 'e2e/pages/store-log.html', 'vpStoreLog', async (page) => {
    const r: StoreBenchRun = await page.evaluate(([n, b]) => window.vpStoreLog.bench(n, b), [EDITS, BASE_ENTRIES] as const);
    const r1 = (x: number) => Math.round(x * 100) / 100;
    return {
      store_bytes_per_edit: r1(r.bytesPerEdit.log),
      store_bytes_per_edit_rewrite: r1(r.bytesPerEdit.rewrite),
      store_save_ms_p50: r1(percentile(r.ms.log, 0.5)),
      store_save_ms_p99: r1(percentile(r.ms.log, 0.99)),
      store_save_ms_p50_rewrite: r1(percentile(r.ms.rewrite, 0.5)),
      store_save_ms_p99_rewrite: r1(percentile(r.ms.rewrite, 0.99)),
      store_compactions: r.compactions,
      store_region_bytes: r.regionBytes,
      store_edits: EDITS,
    };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchStore()));
}
