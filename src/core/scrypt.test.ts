import { scryptSync as nodeScrypt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { scryptSync } from './scrypt';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('scrypt', () => {
  it("matches RFC 7914's first test vector", () => {
    // RFC 7914 section 12, the first vector: empty password and salt, N=16, r=1, p=1, 64 bytes.
    expect(hex(scryptSync(new Uint8Array(0), new Uint8Array(0), { N: 16, r: 1, dkLen: 64 }))).toBe(
      '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906');
  });

  it("agrees with node:crypto's scrypt over keys, salts and the node id's parameters", () => {
    for (let i = 0; i < 6; i++) {
      const pw = new Uint8Array(i % 2 ? 32 : 65).map((_, k) => (k * 31 + i * 7) & 255);
      const salt = new TextEncoder().encode(`vp-node-id-v2 ${i}`);
      for (const [N, r] of [[256, 8], [128, 8], [64, 2], [2, 1]] as const) {
        expect(hex(scryptSync(pw, salt, { N, r, dkLen: 32 }))).toBe(hex(nodeScrypt(pw, salt, 32, { N, r, p: 1 })));
      }
    }
  });
});
