// A Sybil attacker (sybil-scenario.ts): one live rogue node with a random id, not among the
// 4 nodes closest to the region key (each test asserts it), plus 1-7 keypairs of its own
// that are no live nodes. Every certificate it mints is well formed and validly signed, but
// granted by its own keys only; none may change what honest peers believe. Each test asserts:
//
// - freeze (CLAIM with a `known` certificate at MAX_EPOCH; HANDOFF with one): no honest peer
//   adopts it, an honest edit is confirmed within 30 s virtual and 3 more after it, an
//   honest primary at the end.
// - poisoned DHT records (location record and edit log under such a certificate), the region
//   visited before (a fresh play-only subscriber reads them) or never (an honest player is
//   its first): no honest peer adopts it, no planted block shown or stored, the reader's
//   edit confirmed within 30 s and 3 more, an honest primary at the end.
// - depose (one SYNC to the live primary naming {rogue, its key, that primary}): the primary
//   stays primary, adopts nothing, stores and shows no planted block, edits confirm.
// - OFFER with a self-minted certificate: no planted block stored or shown, no AIR at y = 0;
//   and AIR at y = 0 offered by a genuine backup with the real certificate is refused too.
// - certificates the rogue did not mint, in a SYNC to every honest peer and in a SNAPSHOT to
//   a fresh subscriber whose first lookup the rogue answers alone: the region's own
//   (replayed) and a real one of another region where the rogue is primary. Nothing planted
//   is shown or stored, the region keeps an honest primary; the SNAPSHOT tests check that
//   the subscriber did ask the rogue and refused its certificate (else they prove nothing).
//
// The control runs the same attacks with every grant's signature broken, which any verifier
// refuses: the secure outcome must hold there already (else the harness is at fault).
import { describe, expect, it } from 'vitest';
import { breaches, runAdversary, type AdversaryOptions } from '../testing/adversary';
import { NEAR_RANKS, RECOVER_MS, runFarViewScenario, runFreezeScenario, runGrantScenario, runOfferScenario, runRecordScenario, runSnapshotScenario, runSyncScenario, type SybilOptions, type SybilResult } from '../testing/sybil-scenario';

/** Subscribe to first confirmed edit in a region whose records the attacker wrote first (virtual ms): a first claim's, not rebaseMs. */
const FIRST_EDIT_MS = 5_000;

function expectAvailable(r: SybilResult): void {
  expect(r.recoverMs, 'an honest edit confirmed after the attack').toBeGreaterThanOrEqual(0);
  expect(r.recoverMs).toBeLessThan(RECOVER_MS);
  expect(r.confirmedAfter, 'honest edits confirmed after the first').toBe(3);
  expect(r.primaryAtEnd, 'an honest primary at the end').toBe(true);
  expect(r.doublePrimaries).toBe(0);
}

function expectNothingPlanted(r: SybilResult): void {
  expect(r.adopted, 'honest peers holding a certificate that names the rogue primary').toBe(0);
  expect(r.plantedShown, 'planted blocks shown by honest subscribers').toBe(0);
  expect(r.plantedStored, 'planted blocks stored by honest hosts').toBe(0);
}

