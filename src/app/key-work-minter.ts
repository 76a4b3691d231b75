// The player key's proof of work (core/key-work.ts) for this profile: read from IndexedDB
// when a nonce for this key is stored, minted otherwise (a new profile, a profile from before
// passes, an imported key) in a Web Worker and stored. Where no Worker can be had (Node), it
// mints on this thread in slices that yield to the event loop.
import { checkWork, searchWork, workSeed } from '../core/key-work';
import { loadPlayerWork, savePlayerWork } from '../store/identity-store';

/** Hashes per slice when minting on this thread (~10-20 ms). */
const SLICE = 1 << 14;

/** What became of the work: read from the store, or minted (and how long that took). */
export interface PlayerWork {
  /** The key the work is for. */
  key: Uint8Array;
  nonce: number;
  minted: boolean;
  ms: number;
}

/** This profile's nonce for `publicKey` at `bits`, stored or minted now. */
export async function playerWork(publicKey: Uint8Array, bits: number, dbName?: string): Promise<PlayerWork> {
  const t0 = performance.now();
  const stored = await loadPlayerWork(publicKey, dbName).catch(() => undefined);
  if (stored !== undefined && checkWork(publicKey, stored, bits)) return { key: publicKey, nonce: stored, minted: false, ms: performance.now() - t0 };
  const nonce = await mintOffThread(publicKey, bits).catch(() => mintInSlices(publicKey, bits));
  await savePlayerWork(publicKey, nonce, dbName).catch(() => undefined); // not kept: minted again next time
  return { key: publicKey, nonce, minted: true, ms: performance.now() - t0 };
}

function mintOffThread(key: Uint8Array, bits: number): Promise<number> {
  return new Promise((resolve, reject) => {
    if (typeof Worker === 'undefined') return reject(new Error('no Worker here'));
    const w = new Worker(new URL('./key-work.worker.ts', import.meta.url), { type: 'module', name: 'key-work' });
    w.onmessage = (e: MessageEvent<{ nonce: number }>) => {
      w.terminate();
      resolve(e.data.nonce);
    };
    w.onerror = (e) => {
      w.terminate();
      reject(new Error(e.message));
    };
    w.postMessage({ key, bits });
  });
}

async function mintInSlices(key: Uint8Array, bits: number): Promise<number> {
  const seed = workSeed(key);
  for (let from = 0; from < 2 ** 32; from += SLICE) {
    const n = searchWork(seed, bits, from, SLICE);
    if (n !== undefined) return n;
    await new Promise((r) => setTimeout(r, 0));
  }
  throw new Error(`no nonce proves ${bits} bits on this key`);
}

/** Minting longer than this is said on the HUD (a new profile's first edits wait for it). */
const SAY_AFTER_MS = 200;

/** Says on the HUD that the player key is being made when that takes a while, and when it is ready. */
export function sayMinting(work: Promise<PlayerWork>, hud: { showMessage(text: string, kind: 'notice'): void }): void {
  let said = false;
  const t = setTimeout(() => {
    said = true;
    hud.showMessage('Making your player key (once per browser, about a second): your first edits wait for it…', 'notice');
  }, SAY_AFTER_MS);
  void work.then((w) => {
    clearTimeout(t);
    if (said) hud.showMessage(`Player key ready (${(w.ms / 1000).toFixed(1)} s)`, 'notice');
  }, () => clearTimeout(t));
}
