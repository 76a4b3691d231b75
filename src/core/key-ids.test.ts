// The cost of a key someone sent: one scrypt per key not met before (key-ids.ts), bounded
// per source and in all (derivation-budget.ts), and none for a claimed id showing no work.
import { describe, expect, it } from 'vitest';
import { ID_WORK_BITS, idWorkOk } from './id-work';
import { DerivationBudget, DERIVATION_BUDGET_DEFAULTS } from './derivation-budget';
import { DerivationQueue } from './derivation-queue';
import { deriveNodeId, nodeIdDerivations, queuedNodeIdOfKey } from './key-ids';
import { ProvenKeys } from './signer';
import { testNodeIdentity } from '../testing/node-identities';
import { strangerIdentity } from '../testing/stranger-identity';

/** 32 bytes no one holds the private key of, `i` apart. */
const junkKey = (i: number) => {
  const k = new Uint8Array(32).fill(7);
  k[0] = i & 255; k[1] = (i >>> 8) & 255; k[2] = 0x5a;
  return k;
};

describe('keys someone sent, matched to node ids', () => {
  it('a claimed id showing no work costs no scrypt', async () => {
    const keys = new ProvenKeys(64, ID_WORK_BITS, new DerivationBudget());
    const unworked = Array.from({ length: 200 }, (_, i) => new Uint8Array(20).fill(i)).filter((id) => !idWorkOk(id, ID_WORK_BITS));
    const before = nodeIdDerivations.keys;
    for (const [i, id] of unworked.entries()) expect(await keys.keyFor('node', id, 'Ed25519', junkKey(20_000 + i), 'link:lazy')).toBeNull();
    expect(nodeIdDerivations.keys - before).toBe(0);
  });

  it("one worked id paired with endless junk keys costs a source its budget's scrypts, not one each; another source's new key is still proven", async () => {
    const worked = await testNodeIdentity();
    // A budget of the test's own (the realm's is shared by the files of a test process).
    const budget = new DerivationBudget();
    const keys = new ProvenKeys(64, ID_WORK_BITS, budget);
    const { perSourceBurst, perSourcePerSec, totalBurst, totalPerSec } = DERIVATION_BUDGET_DEFAULTS;
    let before = nodeIdDerivations.keys;
    const t0 = performance.now();
    for (let i = 0; i < 400; i++) expect(await keys.keyFor('node', worked.id, worked.alg, junkKey(i), 'link:evil')).toBeNull();
    const secs = (performance.now() - t0) / 1000;
    expect(nodeIdDerivations.keys - before, `400 junk keys in ${secs.toFixed(2)} s`).toBeLessThanOrEqual(perSourceBurst + Math.ceil(secs * perSourcePerSec));
    expect(budget.refused).toBeGreaterThan(0);
    // An honest peer's key, never met, over another link: derived and proven.
    const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
    expect(await new ProvenKeys(64, 0, budget).keyFor('node', deriveNodeId(raw), 'Ed25519', raw, 'link:honest')).not.toBeNull();
    // Many sources at once: the total's burst bounds them all.
    before = nodeIdDerivations.keys;
    const t1 = performance.now();
    for (let s = 0; s < 8; s++) for (let i = 0; i < 100; i++) await keys.keyFor('node', worked.id, worked.alg, junkKey(1000 + s * 100 + i), `link:evil${s}`);
    const secs1 = (performance.now() - t1) / 1000;
    expect(nodeIdDerivations.keys - before, `800 junk keys from 8 links in ${secs1.toFixed(2)} s`).toBeLessThanOrEqual(totalBurst + Math.ceil((secs + secs1) * totalPerSec));
  });

  it('a key met in a handshake is remembered only when it stands for the id it came with: junk keys push no honest key out of memory', async () => {
    const line = new DerivationQueue({ perSec: 1, burst: 8, maxWaiting: 8 });
    const honest = await strangerIdentity();
    const before = nodeIdDerivations.keys;
    for (let i = 0; i < 2; i++) expect(await queuedNodeIdOfKey(junkKey(50_000), honest.id, line)).not.toEqual(honest.id);
    for (let i = 0; i < 2; i++) expect(await queuedNodeIdOfKey(honest.publicKey, honest.id, line)).toEqual(honest.id);
    expect(nodeIdDerivations.keys - before, 'the junk key derived each time, the honest one once').toBe(3);
  });
});
