// The adversary kit (adversary.ts) over seeds: every frame type and DHT record of a region,
// against every role that reads it, with self-minted, top-epoch, replayed, cross-region,
// cross-world and spliced chains; the attacker holds 2 to 8 keys, in one run two of them
// live ids ground next to the region's hosts, in others the primary dies mid-attack.
// Asserted over every run:
// - no honest subscriber shows and no honest host stores a block the attacker sent (each
//   row's own markers);
// - every row reached its target, and the refusal counters it names moved there (a row
//   whose refusal no counter records says why: FrameKind.silent);
// - the region never goes without an honest primary past FAILOVER_TARGET_MS (a backup
//   notices silence after failoverMs, one claim round takes CLAIM_TIMEOUT_MS);
// - the region's hosts move at most MAX_EPOCH_JUMP epochs and stay below LEARN_EPOCH_CAP;
// - the honest edits made between the rows are all confirmed, and shown by both
//   subscribers and stored by the primary at the end; no double primary.
// docs/TRUST.md "The adversary kit" has what it covers and what it does not.
import { describe, expect, it } from 'vitest';
import { LEARN_EPOCH_CAP } from '../region/cert-anchor';
import { MAX_EPOCH, MAX_EPOCH_JUMP } from '../region/epoch-cert';
import { breaches, FAILOVER_TARGET_MS, runAdversary, uncountedRows, undelivered, type AdversaryOptions, type AdversaryResult } from './adversary';

/** Every property at once (soft: a red run lists each that failed). */
function expectHeld(r: AdversaryResult, o: AdversaryOptions): void {
  expect.soft(breaches(r, false), 'rows from outside the set whose blocks an honest peer showed or stored').toEqual([]);
  // From inside the set (a near id moved in by the failover) too.
  expect.soft(breaches(r, true), 'rows from inside the set whose blocks an honest peer showed or stored').toEqual([]);
  expect.soft(undelivered(r, o).map((x) => x.name), 'rows that never reached their target').toEqual([]);
  const uncounted = uncountedRows(r, o);
  expect.soft(uncounted.map((x) => x.name), 'rows refused with no counter moving').toEqual([]);
  expect.soft(r.noPrimaryMs, 'longest time without an honest primary').toBeLessThanOrEqual(FAILOVER_TARGET_MS);
  expect.soft(r.maxEpoch - r.startEpoch, "epochs the region's hosts moved").toBeLessThanOrEqual(MAX_EPOCH_JUMP);
  expect.soft(r.maxEpoch).toBeLessThan(LEARN_EPOCH_CAP);
  expect.soft(r.honestEdits).toBeGreaterThanOrEqual(10);
  expect.soft(r.honestConfirmed, 'honest edits confirmed during the attack').toBe(r.honestEdits);
  expect.soft(r.honestStored, 'honest edits stored by the primary').toBe(r.honestEdits);
  expect.soft(r.honestShown, 'honest edits shown by both subscribers').toBe(r.honestEdits);
  expect.soft(r.doublePrimaries).toBe(0);
  expect.soft(r.freshAttachedHonest, 'the fresh subscriber attached to an honest primary').toBe(true);
  // A near majority the attacker names may be believed by a backup whose primary died
  // (docs/TRUST.md (a)); far keys never, nor a forged chain the idle rows' host learnt
  // before a failover moved it into the set (an anchored certificate replaces a learnt one).
  if (!o.near) expect.soft(r.adopted, 'hosts of the set following an attacker primary').toBe(0);
}

const RUNS: AdversaryOptions[] = [
  { seed: 1, keys: 2 },
  { seed: 2, keys: 8, kill: true },
  { seed: 4, keys: 3, near: 2, kill: true },
];

describe('an adversary with 2 to 8 keys against every frame, record and role (simulated)', () => {
  for (const o of RUNS) {
    const what = `${o.keys} keys${o.near ? `, ${o.near} ground next to the hosts` : ''}${o.kill ? ', the primary killed mid-attack' : ''}`;
    it(`changes nothing an honest peer shows or stores (seed ${o.seed}, ${what})`, async () => {
      const r = await runAdversary(o);
      expect(r.rows.length).toBeGreaterThanOrEqual(150);
      expectHeld(r, o);
    });
  }
});

