// A tab's node identity is minted in Web Workers (node-id.worker.ts): drawing ~2^bits
// keypairs, each id one scrypt of the key (core/key-ids.ts), until one shows the work every
// peer checks (core/id-work.ts) takes a second or a few, and a drawing tab keeps its frames
// meanwhile. The draw is the longest step of a new profile's join and its length is
// geometric, so in a profile that never minted one the workers draw from the page's first
// script (index.html's inline one: early-mint.ts; taken over by `warmNodeIdMinter`), while the
// modules load and the identity store is opened and read (on a loaded machine that took 1-3 s
// of a new tab's join); a returning player's workers
// wait for the store, whose key ends them. Where no Worker can be had (Node, a worker that
// fails to start) it is minted on this thread, scrypts and all.
import { ID_WORK_BITS } from '../core/id-work';
import { generateNodeIdentity, identityFromJson, type Identity, type MintReply } from '../core/identity';
import { MAX_MINT_WORKERS, takeEarlyMint, type EarlyMint } from './early-mint';

/**
 * Workers drawing at once: one per core (at most MAX_MINT_WORKERS). The draws are
 * independent, so k workers find an id k times sooner, and while the id is drawn nothing of
 * the join can go on without it: the page's own start (its code, the world database, the
 * view) takes the main thread only in bursts, and the player key's work waits for the id.
 * With half the cores a 2-core tab drew with one worker and its id came ~2x later.
 */
export function mintWorkerCount(cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2): number {
  return Math.max(1, Math.min(MAX_MINT_WORKERS, Math.floor(cores)));
}

export interface NodeIdMinter {
  /** A node identity whose id shows `bits` of work; the keypairs drawn for it (by every worker) are added to `counts`. */
  mint(bits?: number, counts?: { tries: number }): Promise<Identity>;
  /** Ends the workers (those still drawing, or never asked). Idempotent. */
  dispose(): void;
}

/** A draw under way in workers: what it found (with the keypairs every worker drew for it), and its end. */
interface Draw {
  readonly found: Promise<{ identity: Identity; tries: number }>;
  /** Ends its workers (a draw not wanted, or over). Idempotent. */
  end(): void;
}

/**
 * Starts `workers` minting workers now and, when `drawNow`, has them draw for `bits` at once:
 * `mint(bits)` takes that draw (another `bits`: drawn anew on this thread), `dispose` ends it
 * unused. Without `drawNow` they draw once `mint` is asked.
 */
export function warmNodeIdMinter(workers = mintWorkerCount(), bits = ID_WORK_BITS, drawNow = true): NodeIdMinter {
  const early = takeEarlyMint();
  // Workers index.html's script set drawing, taken over where they draw what this would.
  if (early && drawNow && bits === ID_WORK_BITS && early.workers.length) return minterOver(early.workers.map((w) => w.worker), bits, drawOn(early.workers.map((w) => w.worker), bits, early));
  for (const w of early?.workers ?? []) w.worker.terminate();
  const started: Worker[] = [];
  if (typeof Worker !== 'undefined') {
    try {
      for (let i = 0; i < workers; i++) started.push(new Worker(new URL('./node-id.worker.ts', import.meta.url), { type: 'module', name: 'node-id' }));
    } catch {
      // No worker here (a page without the right): minted on this thread.
    }
  }
  return minterOver(started, bits, drawNow ? drawOn(started, bits) : undefined);
}

/** The minter of workers `started`, drawing for `bits` already (`draw`) or once asked. */
function minterOver(started: Worker[], bits: number, draw: Draw | undefined): NodeIdMinter {
  let taken = false;
  const onThread = (b: number, counts?: { tries: number }) => generateNodeIdentity({ bits: b, ...(counts ? { counts } : {}) });
  const dispose = () => {
    if (draw) draw.end();
    else for (const w of started) w.terminate();
  };
  return {
    dispose,
    mint(b = ID_WORK_BITS, counts?: { tries: number }) {
      if (taken || (draw && b !== bits)) {
        dispose();
        return onThread(b, counts);
      }
      taken = true;
      draw ??= drawOn(started, b);
      return draw.found.then((d) => {
        if (counts) counts.tries += d.tries;
        return d.identity;
      }, () => onThread(b, counts));
    },
  };
}

/** A node identity whose id shows `bits` of work, minted off this thread where it can be. */
export function mintNodeIdentity(bits = ID_WORK_BITS, counts?: { tries: number }): Promise<Identity> {
  return warmNodeIdMinter(mintWorkerCount(), bits).mint(bits, counts);
}

/**
 * Asks every worker of `ws` to draw for `bits` now (or takes over `early`'s, asked already, with
 * what they said so far); the first id found wins and every worker is ended.
 */
function drawOn(ws: Worker[], bits: number, early?: EarlyMint): Draw {
  let done = false;
  const end = () => {
    done = true;
    for (const w of ws) w.terminate();
  };
  const found = new Promise<{ identity: Identity; tries: number }>((resolve, reject) => {
    if (ws.length === 0) return reject(new Error('no Worker here'));
    let failed = 0;
    const fail = (why: string) => {
      if (done || ++failed < ws.length) return;
      end();
      reject(new Error(why));
    };
    // Each worker's draws as it last said them: the finder's own count and the others' (within MINT_PROGRESS_EVERY each).
    const drawn = ws.map(() => 0);
    ws.forEach((w, i) => {
      const said = (reply: MintReply) => {
        if (done) return;
        if ('drawn' in reply) {
          // The first keypairs drawn: from here the draw goes at the cores' rate (the marks of a join).
          if (performance.getEntriesByName('vp:mint-drawing').length === 0) performance.mark('vp:mint-drawing');
          return void (drawn[i] = reply.drawn);
        }
        if ('error' in reply) return fail(reply.error);
        end();
        drawn[i] = reply.tries;
        const tries = drawn.reduce((a, b) => a + b, 0);
        identityFromJson(reply.json, 'node').then((identity) => resolve({ identity, tries }), reject);
      };
      w.onmessage = (e: MessageEvent<MintReply>) => said(e.data);
      // A worker whose module failed to load (or that failed drawing) is left out; all failed: on this thread.
      w.onerror = (e) => fail(e.message);
      const before = early?.workers[i];
      if (!before) return w.postMessage({ bits });
      before.said.forEach(said);
      before.failed.forEach(fail);
    });
  });
  // Ended unused, or failed with nobody asking: no unhandled rejection.
  found.catch(() => undefined);
  return { found, end };
}
