import { describe, expect, it } from 'vitest';
import { generateIdentity } from './identity';
import { cachingWebCryptoVerifier, ProvenKeys } from './signer';

describe('cachingWebCryptoVerifier', () => {
  it('takes a signature only by the key that hashes to the id it speaks for, the same with its key remembered; refuses what is altered, foreign or malformed', async () => {
    const [a, b] = [await generateIdentity(), await generateIdentity()];
    const verify = cachingWebCryptoVerifier(new ProvenKeys(1)); // one key kept: every other key imported afresh
    const data = new TextEncoder().encode('grant e7');
    const sig = await a.sign(data);
    for (let round = 0; round < 2; round++) {
      expect(await verify(a.id, a.alg, a.publicKey, data, sig)).toBe(true);
      expect(await verify(b.id, a.alg, a.publicKey, data, sig), 'a key speaking for another id').toBe(false);
      expect(await verify(a.id, a.alg, a.publicKey, new TextEncoder().encode('grant e8'), sig)).toBe(false);
      expect(await verify(b.id, b.alg, b.publicKey, data, sig), "another key's signature").toBe(false);
      expect(await verify(a.id, a.alg, new Uint8Array(7), data, sig), 'a malformed key').toBe(false);
      expect(await verify(a.id, a.alg, a.publicKey, data, new Uint8Array(3)), 'a malformed signature').toBe(false);
    }
  });
});