// Holes the adversary found and that are closed since: each asserts the attack now leaves nothing.
describe('holes the adversary found, closed (simulated)', () => {
  // A member of the set relaying (as a backup serving a crowd's share does) DELTAs and
  // PENDINGs of the next seqs: a subscriber takes a relayed one only under the primary's
  // signatures over its batches (play/relay-proofs.ts, docs/TRUST.md rule 10).
  it('one host of the set cannot write what subscribers show through DELTA (or draw through PENDING), nor hide the honest edits of those seqs', async () => {
    const r = await runAdversary({ seed: 1, keys: 2, member: true, only: (x) => x.frame.wire === 'players' || x.frame.t === 'OFFER' });
    expect(breaches(r)).toEqual([]);
    for (const name of ['DELTA -> subscriber, replayed', 'DELTA -> fresh, replayed', 'PENDING -> subscriber, replayed', 'PENDING -> fresh, replayed']) {
      const row = r.rows.find((x) => x.name === name)!;
      expect(row.delivered, `${name}: reached its target`).toBe(true);
      expect(row.counted, `${name}: refused and counted`).toBeGreaterThan(0);
    }
    expect(r.honestShown, 'honest edits shown by both subscribers').toBe(r.honestEdits);
  });

  // An attacker node in the host set answering the failover's claim with a valid GRANT of
  // its own blocks: a claimant takes a granter's entry only when a majority of one set of its
  // claim sent it, or a primary of its chain signed it (docs/TRUST.md rule 8).
  // The rogue lies among the 8 nodes nearest the key here, so its CLAIMs during the failover
  // carry certificates near ids anchor (rule 2): the backup keeps to its own chain through
  // the failover (rule 7). Before, it took the linked one, built its claim on it, needed the
  // rogue's grant and the region had no primary for the rest of the run (1 of 2 edits).
  it('one host of the set cannot plant blocks through its GRANT at a failover, nor take the failover from the region', async () => {
    const r = await runAdversary({ seed: 1, keys: 2, member: true, grants: true, kill: true, only: (x) => x.frame.t === 'CLAIM' });
    const row = r.rows.find((x) => x.name === 'GRANT answering CLAIM -> claimant, member')!;
    expect(row.delivered, 'the claimant asked the attacker').toBe(true);
    expect(row.stored + row.shown + row.pending, 'its blocks stored or shown').toBe(0);
    expect(r.honestConfirmed).toBe(r.honestEdits);
    expect(r.honestShown, 'honest edits shown by both subscribers').toBe(r.honestEdits);
  });

  // The attacker's node in the set and its rogue, which lies among the 8 nodes nearest the
  // key, sign a successor of their own (a rebase over the set, or two epochs on): near the
  // key, so a reader that missed epochs takes it (rule 2). A subscriber re-attaching asks the
  // set's backups first, the attacker's node among them; while it still hears its primary it
  // takes a later certificate only from a majority of its hosts (cert-checker.ts `live`).
  // The attacker's node answers the subscriber's SUBSCRIBE there (`answers`): a node it asked,
  // so the snapshot passes the client's asked filter and that rule alone refuses it (the
  // table's SNAPSHOT rows land after the re-attachment and are dropped as stale before it).
  // Before, seed 4 showed 3 of these rows (the subscriber's spliced and linked, the fresh
  // one's minted), and the bench's member_grants_kill seeds 1 and 8 the fresh one's spliced
  // and linked.
  it('one host of the set and a live id near the key cannot show a subscriber that hears its primary a SNAPSHOT of their own', async () => {
    const r = await runAdversary({ seed: 4, keys: 2, member: true, grants: true, kill: true, answers: 'linked', only: (x) => x.frame.t === 'SNAPSHOT' });
    expect(r.rows.find((x) => x.name === 'SNAPSHOT answering SUBSCRIBE -> subscriber, member, linked')?.delivered, 'the re-attaching subscriber asked the attacker').toBe(true);
    expect(r.rows.filter((x) => x.t === 'SNAPSHOT' && x.member && x.delivered).length, 'SNAPSHOT rows sent from inside the set and delivered').toBeGreaterThanOrEqual(10);
    expect(breaches(r)).toEqual([]);
    expect(r.freshAttachedHonest).toBe(true);
  });

  // The same two ids while the region fails over: the subscriber's primary died, and it
  // re-attaches through the set's backups, the attacker's node among them, which answers with
  // a SNAPSHOT under a certificate spliced onto the region's or linked past it (rule 2 would
  // take both: the two ids are near the key). Until OWN_CHAIN_MS (the hosts' rebaseMs) after
  // it last heard its primary, a subscriber takes a later certificate only as a link of its
  // own chain (region-client.ts checkSnapshot). Before, its window was SILENCE_MS (1.2 s):
  // seed 1 showed the spliced and the linked rows, seed 4 the linked one.
  for (const seed of [1, 4]) {
    it(`one host of the set and a live id near the key cannot show a subscriber whose primary died a SNAPSHOT of their own (seed ${seed})`, async () => {
      const o: AdversaryOptions = { seed, keys: 2, member: true, kill: true, fresh: false, only: (x) => x.frame.t === 'SNAPSHOT' && x.role === 'subscriber' };
      const r = await runAdversary(o);
      for (const chain of ['spliced', 'linked']) {
        const row = r.rows.find((x) => x.name === `SNAPSHOT -> subscriber, ${chain}`)!;
        expect(row.delivered, `${chain}: reached the subscriber`).toBe(true);
        expect(row.counted, `${chain}: refused and counted`).toBeGreaterThan(0);
      }
      expect(breaches(r)).toEqual([]);
      expect(uncountedRows(r, o).map((x) => x.name)).toEqual([]);
    });
  }

  // Learnt chains: a host with no certificate of the region learns one on its signatures
  // alone (rule 3); such a certificate anchors nothing, so what chains from it stays below
  // LEARN_EPOCH_CAP, and the region's own certificate, anchored near the key, replaces it.
  for (const enlist of [true, 'restarted'] as const) {
    it(enlist === true ? 'a host outside the set that learnt a forged chain climbs no higher than the cap, and follows the real chain once taken into the set' : 'a host outside the set that learnt a forged chain keeps it as learnt across a restart', async () => {
      const r = await runAdversary({ seed: 1, keys: 2, enlist, only: (x) => x.role === 'idle' && (x.frame.t === 'SYNC' || x.frame.t === 'HANDOFF') });
      expect(r.rows.filter((x) => x.delivered).length, 'SYNC and HANDOFF rows delivered at the idle host').toBeGreaterThanOrEqual(10);
      expect(r.maxEpochAnywhere, 'highest epoch any honest peer holds or promised').toBeLessThan(LEARN_EPOCH_CAP);
      expect(r.maxEpochAnywhere - r.startEpoch).toBeLessThanOrEqual(MAX_EPOCH_JUMP);
      expect(r.enlisted?.keptLearnt, 'it holds what it learnt as learnt').toBe(true);
      // Restarted, it judges the learnt chain's hosts far (and lets the real chain replace it)
      // only once its view of the key fills again: not within this run (docs/TRUST.md (d)).
      if (enlist === true) {
        expect(r.enlisted?.follows, 'the host the idle rows reached, taken into the set, follows the real primary').toBe(true);
        expect(r.enlisted!.epoch).toBeLessThanOrEqual(r.maxEpoch);
      }
      expect(breaches(r)).toEqual([]);
      expect(r.noPrimaryMs).toBeLessThanOrEqual(FAILOVER_TARGET_MS);
      if (enlist !== true) return;
      // The cap itself: the first certificate the idle host hears is the top one. Above, it
      // already learnt the minted one, and the top one is refused as a jump from that.
      const top = await runAdversary({ seed: 1, keys: 2, only: (x) => x.role === 'idle' && x.chain === 'top' && (x.frame.t === 'SYNC' || x.frame.t === 'HANDOFF') });
      for (const row of top.rows.filter((x) => x.role === 'idle')) {
        expect(row.delivered, `${row.name}: delivered`).toBe(true);
        expect(row.counted, `${row.name}: refused and counted`).toBeGreaterThan(0);
      }
      expect(top.maxEpochAnywhere, 'highest epoch any honest peer holds or promised, the top rows alone').toBeLessThan(LEARN_EPOCH_CAP);
    });
  }

  // A HANDOFF whose certificate may not take the place of the host's own (an older epoch)
  // is refused and counted (staleFrames), as a SYNC's is. Before, it fell through to the
  // host's own lookup with no counter moving. Seed 8 with two ids next to the hosts: the
  // idle host takes the near ids' top certificate (rule 2, docs/TRUST.md (a)), so the
  // spliced chain's HANDOFF, at the region's next epoch, comes below what it holds.
  it('a HANDOFF under an older certificate than the host holds is refused and counted', async () => {
    const o: AdversaryOptions = { seed: 8, keys: 3, near: 2, only: (x) => x.role === 'idle' && x.frame.t === 'HANDOFF' };
    const r = await runAdversary(o);
    const row = (chain: string) => r.rows.find((x) => x.name === `HANDOFF -> idle, ${chain}`)!;
    expect(row('top').epoch, "the idle host took the near ids' top certificate (what the refusal needs)").toBe(MAX_EPOCH);
    expect(row('spliced').delivered).toBe(true);
    expect(row('spliced').counted, 'the spliced HANDOFF refused and counted').toBeGreaterThan(0);
    expect(uncountedRows(r, o).map((x) => x.name), 'rows refused with no counter moving').toEqual([]);
  });
});

