import { describe, expect, it } from 'vitest';
import { ID_WORK_BITS, idWorkBits, idWorkOk, idWorkRemembered, PASSED_KEPT } from './id-work';
import { generateIdentity, generateNodeIdentity, hasEd25519, type IdentityAlg } from './identity';
import { deriveNodeId } from './key-ids';
import { idEquals, randomId } from './node-id';
import { seededRandom } from './seeded-random';
import { testNodeIdentity } from '../testing/node-identities';

describe('node ids that cost work', () => {
  it('a minted node identity passes, with an id that is still derived from its key', async () => {
    const algs: IdentityAlg[] = (await hasEd25519()) ? ['Ed25519', 'ECDSA-P256'] : ['ECDSA-P256'];
    for (const alg of algs) {
      const counts = { tries: 0 };
      const id = await generateNodeIdentity({ alg, bits: 6, counts });
      expect(idWorkBits(id.id)).toBeGreaterThanOrEqual(6);
      expect(idWorkOk(id.id, 6)).toBe(true);
      expect(idEquals(deriveNodeId(id.publicKey), id.id)).toBe(true);
      expect(counts.tries).toBeGreaterThanOrEqual(1);
      // It signs like any identity, and can be stored.
      expect((await id.toJson()).alg).toBe(alg);
    }
    // At the real difficulty (minted ahead: ~1 s each), as tests and tabs use them.
    expect(idWorkOk((await testNodeIdentity()).id)).toBe(true);
    expect(idWorkOk((await testNodeIdentity('ECDSA-P256')).id)).toBe(true);
  });

  it('a drawn id passes with probability 2^-bits', () => {
    const rand = seededRandom(7);
    const n = 40_000;
    for (const bits of [1, 4, 8]) {
      let pass = 0;
      for (let i = 0; i < n; i++) if (idWorkOk(randomId(rand), bits)) pass++;
      const p = 2 ** -bits;
      // Within 4.5 standard deviations of the binomial.
      expect(Math.abs(pass - n * p)).toBeLessThan(4.5 * Math.sqrt(n * p * (1 - p)));
    }
  });

  it('a plain identity (a player key, a key from before) mostly fails at ID_WORK_BITS', async () => {
    expect(ID_WORK_BITS).toBeGreaterThanOrEqual(8);
    let pass = 0;
    for (let i = 0; i < 16; i++) if (idWorkOk((await generateIdentity()).id)) pass++;
    // 16 draws at 2^-ID_WORK_BITS each: at 9 bits one pass is a 1-in-33 event, two 1 in
    // 2,200 (too often for a test run many times a day), three 1 in 240,000.
    expect(pass).toBeLessThanOrEqual(2);
  });

  it('0 bits asks nothing; junk never throws and never passes', () => {
    expect(idWorkOk(new Uint8Array(20).fill(255), 0)).toBe(true);
    expect(idWorkOk(new Uint8Array(19), 1)).toBe(false);
    expect(idWorkOk(undefined as unknown as Uint8Array, 1)).toBe(false);
    expect(idWorkOk('ab' as unknown as Uint8Array, 1)).toBe(false);
  });

  it('remembers at most PASSED_KEPT passing ids, and still judges the ones it let go', () => {
    const rand = seededRandom(3);
    const passed: Uint8Array[] = [];
    while (passed.length < PASSED_KEPT + 500) {
      const id = randomId(rand);
      if (idWorkOk(id, 1)) passed.push(id);
    }
    expect(idWorkRemembered()).toBeLessThanOrEqual(PASSED_KEPT);
    expect(idWorkOk(passed[0]!, 1)).toBe(true);
    expect(idWorkOk(passed[0]!, 32)).toBe(idWorkBits(passed[0]!) >= 32);
  });
});
