// A tab's node identity is minted in a Web Worker (node-id.worker.ts): drawing ~2^bits
// keypairs, each id one scrypt of the key (core/key-ids.ts), until one shows the work every
// peer checks (core/id-work.ts) takes a second or a few, and a drawing tab keeps its frames
// meanwhile. Where no Worker can be had (Node, a worker that fails to start) it is minted on
// this thread, scrypts and all.
import { ID_WORK_BITS } from '../core/id-work';
import { generateNodeIdentity, identityFromJson, type Identity, type MintReply } from '../core/identity';

/** A node identity whose id shows `bits` of work; the keypairs drawn are added to `counts`. */
export function mintNodeIdentity(bits = ID_WORK_BITS, counts?: { tries: number }): Promise<Identity> {
  return mintOffThread(bits, counts).catch(() => generateNodeIdentity({ bits, ...(counts ? { counts } : {}) }));
}

function mintOffThread(bits: number, counts?: { tries: number }): Promise<Identity> {
  return new Promise((resolve, reject) => {
    if (typeof Worker === 'undefined') return reject(new Error('no Worker here'));
    const w = new Worker(new URL('./node-id.worker.ts', import.meta.url), { type: 'module', name: 'node-id' });
    w.onmessage = (e: MessageEvent<MintReply>) => {
      w.terminate();
      if ('error' in e.data) return reject(new Error(e.data.error));
      if (counts) counts.tries += e.data.tries;
      identityFromJson(e.data.json, 'node').then(resolve, reject);
    };
    w.onerror = (e) => {
      w.terminate();
      reject(new Error(e.message));
    };
    w.postMessage({ bits });
  });
}
