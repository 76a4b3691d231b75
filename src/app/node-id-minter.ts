// A tab's node identity is minted in Web Workers (node-id.worker.ts): drawing ~2^bits
// keypairs, each id one scrypt of the key (core/key-ids.ts), until one shows the work every
// peer checks (core/id-work.ts) takes a second or a few, and a drawing tab keeps its frames
// meanwhile. The workers are started before the identity store is read (`warmNodeIdMinter`),
// so their start overlaps opening it, and are ended unused when it holds a key. Where no
// Worker can be had (Node, a worker that fails to start) it is minted on this thread,
// scrypts and all.
import { ID_WORK_BITS } from '../core/id-work';
import { generateNodeIdentity, identityFromJson, type Identity, type MintReply } from '../core/identity';

/** At most this many workers draw keys for one mint. */
export const MAX_MINT_WORKERS = 4;

/**
 * Workers drawing at once: half the cores (at least one, at most MAX_MINT_WORKERS). The draws
 * are independent, so k workers find an id k times sooner; the other half of the cores is
 * left to the page (the world's generation and meshing, the player key's work run meanwhile).
 */
export function mintWorkerCount(cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2): number {
  return Math.max(1, Math.min(MAX_MINT_WORKERS, Math.floor(cores / 2)));
}

export interface NodeIdMinter {
  /** A node identity whose id shows `bits` of work; the keypairs the finding worker drew are added to `counts`. */
  mint(bits?: number, counts?: { tries: number }): Promise<Identity>;
  /** Ends the workers (those still drawing, or never asked). Idempotent. */
  dispose(): void;
}

/** Starts `workers` minting workers now; they draw keys once `mint` is asked, and are ended by it or by `dispose`. */
export function warmNodeIdMinter(workers = mintWorkerCount()): NodeIdMinter {
  const started: Worker[] = [];
  // A worker whose module failed to load says so before it is asked anything: left out then.
  const broken = new Set<Worker>();
  if (typeof Worker !== 'undefined') {
    try {
      for (let i = 0; i < workers; i++) {
        const w = new Worker(new URL('./node-id.worker.ts', import.meta.url), { type: 'module', name: 'node-id' });
        w.onerror = () => void broken.add(w);
        started.push(w);
      }
    } catch {
      // No worker here (a page without the right): minted on this thread.
    }
  }
  const take = () => {
    const ws = started.splice(0);
    for (const w of ws) if (broken.has(w)) w.terminate();
    return ws.filter((w) => !broken.has(w));
  };
  return {
    dispose: () => void take().forEach((w) => w.terminate()),
    mint(bits = ID_WORK_BITS, counts?: { tries: number }) {
      return mintOn(take(), bits, counts).catch(() => generateNodeIdentity({ bits, ...(counts ? { counts } : {}) }));
    },
  };
}

/** A node identity whose id shows `bits` of work, minted off this thread where it can be. */
export function mintNodeIdentity(bits = ID_WORK_BITS, counts?: { tries: number }): Promise<Identity> {
  return warmNodeIdMinter().mint(bits, counts);
}

function mintOn(ws: Worker[], bits: number, counts?: { tries: number }): Promise<Identity> {
  return new Promise((resolve, reject) => {
    if (ws.length === 0) return reject(new Error('no Worker here'));
    let failed = 0, done = false;
    const end = () => {
      done = true;
      for (const w of ws) w.terminate();
    };
    const fail = (why: string) => {
      if (done || ++failed < ws.length) return;
      end();
      reject(new Error(why));
    };
    for (const w of ws) {
      w.onmessage = (e: MessageEvent<MintReply>) => {
        if (done) return;
        if ('error' in e.data) return fail(e.data.error);
        end();
        if (counts) counts.tries += e.data.tries;
        identityFromJson(e.data.json, 'node').then(resolve, reject);
      };
      w.onerror = (e) => fail(e.message);
      w.postMessage({ bits });
    }
  });
}
