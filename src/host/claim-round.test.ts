// One claim round's rules on their own (claim-round.ts: no wire, clock or signer): whom a
// claim asks, when it asks again, when it is over, and what refusals may teach it.
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { chainRoot, MAX_EPOCH_JUMP, MAX_PEND, type ClaimTerms, type GrantSig } from '../region/epoch-cert';
import { claimTargets, ClaimRound } from './claim-round';

const id = (n: number): NodeId => new Uint8Array(20).fill(n);
const [SELF, A, B, C, D] = [id(1), id(2), id(3), id(4), id(5)];
const sig = (who: NodeId): GrantSig => ({ id: who, a: 0, k: new Uint8Array(65), s: new Uint8Array(72) });
// Built on e5 of the same hosts (a first claim, with no previous epoch, is another rule: below).
const terms = (over: Partial<ClaimTerms> = {}): ClaimTerms => ({ e: 6, primary: SELF, hosts: [SELF, A, B], prev: { e: 5, hosts: [SELF, A, B] }, ...over });
const round = (t = terms()) => new ClaimRound(t, sig(SELF), new Set(claimTargets(t, [], SELF).keys()));

describe('claim round', () => {
  it('asks its hosts, the hosts we know, its previous and pending sets, once each and never us', () => {
    const t = terms({ prev: { e: 4, hosts: [A, C, SELF] }, pend: [{ e: 5, hosts: [B, D, A] }] });
    expect([...claimTargets(t, [D, B], SELF).keys()]).toEqual([A, B, D, C].map(idToHex));
  });

  it('asks again CLAIM_RESEND_MS after the claim and once more after twice that, only while no certificate formed', () => {
    const r = round();
    expect(r.resendDue(1099, 1000, 100)).toBe(0);
    expect(r.resendDue(1100, 1000, 100)).toBe(1);
    expect(r.resendDue(1150, 1000, 100)).toBe(0);
    expect(r.resendDue(1200, 1000, 100)).toBe(2);
    expect(r.resendDue(5000, 1000, 100)).toBe(0);
    const won = round();
    won.addGrant(idToHex(A), sig(A));
    won.check(1050);
    expect(won.quorumAt).toBe(1050);
    expect(won.resendDue(1100, 1000, 100)).toBe(0);
  });

  it('is over once certified and every live host answered, or the grace ran out; the silent primary is not waited for', () => {
    const r = round();
    r.answered.add(idToHex(A));
    expect(r.settled(0, new Map(), 100)).toBe(false); // no certificate yet
    r.addGrant(idToHex(A), sig(A));
    r.check(10);
    expect(r.settled(20, new Map(), 100)).toBe(false); // B may still send its state
    expect(r.settled(20, new Map([[idToHex(B), 0]]), 100)).toBe(true);
    expect(r.settled(110, new Map(), 100)).toBe(true);
  });

  it('is not over at the quorum while a granter\'s answer is still coming (its proofs follow its grant), for at most framesMs', () => {
    const r = round();
    // A's grant came in the first of its frames: not answered yet.
    r.addGrant(idToHex(A), sig(A));
    r.check(10);
    expect(r.settled(10, new Map(), 0, 300)).toBe(false);
    expect(r.settled(310, new Map(), 0, 300), 'a lost frame costs framesMs').toBe(true);
    r.answered.add(idToHex(A));
    expect(r.settled(11, new Map(), 0, 300), 'its last frame came: over, B silent or not').toBe(true);
  });

  it('takes from refusals only bounded news: a promise at most one epoch jump up, pending epochs above our certificate', () => {
    const r = round();
    r.refusedAt(9);
    expect(r.highestRefusal).toBe(9);
    // Far above: one step at most (a forged promise cannot push epochs out of range, and a
    // claimant far behind its granters catches up a step per round).
    r.refusedAt(0xffffffff);
    expect(r.highestRefusal).toBe(r.e + MAX_EPOCH_JUMP);
    r.learnPending({ e: 5, hosts: [A, B, C] }, 5); // not above our certificate
    r.learnPending({ e: 6, hosts: [A, B, C] }, 3); // our own epoch: an honest refuser names only those below it
    r.learnPending({ e: 6 + MAX_EPOCH_JUMP, hosts: [A, B, C] }, 3); // too far
    r.learnPending({ e: 5, hosts: [A] }, 3); // no set that could certify
    expect(r.learned).toEqual([]);
    for (const e of [2, 3, 4, 4, 5]) r.learnPending({ e, hosts: [A, B, C] }, 1);
    expect(r.learned.map((q) => q.e)).toEqual([3, 4, 5].slice(-MAX_PEND));
  });

  it('counts a refuser as a live host only for news: a granted epoch it names only where another answer among our 3 nearest names it too', () => {
    const r = round();
    const [a, b, c, d] = [A, B, C, D].map(idToHex) as [string, string, string, string];
    const near = new Set([a, b, c, d]);
    const made = { e: 5, hosts: [id(0xa5), id(0x5a)] };
    for (const hex of [a, b, c, d]) r.answered.add(hex);
    r.refusal(a, false, 5, made); // a made-up epoch, its word alone
    r.refusal(b, false, 5); // bare
    r.refusal(c, true, 5); // a newer certificate (checked by the caller)
    r.refusal(d, false, 5, { e: 5, hosts: [id(0xa5), id(0x5b)] }); // another epoch's set: no backing
    expect([...r.alive(undefined, near)].sort()).toEqual([c]);
    // A second node names the same epoch and set: a claim that may have certified.
    const backed = round();
    for (const hex of [a, b]) backed.answered.add(hex);
    backed.refusal(a, false, 5, made);
    backed.refusal(b, false, 5, { ...made, hosts: [...made.hosts].reverse() });
    expect([...backed.alive(undefined, near)].sort()).toEqual([a, b].sort());
    // Not where the second, or the first, is not among our nearest: an id of the attacker's
    // anywhere, asked as a host of the made-up set, names it as readily.
    expect([...backed.alive(undefined, new Set([a]))]).toEqual([]);
    expect([...backed.alive(undefined, new Set([b]))]).toEqual([]);
  });

  it("counts the previous set's primary as live only while a majority of that set answered at all", () => {
    const known = { e: 5, primary: A, hosts: [A, B, C], grants: [] };
    const t = terms({ hosts: [SELF, D, A], prev: { e: 5, hosts: known.hosts } });
    const r = round(t);
    const [a, b] = [A, B].map(idToHex) as [string, string];
    r.answered.add(a);
    r.refusal(a, false, 5); // 'alive primary', its backups silent
    expect([...r.alive(known, new Set())]).toEqual([]);
    r.answered.add(b);
    r.refusal(b, false, 5); // 'primary alive'
    expect([...r.alive(known, new Set())]).toEqual([a]);
  });

  it('reports the granted epochs it covered of whose set no majority answered', () => {
    const live = { e: 5, hosts: [A, B, C] }, made = { e: 5, hosts: [id(0xa5), id(0x5a), A] };
    const r = round(terms({ pend: [live, made] }));
    r.answered.add(idToHex(A));
    r.answered.add(idToHex(B));
    expect(r.unheard()).toEqual([made]);
    // Our own grant counts for a set we are in.
    const ours = round(terms({ pend: [{ e: 5, hosts: [SELF, C] }] }));
    ours.answered.add(idToHex(C));
    expect(ours.unheard()).toEqual([]);
  });

  it('certifies a first claim (no previous epoch) only with the grant of every host it names', () => {
    const t = terms({ prev: undefined, hosts: [SELF, A, B] });
    expect(chainRoot(t)).toBe(true);
    expect(chainRoot(terms())).toBe(false);
    const r = round(t);
    r.addGrant(idToHex(A), sig(A));
    r.check(10);
    expect(r.cert(), 'a majority of its set').toBeUndefined();
    expect(r.quorumAt).toBe(null);
    expect(r.fault()).toBe('root-needs-every-host');
    r.addGrant(idToHex(B), sig(B));
    r.check(20);
    expect(r.cert()?.grants).toHaveLength(3);
    expect(r.quorumAt).toBe(20);
    // Built on a certificate, a majority of the set is enough, as ever.
    const later = round(terms({ prev: { e: 5, hosts: [SELF, A, C] } }));
    later.addGrant(idToHex(A), sig(A));
    expect(later.cert()?.grants).toHaveLength(2);
  });
});
