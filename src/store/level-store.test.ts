// The headless peer's Node store (LevelDB): what it reports stored is there after a reopen,
// and after the process was killed (SIGKILL, no goodbye) in the middle of writing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { idWorkOk } from '../core/id-work';
import { identityFromJson } from '../core/identity';
import { idToHex } from '../core/node-id';
import { OLD_NODE_IDENTITY } from '../testing/old-node-identity';
import { LevelStore } from './level-store';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'vp-level-'));
  dirs.push(d);
  return d;
};
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

/** Runs the writer (src/testing/level-store-writer.ts) on `dir`, SIGKILLs it after 300 reported writes; its id and, per region, the highest n reported. */
async function killWriter(dir: string, mode = ''): Promise<{ id: string; reported: Map<number, number>; signal: string | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, '../testing/level-store-writer.ts'), dir, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const reported = new Map<number, number>(); // region rx -> highest n reported stored
  let id = '';
  let count = 0;
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`only ${count} writes reported in 20 s`)), 20_000);
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const line of lines) {
        const [what, v] = line.split(' ');
        if (what === 'id') id = v!;
        if (what !== 'stored') continue;
        const n = Number(v);
        reported.set(n % 8, n);
        // Killed mid-stream: the next write is under way (the writer never pauses).
        if (++count === 300) { clearTimeout(timer); child.kill('SIGKILL'); done(); }
      }
    });
    child.once('exit', (code) => { if (count < 300) { clearTimeout(timer); fail(new Error(`writer exited with ${code} after ${count} writes`)); } });
  });
  await new Promise((r) => child.once('exit', r));
  return { id, reported, signal: child.signalCode };
}

describe('LevelStore (Node)', () => {
  // What every HostStore keeps (per world and owner, replace, remove) is checked in
  // host-store.test.ts; here: the identity, every field across a reopen, one process per dir.
  it('keeps the node identity and every field of a region across reopen; one process per data dir', async () => {
    const dir = tempDir();
    const a = await LevelStore.open(dir);
    const id = idToHex((await a.nodeIdentity()).id);
    expect(idToHex((await a.nodeIdentity()).id)).toBe(id);
    await expect(LevelStore.open(dir)).rejects.toThrow(/another peer is using this data directory/);
    const full = { rx: -1, rz: 2, entries: new Uint8Array([9]), promised: 5, promisedTo: 'ab', cert: new Uint8Array([7, 7, 7]), accepted: [{ e: 6, hosts: [new Uint8Array([1]), new Uint8Array([2])], p: new Uint8Array([3]) }], learnt: { promised: 2, promisedTo: 'cd' } };
    await a.hostStore('alpha', id).save(full);
    await a.close();

    const b = await LevelStore.open(dir);
    expect(idToHex((await b.nodeIdentity()).id)).toBe(id);
    expect(await b.hostStore('alpha', id).loadAll()).toEqual([full]);
    await b.close();
  });

  it('a process killed while writing loses nothing it reported stored', async () => {
    const dir = tempDir();
    const { id, reported, signal } = await killWriter(dir);
    expect(signal).toBe('SIGKILL');

    const store = await LevelStore.open(dir);
    expect(idToHex((await store.nodeIdentity()).id)).toBe(id);
    const regions = await store.hostStore('crash-world', id).loadAll();
    expect(regions.length).toBe(8);
    for (const r of regions) {
      // At least what was reported (a later write may have landed before the kill), and whole.
      expect(r.promised).toBeGreaterThanOrEqual(reported.get(r.rx)!);
      expect(r.promised % 8).toBe(r.rx);
      expect(new DataView(r.entries.buffer, r.entries.byteOffset).getUint32(0)).toBe(r.promised);
      expect(r.entries.length).toBe(64 + (r.promised % 7) * 100);
      expect(r.entries.subarray(4).every((b) => b === r.promised % 256)).toBe(true);
    }
    await store.close();
  });

  it('killed while appending and compacting region logs, it loses no appended entry it reported stored', async () => {
    const dir = tempDir();
    const { id, reported, signal } = await killWriter(dir, 'log');
    expect(signal).toBe('SIGKILL');
    const store = await LevelStore.open(dir);
    const regions = await store.hostStore('crash-world', id).loadAll();
    expect(regions.length).toBe(8);
    let logged = 0;
    for (const r of regions) {
      const held = new Set<number>();
      for (const bytes of [r.entries, ...(r.log ?? [])]) for (let i = 0; i < bytes.length; i += 4) held.add(new DataView(bytes.buffer, bytes.byteOffset).getUint32(i));
      logged += r.log?.length ?? 0;
      for (let n = r.rx || 8; n <= reported.get(r.rx)!; n += 8) expect(held.has(n), `region ${r.rx} lost ${n}`).toBe(true);
      expect(r.promised).toBeGreaterThanOrEqual(reported.get(r.rx)!);
    }
    // Both forms were on disk at the kill: bases and logs appended since.
    expect(logged).toBeGreaterThan(0);
    await store.close();
  });
});

describe('LevelStore node identity', () => {
  it('replaces a kept node key whose id shows too little work (kept before ids cost work), then keeps the new one', async () => {
    const store = await LevelStore.open(tempDir());
    const old = await store.nodeIdentity(0); // any key: 0 bits asks nothing
    const at8 = await store.nodeIdentity(8);
    expect(idWorkOk(at8.id, 8)).toBe(true);
    // 1 in 256 of keys shows 8 bits already: that one is kept.
    expect(idToHex(at8.id) === idToHex(old.id)).toBe(idWorkOk(old.id, 8));
    expect(idToHex((await store.nodeIdentity(8)).id)).toBe(idToHex(at8.id));
    await store.close();
  });

  it('replaces a kept node key of the old kind (its id SHA-256 of the key, showing the work) with one whose id is derived through scrypt', async () => {
    const dir = tempDir();
    const seeded = await LevelStore.open(dir);
    await seeded.keepNodeIdentity(await identityFromJson(OLD_NODE_IDENTITY, 'player'));
    await seeded.close();
    const store = await LevelStore.open(dir);
    const now = await store.nodeIdentity();
    expect(idToHex(now.publicKey)).not.toBe(idToHex((await identityFromJson(OLD_NODE_IDENTITY, 'node')).publicKey));
    expect(idWorkOk(now.id)).toBe(true);
    expect(idToHex((await store.nodeIdentity()).id)).toBe(idToHex(now.id));
    await store.close();
  });
});