describe('a Sybil attacker with self-minted certificates (simulated)', () => {
  for (const seed of [1, 2]) {
    for (const via of ['CLAIM', 'HANDOFF'] as const) {
      it(`cannot freeze a region through a ${via} carrying a certificate at MAX_EPOCH (seed ${seed})`, async () => {
        const r = await runFreezeScenario(seed, via);
        expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
        expectNothingPlanted(r);
        expect(r.deposed).toBe(false);
        expectAvailable(r);
      });
    }

    it(`cannot send newcomers of a visited region to itself through the DHT records (seed ${seed})`, async () => {
      const r = await runRecordScenario(seed, true);
      expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
      expectNothingPlanted(r);
      expect(r.deposed).toBe(false);
      expectAvailable(r);
    });

    it(`cannot take a region nobody visited yet by poisoning its DHT records in advance (seed ${seed})`, async () => {
      const r = await runRecordScenario(seed, false);
      expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
      expectNothingPlanted(r);
      expectAvailable(r);
    });

    // A far player draws a region it does not subscribe to from the DHT edit log: only
    // under a certificate it anchors itself. Before, any log whose certificate was validly
    // signed was drawn (32 planted blocks shown), and a forged one, a higher version, hid the
    // region's real log.
    for (const visited of [false, true]) {
      it(`cannot show a far player planted blocks through the DHT edit log (${visited ? 'visited' : 'unvisited'} region, seed ${seed})`, async () => {
        const r = await runFarViewScenario(seed, visited);
        expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
        expect(r.plantedShown).toBe(0);
        expect(r.honestShown).toBe(r.honest);
      });
    }

    // The same at the lowest epoch (1), where the chain is learnt (below LEARN_EPOCH_CAP):
    // its keys are far from the key, so once they stay silent the first honest claimant
    // rebases over them (cert-anchor.ts farSet). Before: no primary, for good. And the
    // rebased region starts empty: a log signed under the far set is not read (before, the
    // claimant read it from the DHT: 32 planted blocks shown, 96 stored).
    it(`cannot keep a region nobody visited without a primary, nor plant blocks in it, by a forged chain at epoch 1 (seed ${seed})`, async () => {
      const r = await runRecordScenario(seed, false, { epoch: 'next', keys: 2 });
      expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
      // (Hosts do hold the forged epoch 1 for a while: learnt, below the cap, anchoring nothing.)
      expect(r.plantedShown, 'planted blocks shown by honest subscribers').toBe(0);
      expect(r.plantedStored, 'planted blocks stored by honest hosts').toBe(0);
      expectAvailable(r);
    });

    // The edit log alone, no location record: the first claimant learns no chain, claims the
    // region's first epoch with an empty state and reads the DHT's edit log, but only parts
    // signed under a certificate of its own chain (region-claimant.ts fallbackToDht `inChain`);
    // the log's certificate, at the same epoch over the attacker's keys, is not.
    it(`cannot plant blocks in a region nobody visited through its DHT edit log alone (seed ${seed})`, async () => {
      const r = await runRecordScenario(seed, false, { epoch: 'next', keys: 2, editLogOnly: true });
      expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
      expect(r.plantedShown, 'planted blocks shown by honest subscribers').toBe(0);
      expect(r.plantedStored, 'planted blocks stored by honest hosts').toBe(0);
      expectAvailable(r);
    });

    // The same with the chain's keys drawn nearer the key than its third nearest node (3 of
    // the 4 hosts the chain names, the rogue the fourth), paying no id work: an id without
    // the work counts as far wherever it lies (cert-anchor.ts workedId), so the first
    // claimant still rebases over them. Counted by distance alone the set is near, nobody
    // outside it may rebase, and the region has no primary for good.
    it(`cannot keep a region nobody visited without a primary by a forged chain over keys drawn near its key without id work (seed ${seed})`, async () => {
      const r = await runRecordScenario(seed, false, { epoch: 'next', keys: 4, drawnNear: true });
      expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
      expect(r.plantedShown + r.plantedStored, 'planted blocks shown or stored').toBe(0);
      expectAvailable(r);
    });

    // Two live far nodes of the attacker's sign that chain and answer the first claimant's
    // claim over it with valid GRANTs whose state is their blocks: the sets of a learnt chain
    // far from the key vouch for no entry (docs/TRUST.md rule 8). Before: 32 planted blocks
    // shown and 96 stored, agreed by a majority of the previous set.
    it(`cannot plant blocks in a region nobody visited through the GRANTs of two far nodes that signed its chain (seed ${seed})`, async () => {
      const r = await runRecordScenario(seed, false, { epoch: 'next', keys: 2, farGranters: true });
      expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
      expect(r.plantedShown, 'planted blocks shown by honest subscribers').toBe(0);
      expect(r.plantedStored, 'planted blocks stored by honest hosts').toBe(0);
      expectAvailable(r);
    });

    it(`cannot depose a live primary with one SYNC (seed ${seed})`, async () => {
      const r = await runSyncScenario(seed);
      expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
      expect(r.deposed, 'the primary stepped down').toBe(false);
      expectNothingPlanted(r);
      expectAvailable(r);
    });

    it(`cannot write blocks through OFFER with a self-minted certificate (seed ${seed})`, async () => {
      const r = await runOfferScenario(seed);
      expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
      expectNothingPlanted(r);
      expect(r.floorAir, 'AIR at y = 0 from the rogue').toBe(0);
      expectAvailable(r);
    });

    it(`keeps the world floor against an OFFER from a genuine host (seed ${seed})`, async () => {
      const r = await runOfferScenario(seed);
      expect(r.hostFloorAir, 'AIR at y = 0 from a backup of the set').toBe(0);
    });

    for (const cert of ['replayed', 'other-region'] as const) {
      const what = cert === 'replayed' ? "the region's own certificate replayed" : 'a real certificate of another region';
      it(`cannot plant blocks through a SYNC with ${what} (seed ${seed})`, async () => {
        const r = await runSyncScenario(seed, { cert });
        expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
        expect(r.deposed, 'the primary stepped down').toBe(false);
        expectNothingPlanted(r);
        expectAvailable(r);
      });

      it(`cannot show a fresh subscriber blocks through a SNAPSHOT with ${what} (seed ${seed})`, async () => {
        const r = await runSnapshotScenario(seed, { cert });
        expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
        expect(r.snapshotsRefused, "the subscriber asked the rogue and refused its snapshot's certificate").toBeGreaterThanOrEqual(1);
        expectNothingPlanted(r);
        expectAvailable(r);
      });
    }
  }
});

