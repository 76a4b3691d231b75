import { afterEach, describe, expect, it, vi } from 'vitest';
import { idWorkOk } from '../core/id-work';
import { generateNodeIdentity } from '../core/identity';
import { earlyMintScript, endEarlyMint, NODE_KEY_FLAG, takeEarlyMint } from './early-mint';
import { mintWorkerCount, warmNodeIdMinter } from './node-id-minter';

/** A stand-in Web Worker: records its URL, what it was asked and whether it was ended. */
class FakeWorker {
  static made: FakeWorker[] = [];
  onmessage: ((e: { data: unknown }) => void) | null = null;
  onerror: ((e: { message: string }) => void) | null = null;
  asked: unknown[] = [];
  terminated = false;
  constructor(readonly url: string | URL) {
    FakeWorker.made.push(this);
  }
  postMessage(m: unknown): void {
    this.asked.push(m);
  }
  terminate(): void {
    this.terminated = true;
  }
}

/** Runs the inline script as index.html would, on a page at `search` with `cores` and `stored` localStorage items. */
function runScript(search: string, cores: number, stored: Record<string, string> = {}): void {
  vi.stubGlobal('Worker', FakeWorker);
  vi.stubGlobal('location', { search });
  vi.stubGlobal('navigator', { hardwareConcurrency: cores });
  vi.stubGlobal('localStorage', { getItem: (k: string) => stored[k] ?? null });
  new Function(earlyMintScript('/assets/node-id.worker-x.js'))();
}

afterEach(() => {
  endEarlyMint();
  vi.unstubAllGlobals();
  FakeWorker.made = [];
});

describe('the early mint of index.html', () => {
  it('starts as many workers as the entry would, each asked to draw once, left for the minter to take', () => {
    for (const cores of [1, 2, 3, 8]) {
      FakeWorker.made = [];
      runScript('?rd=2', cores);
      expect(FakeWorker.made.map((w) => [String(w.url), w.asked])).toEqual(Array.from({ length: mintWorkerCount(cores) }, () => ['/assets/node-id.worker-x.js', [{}]]));
      expect(takeEarlyMint()?.workers.map((w) => w.worker)).toEqual(FakeWorker.made);
      expect(takeEarlyMint()).toBeUndefined();
    }
  });

  it('starts none in a profile that stored a node key, or on a page that joins no network', () => {
    runScript('', 2, { [NODE_KEY_FLAG]: '1' });
    runScript('?net=off', 2);
    expect(FakeWorker.made).toEqual([]);
    expect(takeEarlyMint()).toBeUndefined();
  });

  it('the minter takes its workers over with what they said before it ran: the id found, every draw counted, no worker more', async () => {
    runScript('', 2);
    const [a, b] = FakeWorker.made;
    const json = await (await generateNodeIdentity({ bits: 4 })).toJson();
    a!.onmessage!({ data: { drawn: 8 } });
    b!.onmessage!({ data: { drawn: 8 } });
    a!.onmessage!({ data: { drawn: 16 } });
    b!.onmessage!({ data: { json, tries: 11 } });
    // Taken at the bits the workers draw for (ID_WORK_BITS): the id they found, though it shows only 4.
    const minter = warmNodeIdMinter();
    const counts = { tries: 0 };
    const id = await minter.mint(undefined, counts);
    expect(idWorkOk(id.id, 4)).toBe(true);
    expect(counts.tries).toBe(16 + 11);
    expect(FakeWorker.made.map((w) => [w.asked.length, w.terminated])).toEqual([[1, true], [1, true]]);
  });

  it('a minter that does not draw now (a key stored) or draws other bits ends them, and so does a page that joins nothing', () => {
    runScript('', 2);
    warmNodeIdMinter(2, undefined, false).dispose();
    expect(FakeWorker.made.slice(0, 2).every((w) => w.terminated)).toBe(true);
    FakeWorker.made = [];
    runScript('', 2);
    endEarlyMint();
    expect(FakeWorker.made.every((w) => w.terminated)).toBe(true);
  });
});
