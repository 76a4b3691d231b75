// The cost of strict IndexedDB durability (promises, grants and region state are
// written with durability 'strict', src/store/durability.ts): the real IdbHostStore saving a
// region's record in real Chromium on a profile on disk, alternately 'relaxed' and 'strict'
// in one run. Two sizes: a small region (200 edited blocks) and a large one (20,000).
// idb_region_save_ms_{p50,p99}_{relaxed,strict}_{small,large}; failed saves are counted.
import { withDevPage } from '../e2e/browser';
import type { DurabilityRun } from '../e2e/pages/durability';
import { percentile } from '../src/core/percentile';

const PORT = 8095;
const SAVES = 60;

export function benchDurability(): Promise<Record<string, number>> {
  return withDevPage(PORT, 'e2e/pages/durability.html', 'vpDurability', async (page) => {
    const out: Record<string, number> = {};
    for (const [size, entries] of [['small', 200], ['large', 20_000]] as const) {
      const r: DurabilityRun = await page.evaluate(([n, e]) => window.vpDurability.run(n, e), [SAVES, entries] as const);
      const r1 = (x: number) => Math.round(x * 100) / 100;
      for (const mode of ['relaxed', 'strict'] as const) {
        out[`idb_region_save_ms_p50_${mode}_${size}`] = r1(percentile(r[mode], 0.5));
        out[`idb_region_save_ms_p99_${mode}_${size}`] = r1(percentile(r[mode], 0.99));
      }
      out[`idb_region_save_samples_${size}`] = r.relaxed.length + r.strict.length;
      out[`idb_region_save_failed_${size}`] = r.failed;
      out[`idb_region_save_bytes_${size}`] = r.entryBytes;
    }
    return out;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchDurability()));
}