// Two of the attacker's 3 keys live nodes among the 8 nearest the key, just past its hosts:
// their grants anchor near the key (rule 2), but a primary whose lease holds, and a backup
// that hears it, take a later certificate only if a majority of their own hosts granted it
// (hosted-region.ts `acceptable`). Before: one SYNC deposed the primary and planted 32
// blocks; a CLAIM or HANDOFF at the next epoch left the region with no primary.
describe('a Sybil attacker with two live ids near the key, against a live region (simulated)', () => {
  const near: SybilOptions = { keys: 3, near: 2, epoch: 'next' };
  it('cannot depose the live primary with one SYNC (seed 1)', async () => {
    const r = await runSyncScenario(1, near);
    expect(r.deposed, 'the primary stepped down').toBe(false);
    expectNothingPlanted(r);
    expectAvailable(r);
  });
  // Before: the primary took the OFFER, its certificate anchored by the two near grants
  // (rule 2), and stored 32 planted blocks, as did both backups.
  for (const seed of [1, 2]) {
    it(`cannot write blocks through OFFER under a certificate its near ids granted (seed ${seed})`, async () => {
      const r = await runOfferScenario(seed, near);
      expectNothingPlanted(r);
      expect(r.floorAir, 'AIR at y = 0 from the rogue').toBe(0);
      expectAvailable(r);
    });
  }
  for (const via of ['CLAIM', 'HANDOFF'] as const) {
    it(`cannot freeze the live region with a ${via} at the next epoch (seed 1)`, async () => {
      const r = await runFreezeScenario(1, via, near);
      expect(r.deposed).toBe(false);
      expect(r.adopted, 'honest peers holding the certificate that names the rogue').toBe(0);
      expectAvailable(r);
    });
  }
});

// sybil_1k's band (docs/TRUST.md "At 1,000 peers"): the attacker's two live ids 4th and 5th
// nearest the key, none of the 3 nearest hostile; the primary dies and a fresh subscriber
// joins in the failover. Its own lookup finds the ids 3rd and 4th of the live nodes, among its
// FRESH_RANK nearest, and the rogue answers its SUBSCRIBE under {near ids, rogue}. Before,
// it took that certificate and showed the rogue's block; a set that leaves out 2 of its 3
// nearest live nodes is now refused (cert-checker.ts `nearestNamed`).
describe('a Sybil attacker with two live ids just past the hosts, at a failover (simulated)', () => {
  // (Seed 1's kit cannot link the near id to the fresh subscriber within 5 s of the kill, before as now.)
  it('cannot show a fresh subscriber whose nearest live node died a SNAPSHOT of its own (seed 2)', async () => {
    const o: AdversaryOptions = { seed: 2, keys: 3, near: 2, packed: true, kill: true, only: (x) => x.role === 'fresh' && x.frame.t === 'SNAPSHOT' && x.chain === 'minted' };
    const r = await runAdversary(o);
    const own = r.rows.find((x) => x.name === 'SNAPSHOT answering SUBSCRIBE -> fresh, minted')!;
    expect(own.delivered, 'the fresh subscriber asked the rogue').toBe(true);
    expect(own.counted, 'and refused its certificate').toBeGreaterThan(0);
    expect(breaches(r)).toEqual([]);
    expect(r.freshAttachedHonest, 'the fresh subscriber attached to the honest primary').toBe(true);
  });
});

