import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256 } from './node-id';
import { sha256Sync } from './sha256-sync';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('sha256Sync', () => {
  it('matches the FIPS 180-4 examples', () => {
    expect(hex(sha256Sync(new TextEncoder().encode('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hex(sha256Sync(new Uint8Array(0)))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('matches node:crypto on any input, every padding case included (seeded)', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
      expect(hex(sha256Sync(data))).toBe(createHash('sha256').update(data).digest('hex'));
    }), { seed: 13, numRuns: 400 });
  });

  it('matches WebCrypto', async () => {
    const data = new Uint8Array(119).map((_, i) => (i * 37) & 255);
    expect(hex(sha256Sync(data))).toBe(hex(await sha256(data)));
  });
});
