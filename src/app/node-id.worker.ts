// Worker side of node-id-minter.ts: draws keypairs until one's id shows the work asked
// (core/identity.ts generateNodeIdentity), off the page's main thread, and hands back the
// keys as JWK (~1 s of key generation once per identity slot; docs/BENCHMARKS.md `id_work`).
// It says its draws as it goes: a worker that does not find is ended without a last word,
// and the page counts the draws of every worker (what the id cost the tab).
import { ID_WORK_BITS } from '../core/id-work';
import { generateNodeIdentity, MINT_PROGRESS_EVERY, type MintReply } from '../core/identity';

/** What it is asked: the bits (ID_WORK_BITS unless said: index.html's early script says none, early-mint.ts). */
const scope = globalThis as unknown as { onmessage: ((e: MessageEvent<{ bits?: number }>) => void) | null; postMessage(m: MintReply): void };

scope.onmessage = (e) => {
  const counts = { tries: 0 };
  const onDraw = (drawn: number) => {
    if (drawn % MINT_PROGRESS_EVERY === 0) scope.postMessage({ drawn });
  };
  generateNodeIdentity({ bits: e.data.bits ?? ID_WORK_BITS, counts, onDraw })
    .then((id) => id.toJson())
    .then((json) => scope.postMessage({ json, tries: counts.tries }), (err: Error) => scope.postMessage({ error: err.message }));
};
