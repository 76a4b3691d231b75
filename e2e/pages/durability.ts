// Test-only page script: the real IdbHostStore saving a region's record, alternately with
// 'relaxed' and 'strict' durability (two databases, one profile), so the cost of flushing
// to disk is measured side by side. Exposed as window.vpDurability.
import { IdbHostStore } from '../../src/store/host-store';
import { encodeEntries, type Entry } from '../../src/region/region-state';

export interface DurabilityRun {
  /** ms per save, in the order taken. */
  relaxed: number[];
  strict: number[];
  /** Bytes of the region entries each save wrote. */
  entryBytes: number;
  failed: number;
}

declare global {
  interface Window {
    vpDurability: { run(saves: number, entries: number): Promise<DurabilityRun> };
  }
}

window.vpDurability = {
  async run(saves, entryCount) {
    const entries: Entry[] = [];
    for (let i = 0; i < entryCount; i++) entries.push({ key: i * 7, id: 1 + (i % 20), e: 3, s: i + 1 });
    const encoded = encodeEntries(entries);
    const stores = {
      relaxed: await IdbHostStore.open('bench', 'node', 'vp-durability-relaxed', 'relaxed'),
      strict: await IdbHostStore.open('bench', 'node', 'vp-durability-strict', 'strict'),
    };
    const out: DurabilityRun = { relaxed: [], strict: [], entryBytes: encoded.length, failed: 0 };
    for (let i = 0; i < saves; i++) {
      // Alternate, and swap which goes first, so both see the same disk and load.
      const order = i % 2 === 0 ? (['relaxed', 'strict'] as const) : (['strict', 'relaxed'] as const);
      for (const mode of order) {
        const t0 = performance.now();
        try {
          await stores[mode].save({ rx: i % 4, rz: 0, entries: encoded, promised: i + 1 });
          out[mode].push(performance.now() - t0);
        } catch {
          out.failed++;
        }
      }
    }
    stores.relaxed.close();
    stores.strict.close();
    return out;
  },
};
document.getElementById('log')!.textContent = 'ready';
