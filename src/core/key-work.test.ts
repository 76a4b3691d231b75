import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkWork, searchWork, workBits, workSeed } from './key-work';

const key = new Uint8Array(32).map((_, i) => i + 1);

describe('key work', () => {
  it('is SHA-256(seed || nonce) with seed = SHA-256(context || key)', () => {
    const seed = createHash('sha256').update(Buffer.concat([Buffer.from('voxel-populi/player-key-work/v1\0'), key])).digest();
    expect(Buffer.from(new Uint8Array(workSeed(key).buffer)).equals(Buffer.from(seed.swap32()))).toBe(true);
    seed.swap32();
    for (const nonce of [0, 1, 0x12345678, 0xffffffff]) {
      const n = Buffer.alloc(4);
      n.writeUInt32BE(nonce);
      const d = createHash('sha256').update(Buffer.concat([seed, n])).digest();
      expect(workBits(workSeed(key), nonce)).toBe(Math.clz32(d.readUInt32BE(0)));
    }
  });

  it('finds a nonce that checks, and one bit more does not come free', () => {
    const seed = workSeed(key);
    const n = searchWork(seed, 12, 0, 1 << 20)!;
    expect(n).toBeDefined();
    expect(checkWork(key, n, 12)).toBe(true);
    const bits = workBits(seed, n);
    expect(checkWork(key, n, bits + 1)).toBe(false);
    // Another key does not inherit the work.
    const other = key.slice();
    other[0] = other[0]! ^ 1;
    expect(checkWork(other, n, 12)).toBe(workBits(workSeed(other), n) >= 12);
  });

  it('refuses nonces that are not u32', () => {
    for (const n of [-1, 2 ** 32, 1.5, Number.NaN]) expect(checkWork(key, n, 0)).toBe(false);
  });

  it('costs about 2^bits tries (mean over 64 keys at 8 bits within 2x)', () => {
    let tries = 0;
    for (let k = 0; k < 64; k++) {
      const seed = workSeed(new Uint8Array(32).fill(k));
      tries += searchWork(seed, 8, 0, 1 << 20)! + 1;
    }
    expect(tries / 64).toBeGreaterThan(128);
    expect(tries / 64).toBeLessThan(512);
  });
});
