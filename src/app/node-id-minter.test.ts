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
  FakeWorker.reply = () => new Promise(() => undefined);
});

describe('node id minter', () => {
  it('without a Worker (Node) mints on this thread, counting the keypairs drawn', async () => {
    const counts = { tries: 0 };
    const id = await mintNodeIdentity(6, counts);
    expect(idWorkOk(id.id, 6)).toBe(true);
    expect(counts.tries).toBeGreaterThanOrEqual(1);
    expect((await id.toJson()).v).toBe(1);
  });

  it('draws with every core, four at most', () => {
    expect([1, 2, 3, 4, 8, 16].map((c) => mintWorkerCount(c))).toEqual([1, 2, 3, 4, 4, 4]);
  });

  it('draws from the moment it is warmed, before it is asked; ended when the store held a key; asked, the first answer wins and every worker is ended', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const returning = warmNodeIdMinter(2, 4);
    expect(FakeWorker.made.map((w) => [w.asked, w.terminated])).toEqual([[1, false], [1, false]]);
    returning.dispose();
    expect(FakeWorker.made.map((w) => [w.asked, w.terminated])).toEqual([[1, true], [1, true]]);

    const json = await (await generateNodeIdentity({ bits: 4 })).toJson();
    FakeWorker.made = [];
    FakeWorker.reply = (w) => (w === FakeWorker.made[1] ? Promise.resolve({ json, tries: 9 }) : new Promise(() => undefined));
    const fresh = warmNodeIdMinter(3, 4);
    // The answer may come before the store says a key is wanted: it is kept for the ask.
    await vi.waitFor(() => expect(FakeWorker.made.every((w) => w.terminated)).toBe(true));
    const counts = { tries: 0 };
    const id = await fresh.mint(4, counts);
    expect(idWorkOk(id.id, 4)).toBe(true);
    expect(counts.tries).toBe(9);
    expect(FakeWorker.made.map((w) => [w.asked, w.terminated])).toEqual([[1, true], [1, true], [1, true]]);
  });

  it('counts the keypairs every worker drew, the finder\'s and what the others last said', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const json = await (await generateNodeIdentity({ bits: 4 })).toJson();
    const minter = warmNodeIdMinter(3, 4, false);
    const [a, b] = FakeWorker.made;
    FakeWorker.reply = (w) => (w === b ? new Promise((r) => setTimeout(() => r({ json, tries: 9 }), 20)) : new Promise(() => undefined));
    const counts = { tries: 0 };
    const minted = minter.mint(4, counts);
    a!.onmessage?.({ data: { drawn: 8 } });
    a!.onmessage?.({ data: { drawn: 16 } });
    b!.onmessage?.({ data: { drawn: 8 } });
    expect(idWorkOk((await minted).id, 4)).toBe(true);
    expect(counts.tries).toBe(16 + 9);
  });

  it('told not to draw now (a profile that stored a key), its workers wait for the ask', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const json = await (await generateNodeIdentity({ bits: 4 })).toJson();
    FakeWorker.reply = () => Promise.resolve({ json, tries: 3 });
    const minter = warmNodeIdMinter(2, 9, false);
    expect(FakeWorker.made.map((w) => w.asked)).toEqual([0, 0]);
    const id = await minter.mint(4);
    expect(idWorkOk(id.id, 4)).toBe(true);
    expect(FakeWorker.made.map((w) => [w.asked, w.terminated])).toEqual([[1, true], [1, true]]);
  });

  it('asked for other bits than it draws: its workers are ended and the id minted on this thread', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const minter = warmNodeIdMinter(2, 9);
    const id = await minter.mint(3);
    expect(idWorkOk(id.id, 3)).toBe(true);
    expect(FakeWorker.made.map((w) => [w.asked, w.terminated])).toEqual([[1, true], [1, true]]);
  });

  it('mints on this thread when every worker fails', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    FakeWorker.reply = () => Promise.resolve({ error: 'no WebCrypto here' });
    const id = await warmNodeIdMinter(2, 3).mint(3);
    expect(idWorkOk(id.id, 3)).toBe(true);
  });
});
