// The election record's rules on their own (no wire, clock or store): the epoch a claim
// asks for, the epochs it must cover, when a rebase is allowed and when claims wait.
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { MAX_PEND, type CertPrev, type EpochCert } from '../region/epoch-cert';
import { Election, MAX_GRANTED, REBASE_AFTER_MS, UNHEARD_MS, type ClaimOutcome } from './election';

const id = (n: number): NodeId => new Uint8Array(20).fill(n);
const [SELF, A, B, C, D] = [id(1), id(2), id(3), id(4), id(5)];
const cert = (e: number, hosts: NodeId[]): EpochCert => ({ e, primary: hosts[0]!, hosts, grants: [] });
const REBASE = { rebaseMs: 10_000, rebaseRestoredMs: 120_000 };
const outcome = (o: Partial<ClaimOutcome>): ClaimOutcome => ({ known: undefined, certified: false, answered: new Set(), fault: undefined, learned: [], highestRefusal: 0, ...o });

describe('election record', () => {
  it('claims above every epoch it knows of: promised, followed, stored, refused, floor, certificate', () => {
    const el = new Election(SELF);
    expect(el.nextEpoch(0, 0, 0)).toBe(1);
    el.promised = 4;
    expect(el.nextEpoch(2, 3, 0)).toBe(5);
    expect(el.nextEpoch(7, 3, 0)).toBe(8);
    expect(el.nextEpoch(0, 9, 0)).toBe(10);
    expect(el.nextEpoch(0, 0, 12)).toBe(12);
    el.learnCert(cert(20, [A, B, C]));
    expect(el.nextEpoch(0, 0, 0)).toBe(21);
    // An epoch we claimed ourselves is never claimed again, though our promise went back
    // below it when that claim failed (its grants still exist; safety seed 141).
    el.ownClaimed = 30;
    el.promised = 20;
    expect(el.nextEpoch(0, 0, 0)).toBe(31);
  });

  it('covers granted and learned epochs above its certificate, one per host set, newest MAX_PEND', () => {
    const el = new Election(SELF);
    el.adoptCert(cert(3, [SELF, A, B]));
    const sets = [[A, B, C], [A, B, D], [A, C, D], [B, C, D]];
    const q = (e: number, set = 0): CertPrev => ({ e, hosts: sets[set]!, p: A });
    el.grant(4, sets[0]!, B, idToHex(B));
    el.grant(5, sets[1]!, A, idToHex(A));
    el.afterClaim(outcome({ learned: [q(6, 2), q(7, 3), q(2, 0)] }), 0, 10_000);
    expect(el.pendFor(9).map((x) => x.e)).toEqual([4, 5, 6, 7].slice(-MAX_PEND));
    expect(el.pendFor(6).map((x) => x.e)).toEqual([4, 5]);
    // One entry per set (its newest epoch): e8 of set 0 stands for e4 too. (What refusals
    // taught is kept MAX_PEND deep: e6 has gone from it.)
    el.afterClaim(outcome({ learned: [q(8, 0)] }), 0, 10_000);
    expect(el.pendFor(9).map((x) => x.e)).toEqual([5, 7, 8]);
    // None for the claim's own set or our certificate's: the certificate needs their majorities anyway.
    expect(el.pendFor(9, sets[0]).map((x) => x.e)).toEqual([5, 7]);
    // A newer certificate makes what it passes need no cover.
    el.adoptCert(cert(6, [SELF, A, B]));
    expect(el.pendFor(9).map((x) => x.e)).toEqual([7, 8]);
  });

  it('drops a learned epoch whose set its claim covered and heard no majority of, and learns that set again only after UNHEARD_MS', () => {
    const el = new Election(SELF);
    el.adoptCert(cert(3, [SELF, A, B]));
    const made: CertPrev = { e: 4, hosts: [id(0xa5), id(0x5a)] }, live: CertPrev = { e: 4, hosts: [A, C, D] };
    const [bad, good] = [idToHex(B), idToHex(C)];
    el.namedPend(made.hosts, bad);
    el.namedPend(live.hosts, good);
    el.afterClaim(outcome({ learned: [made, live] }), 0, 10_000);
    expect(el.pendFor(6)).toEqual([made, live]);
    // The claim that covered both heard no majority of `made`'s set; its namer named it again (e5).
    el.afterClaim(outcome({ learned: [{ ...made, e: 5 }], unheard: [made] }), 1000, 10_000);
    expect(el.pendFor(6)).toEqual([live]);
    expect(el.unheardLately(made.hosts, good, 1000 + UNHEARD_MS - 1)).toBe(true);
    expect(el.unheardLately(made.hosts, good, 1000 + UNHEARD_MS)).toBe(false);
    expect(el.unheardLately(live.hosts, good, 1000)).toBe(false);
    // Nor is a fresh set its namer names learnt meanwhile.
    expect(el.unheardLately([id(0xa6), id(0x5b)], bad, 1000 + UNHEARD_MS - 1)).toBe(true);
    // What we granted ourselves stays covered, heard or not: our own promise.
    el.grant(5, [B, C, D], B, idToHex(B));
    el.afterClaim(outcome({ unheard: [{ e: 5, hosts: [B, C, D], p: B }] }), 2000, 10_000);
    expect(el.pendFor(6).map((q) => q.e)).toEqual([4, 5]);
  });

  it('an ABANDON removes only the epoch granted to that claimant; a later claim not built on it does too', () => {
    const el = new Election(SELF);
    el.grant(4, [B, C, D], B, idToHex(B));
    el.grant(5, [A, B, C], A, idToHex(A));
    expect(el.abandon(5, B)).toBe(false);
    expect(el.abandon(5, A)).toBe(true);
    expect(el.accepted.map((q) => q.e)).toEqual([4]);
    el.grant(6, [A, B, C], A, idToHex(A));
    el.dropFailedGrants(A, 7, 6); // built on e6's certificate: e6 certified, keep
    expect(el.accepted.map((q) => q.e)).toEqual([4, 6]);
    el.dropFailedGrants(A, 7, 3); // not built on it: e6 failed
    expect(el.accepted.map((q) => q.e)).toEqual([4]);
  });

  it("keeps what it granted itself, not a claim's pend: an abandoned claim leaves what was owed before it, and nothing more", () => {
    // We granted C's e4 over {SELF, C, D}. A's e6 covers it as its own host set and lists
    // B's e5 over {B, C, D}, which a refusal taught A (we never granted it).
    const el = new Election(SELF);
    el.adoptCert(cert(3, [SELF, A, B]));
    el.grant(4, [SELF, C, D], C, idToHex(C));
    el.grant(6, [SELF, C, D], A, idToHex(A));
    expect(el.accepted.map((q) => q.e)).toEqual([4, 6]);
    el.abandon(6, A);
    // e4 may have certified: still covered. B's e5 is B's granters' to hold, not ours: a
    // region whose every granter kept every set a failed claim listed ran out of pend slots.
    expect(el.accepted.map((q) => q.e)).toEqual([4]);
    el.grant(7, [A, B, SELF], A, idToHex(A));
    el.abandon(7, A);
    expect(el.pendFor(9, [A, B, SELF]).map((x) => x.e)).toEqual([4]);
  });

  it(`keeps at most ${MAX_GRANTED} grants, dropping only an older epoch of a set a newer one names`, () => {
    const el = new Election(SELF);
    const sets = [[SELF, A, B], [SELF, C, D], [SELF, A, C]];
    for (let e = 1; e <= 3 * MAX_GRANTED; e++) el.grant(e, sets[e % sets.length]!, A, idToHex(A));
    expect(el.accepted).toHaveLength(MAX_GRANTED);
    for (const set of sets) expect(el.accepted.some((q) => q.hosts === set)).toBe(true);
    // The newest grant is kept, and so is each set's newest epoch.
    expect(el.accepted.at(-1)!.e).toBe(3 * MAX_GRANTED);
    for (const set of sets) expect(Math.max(...el.accepted.filter((q) => q.hosts === set).map((q) => q.e))).toBeGreaterThan(3 * MAX_GRANTED - sets.length);
  });

  it('rebases only as a host of its certificate, after rebaseMs of a silent previous majority (longer when restored)', () => {
    const prev = cert(3, [SELF, A, B]);
    const el = new Election(SELF);
    el.adoptCert(prev);
    expect(el.mayRebase(100_000, REBASE)).toBe(false);
    el.afterClaim(outcome({ known: prev, fault: 'no-previous-majority' }), 1000, REBASE.rebaseMs);
    expect(el.prevGone).toEqual({ e: 3, since: 1000 });
    expect(el.mayRebase(10_999, REBASE)).toBe(false);
    expect(el.mayRebase(11_000, REBASE)).toBe(true);
    expect(el.rebaseAt(REBASE), 'when (the backup claims then, whatever its backoff)').toBe(11_000);
    // Claims from outside that set are refused meanwhile; from inside it, not.
    expect(el.mustRebase(C)).toBe(true);
    expect(el.mustRebase(A)).toBe(false);
    // A later silent round does not restart the wait; one answer from the majority ends it.
    el.afterClaim(outcome({ known: prev, fault: 'no-previous-majority' }), 5000, REBASE.rebaseMs);
    expect(el.prevGone?.since).toBe(1000);
    el.afterClaim(outcome({ known: prev, answered: new Set([idToHex(A)]), fault: 'no-majority' }), 6000, REBASE.rebaseMs);
    expect(el.prevGone).toBeUndefined();
    // Restored from our own store: the chain may have moved on without us.
    const restored = new Election(SELF);
    restored.restore(3, idToHex(SELF), prev, undefined, true);
    restored.afterClaim(outcome({ known: prev, fault: 'no-previous-majority' }), 0, REBASE.rebaseMs);
    expect(restored.mayRebase(REBASE.rebaseMs, REBASE)).toBe(false);
    expect(restored.mayRebase(REBASE.rebaseRestoredMs, REBASE)).toBe(true);
    expect(restored.rebaseAt(REBASE)).toBe(REBASE.rebaseRestoredMs);
  });

  it('a claimant outside the previous set holds its claims back for rebaseMs and a claim round or two when that majority is silent', () => {
    const prev = cert(3, [A, B, C]);
    const el = new Election(SELF);
    el.afterClaim(outcome({ known: prev, fault: 'no-previous-majority' }), 1000, 10_000);
    expect(el.deferred(10_999 + REBASE_AFTER_MS)).toBe(true);
    expect(el.deferred(11_000 + REBASE_AFTER_MS)).toBe(false);
    expect(el.prevGone).toEqual({ e: 3, since: 1000 });
    expect(el.mayRebase(50_000, REBASE)).toBe(false); // not its to rebase
    // Certified: no evidence kept, no wait added.
    const won = new Election(SELF);
    won.afterClaim(outcome({ known: prev, certified: true }), 1000, 10_000);
    expect(won.deferred(1001)).toBe(false);
    expect(won.prevGone).toBeUndefined();
    // Nobody rebases (rebaseMs infinite): no wait for one, the evidence kept all the same.
    const off = new Election(SELF);
    off.afterClaim(outcome({ known: prev, fault: 'no-previous-majority' }), 1000, Infinity);
    expect(off.deferred(1001)).toBe(false);
    expect(off.prevGone).toEqual({ e: 3, since: 1000 });
  });

  it('that hold ends once a later certificate naming us is held anchored (the live chain took us in), not for a learnt one or one without us', () => {
    const prev = cert(3, [A, B, C]);
    const held = () => {
      const el = new Election(SELF);
      el.afterClaim(outcome({ known: prev, fault: 'no-previous-majority' }), 1000, 10_000);
      expect(el.deferred(5000)).toBe(true);
      return el;
    };
    const taken = held();
    taken.adoptCert(cert(4, [A, SELF, B]));
    expect(taken.deferred(5000)).toBe(false);
    const without = held();
    without.adoptCert(cert(4, [A, B, D]));
    expect(without.deferred(5000)).toBe(true);
    const learnt = held();
    learnt.adoptCert(cert(4, [A, SELF, B]), undefined, 'learnt');
    expect(learnt.deferred(5000)).toBe(true);
    // Someone else's claim being considered still holds ours back.
    taken.defer(6000);
    expect(taken.deferred(5999)).toBe(true);
    expect(taken.deferred(6000)).toBe(false);
  });

  it('a refusal raises the next epoch by what it named; a grant moves the promise', () => {
    const el = new Election(SELF);
    el.afterClaim(outcome({ highestRefusal: 9 }), 0, 10_000);
    expect(el.nextEpoch(0, 0, 0)).toBe(10);
    el.grant(12, [A, SELF, B], A, idToHex(A));
    expect([el.promised, el.promisedTo]).toEqual([12, idToHex(A)]);
    expect(el.nextEpoch(0, 0, 0)).toBe(13);
  });

  it("a claim's terms: above every known epoch, built on our certificate, covering what it must, a rebase when allowed", () => {
    const prev = cert(3, [SELF, A, B]);
    const el = new Election(SELF);
    el.adoptCert(prev);
    el.grant(4, [A, C, D], A, idToHex(A));
    expect(el.claimTerms([SELF, A, B], 2, 3, 0, 0, REBASE)).toEqual({ e: 5, primary: SELF, hosts: [SELF, A, B], prev: { e: 3, hosts: [SELF, A, B] }, pend: [{ e: 4, hosts: [A, C, D], p: A }] });
    el.afterClaim(outcome({ known: prev, fault: 'no-previous-majority' }), 0, REBASE.rebaseMs);
    expect(el.claimTerms([SELF, C], 0, 0, 9, REBASE.rebaseMs, REBASE)).toMatchObject({ e: 9, rebase: true });
  });
  it('keeps the certificates it held before its own (MAX_CHAIN), and the links a sender showed that lead on from them or into the new one', () => {
    const el = new Election(SELF);
    const g = (hosts: NodeId[]) => hosts.map((h) => ({ id: h, a: 0 as const, k: new Uint8Array(32), s: new Uint8Array(64) }));
    const c = (e: number, hosts: NodeId[], granters: NodeId[]): EpochCert => ({ e, primary: hosts[0]!, hosts, grants: g(granters) });
    expect(el.chainAbove(0)).toBeUndefined();
    const e3 = c(3, [A, B, C], [A, B]);
    el.adoptCert(e3);
    const e4 = c(4, [A, B, D], [A, B]);
    // A sender's links: e5 granted by e4's majority leads on; e6 granted by strangers does not.
    // e5 leads into e7 (a majority of e5's hosts granted e7): kept for readers that hold e5.
    const e5 = c(5, [B, D, SELF], [B, D]), e6 = c(6, [C, SELF, A], [id(9), id(10)]);
    el.learnCert(c(7, [D, SELF, C], [D, SELF]), [e6, e5]);
    expect(el.chainAbove(0)!.map((x) => x.e)).toEqual([3, 5]);
    el.adoptCert(c(8, [D, SELF, C], [D, SELF]));
    expect(el.chainAbove(0)!.map((x) => x.e)).toEqual([3, 5, 7]);
    // A host's first certificate of the region (a new backup's SYNC): the sender's links into it.
    const first = new Election(SELF);
    first.adoptCert(c(7, [D, SELF, C], [D, SELF]), [e6, e4, e5]);
    expect(first.chainAbove(0)!.map((x) => x.e)).toEqual([4, 5]);
    const fresh = new Election(SELF);
    fresh.adoptCert(e3);
    fresh.learnCert(c(7, [D, SELF, C], [D, SELF]), [e6, e5, e4]);
    expect(fresh.chainAbove(0)!.map((x) => x.e)).toEqual([3, 4, 5]);
    expect(fresh.chainAbove(3)!.map((x) => x.e)).toEqual([4, 5]);
    fresh.adoptCert(c(9, [D, SELF, C], [D, SELF]));
    expect(fresh.chainAbove(0)!.map((x) => x.e)).toEqual([4, 5, 7]);
  });

  it('a learnt certificate is replaced by an anchored one of any epoch, and the promise following the learnt chain made goes with it', () => {
    const el = new Election(SELF);
    el.grant(3, [A, B, SELF], A, idToHex(A));
    // Learnt at e6 (keys nobody finds near), followed: a promise of 6 to its primary.
    const forged = cert(6, [C, D, SELF]);
    el.adoptCert(forged, undefined, 'learnt');
    el.promised = 6;
    el.promisedTo = idToHex(C);
    expect(el.learnt).toEqual({ promised: 3, promisedTo: idToHex(A), refusedAt: 0 });
    // Learnt again after it: still learnt, the promise to fall back to unchanged.
    const next = { ...cert(7, [C, D, SELF]), prev: { e: 6, hosts: [C, D, SELF] } };
    expect(el.supersedes(next, 'learnt', true)).toBe(true);
    el.adoptCert(next, undefined, 'learnt');
    el.promised = 7;
    expect(el.learnt?.promised).toBe(3);
    // The region's real certificate, anchored in our own view, at a lower epoch.
    const real = cert(4, [A, B, SELF]);
    expect(el.supersedes(real, 'learnt', true), 'a learnt certificate never replaces one that it does not succeed').toBe(false);
    expect(el.supersedes(real, 'anchored', true)).toBe(true);
    expect(el.supersedes(real, 'anchored', false), 'not while the learnt one\'s hosts are near the key: it is the region\'s own').toBe(false);
    expect(el.promiseFor(real, 'anchored', false)).toBe(7);
    expect(el.promiseFor(real, 'anchored', true)).toBe(3);
    expect(el.promiseFor(real, 'learnt', true)).toBe(7);
    el.adoptCert(real, undefined, 'anchored');
    expect(el.cert).toBe(real);
    expect(el.learnt).toBeUndefined();
    expect([el.promised, el.promisedTo]).toEqual([3, idToHex(A)]);
    expect(el.chainAbove(0), 'the learnt chain is no link of ours').toBeUndefined();
    // Anchored now: nothing replaces it but a successor.
    expect(el.supersedes(cert(3, [A, B, C]), 'anchored', true)).toBe(false);
    expect(el.supersedes(forged, 'anchored', true)).toBe(false);
  });

  it('a grant made while the certificate is learnt is a promise of our own: it stays when the learnt chain goes', () => {
    const el = new Election(SELF);
    el.adoptCert(cert(6, [C, D, SELF]), undefined, 'learnt');
    el.grant(8, [C, D, SELF], C, idToHex(C));
    el.adoptCert(cert(5, [A, B, SELF]), undefined, 'anchored');
    expect([el.promised, el.promisedTo]).toEqual([8, idToHex(C)]);
  });

  it('restores a learnt certificate as learnt, with the promise to fall back to', () => {
    const el = new Election(SELF);
    el.restore(9, idToHex(C), cert(9, [C, D, SELF]), undefined, true, { promised: 2, promisedTo: idToHex(A) });
    expect(el.learnt).toEqual({ promised: 2, promisedTo: idToHex(A), refusedAt: 0 });
    el.adoptCert(cert(4, [A, B, SELF]), undefined, 'anchored');
    expect([el.promised, el.promisedTo]).toEqual([2, idToHex(A)]);
    const anchored = new Election(SELF);
    anchored.restore(9, idToHex(C), cert(9, [C, D, SELF]), undefined, true);
    expect(anchored.learnt).toBeUndefined();
    expect(anchored.supersedes(cert(4, [A, B, SELF]), 'anchored', true)).toBe(false);
  });

  it('an ABANDON of its last promise lowers the promise back to what it was before that grant; nothing else does', () => {
    const el = new Election(SELF);
    el.grant(4, [B, C, D], B, idToHex(B));
    el.grant(5, [A, B, C], A, idToHex(A));
    expect(el.undoGrant(5, idToHex(B))).toBe(false);
    expect(el.undoGrant(4, idToHex(B))).toBe(false);
    expect(el.undoGrant(5, idToHex(A))).toBe(true);
    expect([el.promised, el.promisedTo]).toEqual([4, idToHex(B)]);
    // Once only: the grant of e4 is not undone by the undo of e5.
    expect(el.undoGrant(5, idToHex(A))).toBe(false);
    expect(el.undoGrant(4, idToHex(B))).toBe(false);
    // A claim of our own since the grant keeps the promise where it is.
    el.grant(6, [A, B, C], A, idToHex(A));
    el.promised = 7;
    el.promisedTo = idToHex(SELF);
    expect(el.undoGrant(6, idToHex(A))).toBe(false);
    expect(el.promised).toBe(7);
  });

  it('an undone grant made while the certificate is learnt leaves the learnt hold as it was before it', () => {
    const el = new Election(SELF);
    el.adoptCert(cert(3, [C, D, A]), undefined, 'learnt');
    expect(el.learnt?.promised).toBe(0);
    el.grant(5, [A, B, C], A, idToHex(A));
    expect(el.learnt?.promised).toBe(5);
    expect(el.undoGrant(5, idToHex(A))).toBe(true);
    expect([el.promised, el.learnt?.promised]).toEqual([0, 0]);
  });
  it('knows whether the claim it follows is a first claim it granted (followsRoot): only the last grant, until undone', () => {
    const el = new Election(SELF);
    expect(el.followsRoot(1, idToHex(A))).toBe(false);
    el.grant(1, [A, B, SELF], A, idToHex(A), true);
    expect(el.followsRoot(1, idToHex(A))).toBe(true);
    expect(el.followsRoot(1, idToHex(B))).toBe(false);
    expect(el.followsRoot(2, idToHex(A))).toBe(false);
    // A claim built on a chain (it named a certificate) is no first claim, whoever granted it.
    el.grant(2, [B, C, SELF], B, idToHex(B));
    expect(el.followsRoot(2, idToHex(B))).toBe(false);
    expect(el.followsRoot(1, idToHex(A))).toBe(false);
    el.grant(3, [C, D, SELF], C, idToHex(C), true);
    expect(el.undoGrant(3, idToHex(C))).toBe(true);
    expect(el.followsRoot(3, idToHex(C))).toBe(false);
  });

  it('remembers the host sets it held as learnt (the newest 8), not the anchored ones, for the items', () => {
    const el = new Election(SELF);
    el.adoptCert(cert(3, [C, D, A]), undefined, 'learnt');
    el.adoptCert(cert(4, [SELF, A, B]));
    expect(el.learnt, 'the anchored one replaced it').toBeUndefined();
    expect(el.heldLearnt(3, [A, C, D]), 'in any order').toBe(true);
    expect(el.heldLearnt(3, [A, B, C]), 'another set of that epoch').toBe(false);
    expect(el.heldLearnt(4, [SELF, A, B]), 'anchored').toBe(false);
    for (let e = 10; e < 18; e++) el.adoptCert(cert(e, [B, C, D]), undefined, 'learnt');
    expect(el.heldLearnt(17, [B, C, D])).toBe(true);
    expect(el.heldLearnt(3, [C, D, A]), 'past the bound').toBe(false);
  });

  it('pings of a learnt set no majority answered hold a claimant outside it back as its claim would; a majority answering holds nothing', () => {
    const learnt = cert(3, [A, B, C]);
    const el = new Election(SELF);
    el.adoptCert(learnt, undefined, 'learnt');
    el.probedLearnt(learnt, new Set([idToHex(A)]), 1000, 10_000, true);
    expect(el.deferred(10_999 + REBASE_AFTER_MS)).toBe(true);
    expect(el.prevGone).toEqual({ e: 3, since: 1000 });
    const alive = new Election(SELF);
    alive.adoptCert(learnt, undefined, 'learnt');
    alive.probedLearnt(learnt, new Set([idToHex(A), idToHex(B)]), 1000, 10_000, true);
    expect(alive.deferred(1001)).toBe(false);
    expect(alive.prevGone).toBeUndefined();
  });
});
