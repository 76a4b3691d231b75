import { afterEach, describe, expect, it, vi } from 'vitest';
import { idWorkOk } from '../core/id-work';
import { generateNodeIdentity } from '../core/identity';
import { mintNodeIdentity, mintWorkerCount, warmNodeIdMinter } from './node-id-minter';

/** A stand-in Web Worker: answers a mint with `reply` after `ms`, and records what was asked of it. */
class FakeWorker {
  static made: FakeWorker[] = [];
  static reply: (w: FakeWorker) => Promise<unknown> = () => new Promise(() => undefined);
  onmessage: ((e: { data: unknown }) => void) | null = null;
  onerror: ((e: { message: string }) => void) | null = null;
  asked = 0;
  terminated = false;
  constructor() {
    FakeWorker.made.push(this);
  }
  postMessage(): void {
    this.asked++;
    void FakeWorker.reply(this).then((data) => { if (!this.terminated) this.onmessage?.({ data }); });
  }
  terminate(): void {
    this.terminated = true;
  }
}

afterEach(() => {
  vi.unstubAllGlobals();
  FakeWorker.made = [];
});

describe('node id minter', () => {
  it('without a Worker (Node) mints on this thread, counting the keypairs drawn', async () => {
    const counts = { tries: 0 };
    const id = await mintNodeIdentity(6, counts);
    expect(idWorkOk(id.id, 6)).toBe(true);
    expect(counts.tries).toBeGreaterThanOrEqual(1);
    expect((await id.toJson()).v).toBe(1);
  });

  it('draws with half the cores, one at least and four at most', () => {
    expect([1, 2, 3, 4, 8, 16].map((c) => mintWorkerCount(c))).toEqual([1, 1, 1, 2, 4, 4]);
  });

  it('starts its workers before it is asked; ended unasked when the store held a key; asked, the first answer wins and every worker is ended', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const returning = warmNodeIdMinter(2);
    expect(FakeWorker.made.length).toBe(2);
    returning.dispose();
    expect(FakeWorker.made.map((w) => [w.asked, w.terminated])).toEqual([[0, true], [0, true]]);

    const json = await (await generateNodeIdentity({ bits: 4 })).toJson();
    FakeWorker.made = [];
    FakeWorker.reply = (w) => (w === FakeWorker.made[1] ? Promise.resolve({ json, tries: 9 }) : new Promise(() => undefined));
    const fresh = warmNodeIdMinter(3);
    const counts = { tries: 0 };
    const id = await fresh.mint(4, counts);
    expect(idWorkOk(id.id, 4)).toBe(true);
    expect(counts.tries).toBe(9);
    expect(FakeWorker.made.map((w) => [w.asked, w.terminated])).toEqual([[1, true], [1, true], [1, true]]);
  });

  it('mints on this thread when every worker fails', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    FakeWorker.reply = () => Promise.resolve({ error: 'no WebCrypto here' });
    const id = await warmNodeIdMinter(2).mint(3);
    expect(idWorkOk(id.id, 3)).toBe(true);
  });
});