// Open, and listed in docs/TRUST.md "Open gaps": the same member and rogue against the
// failover's claimant. Both refuse every claim of the region naming a certificate of their
// own: a rebase over the set by the member (`spliced`; `linked`, a link past it, does the
// same). The survivor, claiming, no longer hears its primary (rule 7 ends with its claim), a
// rebase is never a link of its chain, and the certificate builds on the set it holds, so
// it is no other chain (cert-anchor.ts `forkOf`): it judges it by nearness, on its table's
// 8, where both granters lie, takes it and builds its next claims on it (2 honest hosts held
// the attacker's certificate, one of the set to the end, seeds 1 and 4). Pinned as it is
// until a host judges by nearness as a reader with no chain does (tried on branch near8:
// cert-checker.ts `hostNear`, 0 held here; it left hosting-sybil 'writing its records first'
// seed 1 without an honest edit, and refused hosting-safety seed 1's honest e20 at the host
// nearest the key, left out of the set while cut off, until the host left itself out).
describe("a host's claim judged by nearness: an open gap (simulated)", () => {
  for (const seed of [1, 4]) {
    it(`a host of the set and a live id 8th nearest still make the failover's claimant build on a certificate of their own (seed ${seed})`, async () => {
      const o: AdversaryOptions = { seed, keys: 2, member: true, kill: true, refuses: 'spliced', only: (x) => x.frame.t === 'CLAIM' && x.role === 'backup' };
      const r = await runAdversary(o);
      expect(r.liveRanks, "the rogue's and the member's places among the nodes nearest the key").toEqual([8, 2]);
      expect(r.rows.find((x) => x.name === 'GRANT refusing CLAIM -> claimant, member, spliced')?.delivered, 'the claimant asked the member').toBe(true);
      expect(breaches(r)).toEqual([]);
      expect(r.heldAttackers, "honest hosts that held the attacker's certificate (open)").toBeGreaterThan(0);
    });
  }
});

