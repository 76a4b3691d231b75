// The node id's mint begun by an inline script of index.html, before any module of the page
// runs (vite.config.ts writes it into the built page): an ES module runs only once its whole
// static graph is fetched, and a fresh tab's entry began the mint 0.6-1.3 s after navigation
// on this 2-core machine (its chunks and the join's preloaded ones fetched and compiled
// first), its workers' first keypairs ~0.3 s later. The script starts the mint workers
// (node-id.worker.ts) where the entry would draw at once (a profile that never stored a node
// key, a page that joins: not `?net=off`), asks them to draw (for ID_WORK_BITS, the worker's
// own default), and keeps what they say until
// the minter takes them over (node-id-minter.ts `warmNodeIdMinter`). The count is
// node-id-minter.ts `mintWorkerCount`'s.
// It imports nothing at run time: vite.config.ts loads it to write the script.
import type { MintReply } from '../core/identity';

/** At most this many workers draw keys for one mint. */
export const MAX_MINT_WORKERS = 4;

/**
 * The localStorage item set once this profile stored a node key (join-start.ts): its tabs
 * draw no key before the identity store is read, here or in the entry.
 */
export const NODE_KEY_FLAG = 'vp-node-key-stored';

/** Where index.html's inline script leaves the workers it started. */
const EARLY_MINT_GLOBAL = 'vpEarlyMint';

/** Mint workers started before the page's modules ran: each asked for ID_WORK_BITS already, with what it said and how it failed since. */
export interface EarlyMint {
  workers: { worker: Worker; said: MintReply[]; failed: string[] }[];
}

/** The early mint's workers, taken (a second call finds none). */
export function takeEarlyMint(): EarlyMint | undefined {
  const g = globalThis as unknown as Record<string, EarlyMint | undefined>;
  const early = g[EARLY_MINT_GLOBAL];
  delete g[EARLY_MINT_GLOBAL];
  return early;
}

/** Ends the early mint's workers (a page that joins no network, or cannot draw). */
export function endEarlyMint(): void {
  for (const w of takeEarlyMint()?.workers ?? []) w.worker.terminate();
}

/** The inline script (a classic script: it runs as the parser meets it) that starts the mint's workers on `workerUrl`. */
export function earlyMintScript(workerUrl: string): string {
  return `(() => {
  try {
    if (new URLSearchParams(location.search).get('net') === 'off' || localStorage.getItem(${JSON.stringify(NODE_KEY_FLAG)})) return;
    const early = { workers: [] };
    globalThis.${EARLY_MINT_GLOBAL} = early;
    performance.mark('vp:mint-early');
    const n = Math.max(1, Math.min(${MAX_MINT_WORKERS}, Math.floor(navigator.hardwareConcurrency ?? 2)));
    for (let i = 0; i < n; i++) {
      const w = { worker: new Worker(${JSON.stringify(workerUrl)}, { type: 'module', name: 'node-id' }), said: [], failed: [] };
      w.worker.onmessage = (e) => {
        if (!performance.getEntriesByName('vp:mint-drawing').length) performance.mark('vp:mint-drawing');
        w.said.push(e.data);
      };
      w.worker.onerror = (e) => void w.failed.push(e.message);
      w.worker.postMessage({});
      early.workers.push(w);
    }
  } catch {
    // No storage or no worker here: the page's entry mints as it would have.
  }
})();`;
}
