import { describe, expect, it } from 'vitest';
import { generateIdentity, generateNodeIdentity } from './identity';
import { cachingWebCryptoVerifier, ProvenKeys } from './signer';

describe('cachingWebCryptoVerifier', () => {
  it('takes a signature only by the key that stands for the id it speaks for, the same with its key remembered; refuses what is altered, foreign or malformed', async () => {
    const [a, b] = [await generateIdentity(), await generateIdentity()];
    const verify = cachingWebCryptoVerifier(new ProvenKeys(1)); // one key kept: every other key imported afresh
    const data = new TextEncoder().encode('grant e7');
    const sig = await a.sign(data);
    for (let round = 0; round < 2; round++) {
      expect(await verify('player', a.id, a.alg, a.publicKey, data, sig)).toBe(true);
      expect(await verify('player', b.id, a.alg, a.publicKey, data, sig), 'a key speaking for another id').toBe(false);
      expect(await verify('player', a.id, a.alg, a.publicKey, new TextEncoder().encode('grant e8'), sig)).toBe(false);
      expect(await verify('player', b.id, b.alg, b.publicKey, data, sig), "another key's signature").toBe(false);
      expect(await verify('player', a.id, a.alg, new Uint8Array(7), data, sig), 'a malformed key').toBe(false);
      expect(await verify('player', a.id, a.alg, a.publicKey, data, new Uint8Array(3)), 'a malformed signature').toBe(false);
    }
  });

  it("checks a key as the kind it is asked: a node's id is the scrypt of its key, a player's the SHA-256", async () => {
    const node = await generateNodeIdentity({ bits: 0 });
    const player = await generateIdentity();
    const verify = cachingWebCryptoVerifier();
    const data = new TextEncoder().encode('grant e7');
    const [ns, ps] = [await node.sign(data), await player.sign(data)];
    expect(await verify('node', node.id, node.alg, node.publicKey, data, ns)).toBe(true);
    expect(await verify('player', player.id, player.alg, player.publicKey, data, ps)).toBe(true);
    // The same key and signature, checked as the other kind: its id is not that kind's.
    expect(await verify('player', node.id, node.alg, node.publicKey, data, ns), 'a node key as a player').toBe(false);
    expect(await verify('node', player.id, player.alg, player.publicKey, data, ps), 'a player key as a node').toBe(false);
  });
});
