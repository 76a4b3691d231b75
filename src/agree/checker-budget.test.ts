// A decision proof or an owner's request whose signers' keys are new while the derivation
// budget is spent (an attacker spent it with junk keys, core/derivation-budget.ts) is refused
// for now and checked anew once there is budget: neither checker remembers that refusal as a
// bad signature (core/key-ids.ts `derivationMark` / `refusedSince`), or an honest record or
// request would stay refused for as long as its verdict stayed cached.
import { describe, expect, it } from 'vitest';
import { DerivationBudget } from '../core/derivation-budget';
import { idToHex } from '../core/node-id';
import { cachingWebCryptoVerifier, ProvenKeys } from '../core/signer';
import { strangerIdentity } from '../testing/stranger-identity';
import { ProofChecker, ProofSigner, type SignedRecord } from './decision-proof';
import { OwnerRequestChecker, signOwnerRequest, type OwnerAsk } from './owner-request';
import { VoterSet } from './voter-set';

const AREA = { ax: 0, az: 0 };

/** A budget of the test's own, its burst spent as by an attacker's junk keys; it refills when `clock.t` moves on. */
function spentBudget(clock: { t: number }): DerivationBudget {
  const budget = new DerivationBudget({ perSourcePerSec: 1, perSourceBurst: 4, totalPerSec: 1, totalBurst: 4 }, () => clock.t);
  while (budget.take());
  return budget;
}

describe('checks made while the derivation budget is spent', () => {
  it('a decision proof is refused then, and taken once the budget refills (the refusal is not cached)', async () => {
    const clock = { t: 0 };
    const checker = new ProofChecker(cachingWebCryptoVerifier(new ProvenKeys(64, 0, spentBudget(clock))));
    const voters = [await strangerIdentity(), await strangerIdentity(), await strangerIdentity()];
    const set = new VoterSet(5, voters.map((v) => idToHex(v.id)));
    const rec: SignedRecord = { id: '0,0/1', kind: 'gem', x: 1, y: 2, z: 3, at: 0, owner: null, gen: 0 };
    const vote = 'spawn:0,0:1';
    const sigs = [await new ProofSigner(voters[0]!).sign(AREA, 5, vote, 1, rec), await new ProofSigner(voters[1]!).sign(AREA, 5, vote, 1, rec)];
    const proof = { e: 5, vote, round: 1, sigs };
    expect(await checker.check(AREA, rec, proof, set)).toBe('bad-signature');
    clock.t = 10_000;
    expect(await checker.check(AREA, rec, proof, set)).toBeNull();
    expect(checker.stats).toMatchObject({ checked: 2, cached: 0 });
    // Once proven, the verdict is remembered.
    expect(await checker.check(AREA, rec, proof, set)).toBeNull();
    expect(checker.stats.cached).toBe(1);
  });

  it("an owner's request is refused then, and taken once the budget refills (the refusal is not cached)", async () => {
    const clock = { t: 0 };
    const checker = new OwnerRequestChecker(cachingWebCryptoVerifier(new ProvenKeys(64, 0, spentBudget(clock))));
    const owner = await strangerIdentity();
    const ask: OwnerAsk = { kind: 'drop', item: '0,0/1', gen: 1, p: { x: 1, y: 2, z: 3 } };
    const worldNow = 50_000;
    const req = await signOwnerRequest(owner, AREA, ask, 1, worldNow);
    expect(await checker.check(AREA, ask, idToHex(owner.id), req, worldNow)).toBe('bad-signature');
    clock.t = 10_000;
    expect(await checker.check(AREA, ask, idToHex(owner.id), req, worldNow)).toBeNull();
    expect(checker.stats).toMatchObject({ checked: 2, cached: 0 });
  });
});