// The same two near ids (ranks 3 and 4, just past the honest hosts) and the rogue write the
// records of a region nobody visited first, at epoch 1: their grants are a majority of the
// set it names and lie among the 8 nodes nearest the key, so the first claimant holds it
// anchored (rule 2) and its claims need their grants, which never come. The 3 nearest nodes
// are honest: the claimant rebases over the silent set from outside it, which is not the
// region's nearest nodes (cert-anchor.ts REBASE_RANK), and reads no log signed under it.
// Before (a stranger rebase only over a set beyond the 8 nearest): no primary for good.
describe('a Sybil attacker with two live ids near the key, against a region nobody visited (simulated)', () => {
  for (const seed of [1, 2]) {
    it(`cannot keep it without a primary, nor plant blocks in it, by writing its records first (seed ${seed})`, async () => {
      const r = await runRecordScenario(seed, false, { keys: 3, near: 2, epoch: 'next' });
      expect(r.plantedShown, 'planted blocks shown by honest subscribers').toBe(0);
      expect(r.plantedStored, 'planted blocks stored by honest hosts').toBe(0);
      expectAvailable(r);
    });
    // The chain's primary, the rogue, is live and refuses every claim as a live primary does
    // ('alive primary'); its near ids say nothing. A primary's answer stands for its set only
    // beside answers of a majority of it (claim-round.ts `alive`): before, it alone was read
    // as a live set, the claimant never rebased and the region had no primary (no edit
    // confirmed within RECOVER_MS).
    it(`cannot keep it without a primary with the chain's primary refusing every claim (seed ${seed})`, async () => {
      const r = await runRecordScenario(seed, false, { keys: 3, near: 2, epoch: 'next', refusers: 1 });
      console.log(`seed ${seed}: subscribe to the first edit confirmed ${r.firstEditMs} ms, claims the rogue refused ${r.claimsRefused}`);
      expect(r.claimsRefused, 'claims the rogue refused').toBeGreaterThan(0);
      expect(r.plantedShown + r.plantedStored, 'planted blocks shown or stored').toBe(0);
      expectAvailable(r);
    });
  }
  // The bound (docs/TRUST.md (b)): with one of its near ids refusing beside it, a majority of
  // the chain's set answers, as a live honest set filled from links does, and the rebase
  // waits on: two live worked ids among the claimant's 8 nearest, not its 3, hold a region
  // they signed first. Should this start to pass, docs/TRUST.md says too much.
  it('is held without a primary while the chain\'s primary and one of its near ids refuse every claim (seed 1)', async () => {
    const r = await runRecordScenario(1, false, { keys: 3, near: 2, epoch: 'next', refusers: 2 });
    console.log(`bound: subscribe to the first edit confirmed ${r.firstEditMs} ms, claims refused ${r.claimsRefused}`);
    expect(r.claimsRefused, 'claims the rogue and its near id refused').toBeGreaterThan(0);
    expect(r.plantedShown + r.plantedStored, 'planted blocks shown or stored').toBe(0);
    expect(r.recoverMs, 'no honest edit confirmed within RECOVER_MS').toBe(-1);
  });
});

// A chain signed before a region has any (docs/TRUST.md (b)): the attacker writes the records
// of a region nobody visited first. Over keys that are no nodes (far from the key), the first
// claimant used to learn the chain (rule 3), build its claim on it, wait `rebaseMs` for the
// silent set and rebase over it; at LEARN_EPOCH_CAP the region's honest chain then ran a
// million epochs from the top. Now the claimant learns neither (rule 3: hosts far from the
// key, or an epoch above the cap), its first claim starts the region's chain, and the holders
// take its record in place of the attacker's (rule 4, record-holding.ts). Subscribe to first confirmed edit, seeds 1 and 2:
// 15.7 and 16.0 s at epoch 1 before, 18.6 and 18.8 s at the cap (the chain then at epoch
// 15,728,641); 1.2 and 1.1 s now, as with no attack. Two live ids among the 8 nearest at
// MAX_EPOCH: the region gets epoch 1 before as now (a guard: learnt above the cap it would
// have none left). Where the attacker's ids are 2 of the 3 nodes nearest the key, their chain
// is the region's (the model's limit: src/region/record-holding.test.ts); two among the 8
// nearest at epoch 1 are still built on and rebased over (16.4 s: docs/TRUST.md (b)).
describe('a Sybil attacker that signs a chain before a region has any (simulated)', () => {
  for (const seed of [1, 2]) {
    it(`over far keys at epoch 1, does not hold the first claim off (seed ${seed})`, async () => {
      const r = await runRecordScenario(seed, false, { epoch: 'next', keys: 2 });
      expect(r.plantedShown + r.plantedStored, 'planted blocks shown or stored').toBe(0);
      expectAvailable(r);
      expect(r.firstEditMs, 'subscribe to the first edit confirmed (virtual ms)').toBeLessThan(FIRST_EDIT_MS);
    });
    it(`over far keys at LEARN_EPOCH_CAP, does not set the epochs of the region's chain (seed ${seed})`, async () => {
      const r = await runRecordScenario(seed, false, { epoch: 'cap', keys: 2 });
      expect(r.plantedShown + r.plantedStored, 'planted blocks shown or stored').toBe(0);
      expectAvailable(r);
      expect(r.firstEditMs).toBeLessThan(FIRST_EDIT_MS);
      expect(r.epochAtEnd, "the honest chain's epoch").toBeLessThan(100);
    });
    it(`over two live ids among the 8 nearest at MAX_EPOCH, leaves epochs to claim (seed ${seed})`, async () => {
      const r = await runRecordScenario(seed, false, { keys: 3, near: 2, epoch: 'top' });
      expect(r.plantedShown + r.plantedStored, 'planted blocks shown or stored').toBe(0);
      expectAvailable(r);
      expect(r.epochAtEnd, "the honest chain's epoch").toBeLessThan(100);
    });
  }
});