// The same member as above and a rogue 8th nearest (seeds 1 and 4: hostile ranks 2 and 8, the
// primary 1st; once it is killed, the live ranks are 1 and 7, one of the 3 nearest, outside
// the model's limit). The member withholds its grant, so the failover waits for a rebase
// (rebaseMs, 10 s); the fresh subscriber's join lands the player rows past OWN_CHAIN_MS of the
// subscriber's silence and before the rebase's certificate reaches it. A certificate that is
// no link of its chain it judges by nearness as a reader with none does (cert-checker.ts): on
// its own lookup's 4 nearest live nodes, 2 of its 3 nearest granting. Before, it counted
// grants from its table's 8 nearest and took the member and rogue's own set at the next
// epoch, then MAX_EPOCH on it: minted and top shown 2 each (found by reading the 60-peer sybil
// simulation's seed 14 under a changed first claim, where the same step took 6 blocks).
describe('a subscriber silent past its primary (simulated)', () => {
  for (const seed of [1, 4]) {
    it(`a host of the set and a live id 8th nearest cannot show a subscriber silent past OWN_CHAIN_MS a SNAPSHOT of their own (seed ${seed})`, async () => {
      const o: AdversaryOptions = { seed, keys: 2, member: true, kill: true, only: (x) => x.frame.t === 'SNAPSHOT' && x.role === 'subscriber' };
      const r = await runAdversary(o);
      for (const chain of ['minted', 'top']) expect(r.rows.find((x) => x.name === `SNAPSHOT -> subscriber, ${chain}`)!.delivered, `${chain}: reached the subscriber`).toBe(true);
      expect(breaches(r)).toEqual([]);
      expect(uncountedRows(r, o).map((x) => x.name), 'rows refused with no counter moving').toEqual([]);
      // The honest rebase still reaches both: the subscriber follows it, the fresh one attaches to it.
      expect(r.playerFollows, 'the subscriber follows the rebased primary').toBe(true);
      expect(r.freshAttachedHonest, 'the fresh subscriber attached to an honest primary').toBe(true);
    });
  }
});