// An attacker key that is a member of the region's host set (a backup, placed there as any
// node near the key is): one OFFER from it used to be adopted by the primary as new edits of
// its epoch (32 planted blocks stored and shown), since the primary took an offer from any
// single host of its set or the previous one. Now an offered entry is adopted only when a
// majority of one of those sets offered it (region-offers.ts, docs/TRUST.md rule 8).
// The control beside it: the same OFFER from both backups (a majority of the 3 hosts) is
// adopted, so the test above fails for the single host, not for OFFER as a whole. (An
// attacker that is a majority of the set is the set: docs/TRUST.md "What it does not stop".)
describe('a Sybil attacker that runs a backup of the host set (simulated)', () => {
  for (const seed of [1, 2]) {
    it(`cannot write blocks through OFFER as one host of the set (seed ${seed})`, async () => {
      const r = await runOfferScenario(seed, { member: 1 });
      expectNothingPlanted(r);
      expect(r.floorAir, 'AIR at y = 0 from the backup').toBe(0);
      expectAvailable(r);
    });
  }
  it('control: the same OFFER from a majority of the set is adopted, AIR at the floor still refused (seed 1)', async () => {
    const r = await runOfferScenario(1, { member: 2 });
    expect(r.plantedShown).toBe(32);
    expect(r.plantedStored).toBeGreaterThanOrEqual(32);
    expect(r.floorAir).toBe(0);
    expectAvailable(r);
  });
});

// The same backup plants blocks in its GRANT instead (a claimant used to merge every
// granter's state): the primary dies silently, the other backup claims and the member
// grants with 32 planted blocks stamped as a tail of the primary's epoch. A claimant adopts a
// granter's entry only under a batch signature of a primary of its own chain, or from a
// majority of one set (docs/TRUST.md rule 8). The control: confirmed edits that only the
// primary and the member held (the claimant missed their batches) survive the failover:
// the claim round waits for the member's proofs, which follow its grant (claim-round.ts
// `settled`; before, seed 1 lost that tail, the round ending at the grant).
describe('a Sybil attacker that runs a backup of the host set, at a failover (simulated)', () => {
  for (const seed of [1, 2]) {
    it(`cannot write blocks through GRANT as one host of the set (seed ${seed})`, async () => {
      const r = await runGrantScenario(seed);
      expectNothingPlanted(r);
      expectAvailable(r);
      expect(r.tail, 'edits confirmed while the claimant missed them').toBe(3);
      expect(r.tailKept, 'of those, at the new primary and shown').toBe(3);
    });
  }
  it('control: confirmed edits only one granter held survive the failover, no plants sent (seed 1)', async () => {
    const r = await runGrantScenario(1, { planted: false });
    expect(r.tail).toBe(3);
    expect(r.tailKept).toBe(3);
    expectAvailable(r);
  });
});

describe('the Sybil harness, control: the same attacks with broken signatures (simulated)', () => {
  const broken: SybilOptions = { broken: true };
  const runs: [string, () => Promise<SybilResult>][] = [
    ['CLAIM', () => runFreezeScenario(1, 'CLAIM', broken)],
    ['HANDOFF', () => runFreezeScenario(1, 'HANDOFF', broken)],
    ['records of a visited region', () => runRecordScenario(1, true, broken)],
    ['records of a new region', () => runRecordScenario(1, false, broken)],
    ['SYNC', () => runSyncScenario(1, broken)],
    ['OFFER', () => runOfferScenario(1, broken)],
  ];
  for (const [name, run] of runs) {
    it(`leaves the region whole: ${name}`, async () => {
      const r = await run();
      expect(r.rogueRank).toBeGreaterThanOrEqual(NEAR_RANKS);
      expectNothingPlanted(r);
      expect(r.floorAir).toBe(0);
      expect(r.deposed).toBe(false);
      expectAvailable(r);
    });
  }
});
