import { describe, expect, it } from 'vitest';
import { compareDistance, idToHex, type NodeId } from '../core/node-id';
import { certShapeFault, succeeds, type EpochCert } from '../region/epoch-cert';
import { covers, defersToCloser, grantRefusal, grantsAgain, refusalNews, type ClaimFrame, type GranterView } from './grant-rules';

const id = (n: number): NodeId => new Uint8Array(20).fill(n);
const [A, B, C, D] = [1, 2, 3, 4].map(id) as [NodeId, NodeId, NodeId, NodeId];
const cert = (e: number, primary: NodeId, hosts: NodeId[]): EpochCert => ({ e, primary, hosts, grants: [] });

const view = (over: Partial<GranterView> = {}): GranterView => ({
  selfId: B, promised: 5, cert: cert(5, A, [A, B, C]), stateEpoch: 5, primary: false, handoffTo: '', following: '', heardAgoMs: 10_000, failoverMs: 1000, ...over,
});
const claim = (over: Partial<ClaimFrame> = {}): ClaimFrame => ({ e: 6, from: C, fromHex: idToHex(C), hosts: [A, B, C], known: cert(5, A, [A, B, C]), ...over });

describe('grant rules', () => {
  it('lets a claim that builds on our newest certificate go on', () => {
    expect(grantRefusal(view(), claim())).toBeNull();
  });
  it('refuses stale epochs, bad terms and claims that do not name us', () => {
    expect(grantRefusal(view(), claim({ e: 5 }))).toBe('promised 5');
    expect(grantRefusal(view(), claim({ hosts: [C] }))).toBe('too-few-hosts');
    expect(grantRefusal(view(), claim({ hosts: [A, D] }))).toBe('primary-not-host');
    expect(grantRefusal(view({ selfId: D }), claim())).toBe('not a host');
  });
  it('bounds the epoch jump, even to 0xffffffff', () => {
    expect(grantRefusal(view(), claim({ e: 5 + 64 }))).toBeNull();
    expect(grantRefusal(view(), claim({ e: 5 + 65, known: cert(5, A, [A, B, C]) }))).toBe('epoch jump');
    // The step counts from our promise too: failed claims raised it past our certificate by
    // more than a step (safety seed 228: promised 72 over e8, every claim refused for ever).
    expect(grantRefusal(view({ cert: cert(8, A, [A, B, C]), promised: 72 }), claim({ e: 73, known: cert(8, A, [A, B, C]) }))).toBeNull();
    expect(grantRefusal(view({ cert: cert(8, A, [A, B, C]), promised: 72 }), claim({ e: 72 + 65, known: cert(8, A, [A, B, C]) }))).toBe('epoch jump');
    expect(grantRefusal(view({ cert: undefined }), claim({ e: 0xffffffff, known: undefined }))).toBe('epoch-range');
    expect(grantRefusal(view({ cert: undefined, promised: 0, stateEpoch: 0 }), claim({ e: 100, known: undefined }))).toBe('epoch jump');
  });
  it('refuses a claimant behind our certificate or on another chain', () => {
    expect(grantRefusal(view({ cert: cert(7, A, [A, B, C]), promised: 7 }), claim({ e: 8 }))).toBe('behind e7');
    expect(grantRefusal(view({ cert: cert(7, A, [A, B, C]), promised: 7 }), claim({ e: 8, known: undefined }))).toBe('behind e7');
    expect(grantRefusal(view(), claim({ known: cert(5, D, [D, B, C]) }))).toBe('other certificate');
  });
  it('refuses a claim built on another chain above our head, unless it merges ours', () => {
    // By its epoch a later link of ours; by its links (the caller's `forkOf`) another chain.
    const other = claim({ e: 9, from: D, fromHex: idToHex(D), hosts: [D, B, C], known: cert(8, D, [D, C, A]) });
    expect(grantRefusal(view(), other)).toBeNull();
    expect(grantRefusal(view({ fork: true }), other)).toBe('other chain e8');
    expect(grantRefusal(view({ fork: true, merging: true }), other)).toBeNull();
  });
  it('does not help depose a live primary, except for its handoff target', () => {
    expect(grantRefusal(view({ primary: true }), claim())).toBe('alive primary');
    expect(grantRefusal(view({ primary: true, handoffTo: idToHex(C) }), claim())).toBeNull();
    expect(grantRefusal(view({ following: idToHex(A), heardAgoMs: 100 }), claim())).toBe('primary alive');
    expect(grantRefusal(view({ following: idToHex(A), heardAgoMs: 600 }), claim())).toBeNull();
    expect(grantRefusal(view({ following: idToHex(C), heardAgoMs: 100 }), claim())).toBeNull(); // our primary re-forms its set
    expect(grantRefusal(view({ following: idToHex(A), heardAgoMs: 100, handoffTo: idToHex(C) }), claim())).toBeNull();
  });
});

// The fork seen in the safety simulation (seed 3): e3 = {B, C, D}; E restarts and, handed
// the region, certifies e4 = {E, B, C} with B and D's grants; D never sees e4's certificate
// and claims e5 over e3 again, with C. Both built on e3, both had an e3 majority, and the
// two e5 primaries confirmed at once. D's own grant of e4 is what it must not forget.
describe('granted epochs above the certificate (pend)', () => {
  const E = id(5);
  const g = (who: NodeId) => ({ id: who, a: 0 as const, k: new Uint8Array(65), s: new Uint8Array(72) });
  const e4 = { e: 4, hosts: [E, B, C] };
  it('a granter that granted e4 refuses a claim over e3 that does not cover it', () => {
    const v = view({ selfId: D, promised: 4, cert: cert(3, B, [B, C, D]), accepted: [e4] });
    const over3 = claim({ e: 5, from: D, fromHex: idToHex(D), hosts: [B, C, D], known: cert(3, B, [B, C, D]) });
    expect(grantRefusal(v, over3)).toBe('pending e4');
    expect(grantRefusal(v, { ...over3, pend: [e4] })).toBeNull();
    // Another set at e4 is not the one we granted.
    expect(grantRefusal(v, { ...over3, pend: [{ e: 4, hosts: [E, B, D] }] })).toBe('pending e4');
    // A claim whose certificate is past e4 needs no cover.
    expect(covers(claim({ e: 7, known: cert(6, A, [A, B, C]) }), e4)).toBe(true);
  });
  it('an epoch of the set granted covers it, whatever its number (one pend entry per set)', () => {
    const v = view({ selfId: D, promised: 6, cert: cert(3, B, [B, C, D]), accepted: [e4, { e: 6, hosts: [E, B, D] }] });
    const over3 = claim({ e: 7, from: D, fromHex: idToHex(D), hosts: [B, C, D], known: cert(3, B, [B, C, D]) });
    // e4's set named at e5 stands for e4: a majority of E, B, C holds what any of its epochs confirmed.
    expect(grantRefusal(v, { ...over3, pend: [{ e: 5, hosts: [E, B, C] }, { e: 6, hosts: [E, B, D] }] })).toBeNull();
    // The claim's own new set needs its majority anyway: no pend entry for it.
    expect(grantRefusal(v, { ...over3, hosts: [E, B, D], pend: [e4] })).toBeNull();
    // Still refused while one granted set is not needed at all.
    expect(grantRefusal(v, { ...over3, pend: [e4] })).toBe('pending e6');
    // A certificate the granter holds is another matter: its successor must name its very epoch.
    expect(grantRefusal(view({ cert: cert(7, A, [A, B, C]), promised: 7 }), claim({ e: 8, pend: [{ e: 6, hosts: [A, B, C] }] }))).toBe('behind e7');
  });
  it('a certificate with pend needs a majority of each pending set too', () => {
    const terms = { e: 5, primary: D, hosts: [B, C, D], prev: { e: 3, hosts: [B, C, D] }, pend: [e4] };
    expect(certShapeFault({ ...terms, grants: [g(D), g(C)] })).toBe('no-pending-majority');
    expect(certShapeFault({ ...terms, grants: [g(D), g(C), g(E)] })).toBeNull();
    // At or below the previous epoch only another chain's head (a merge), over another set than the previous one, and needing its majority too.
    expect(certShapeFault({ ...terms, pend: [{ e: 3, hosts: [E, B, C] }], grants: [g(D), g(C), g(E)] })).toBeNull();
    const F = id(6);
    expect(certShapeFault({ ...terms, pend: [{ e: 3, hosts: [E, A, F] }], grants: [g(D), g(C), g(E)] })).toBe('no-pending-majority');
    expect(certShapeFault({ ...terms, pend: [{ e: 3, hosts: [B, C, D] }], grants: [g(D), g(C), g(E)] })).toBe('epoch-range');
    expect(certShapeFault({ ...terms, prev: { e: 3, hosts: [A, B, C] }, rebase: true, pend: [{ e: 2, hosts: [E, B, C] }], grants: [g(D), g(C), g(B)] })).toBe('epoch-range');
  });
  it('such a certificate succeeds a held e4 it covered, not one it did not', () => {
    const c5: EpochCert = { e: 5, primary: D, hosts: [B, C, D], prev: { e: 3, hosts: [B, C, D] }, pend: [e4], grants: [] };
    expect(succeeds(c5, cert(4, E, [E, B, C]))).toBe(true);
    expect(succeeds(c5, cert(4, E, [E, A, C]))).toBe(false);
    expect(succeeds(c5, cert(3, B, [B, C, D]))).toBe(true);
    // An e4 of its own set: the majority of it that granted c5 stands for e4 (no pend entry names it).
    expect(succeeds(c5, cert(4, B, [B, C, D]))).toBe(true);
    expect(succeeds(c5, cert(4, B, [A, B, D]))).toBe(false);
  });
  it('a rebase names the set it rebases over; one from outside that set is well formed (cert-anchor.ts decides it by whether that set is far)', () => {
    const terms = { e: 9, primary: E, hosts: [E, A], prev: { e: 8, hosts: [B, C, D] }, rebase: true };
    expect(certShapeFault({ ...terms, grants: [g(E), g(A)] })).toBeNull();
    expect(certShapeFault({ e: 9, primary: E, hosts: [E, A], rebase: true, grants: [g(E), g(A)] })).toBe('stranger-rebase');
    expect(certShapeFault({ ...terms, primary: D, hosts: [D, A], grants: [g(D), g(A)] })).toBeNull();
  });

  it('a refusal carries our newer certificate and an epoch the claim must cover, nothing else', () => {
    const ours = cert(7, A, [A, B, C]);
    expect(refusalNews(ours, [], claim())).toEqual({ cert: ours });
    expect(refusalNews(ours, [], claim({ known: ours }))).toEqual({});
    expect(refusalNews(undefined, [{ e: 5, hosts: [B, C, D] }], claim({ e: 6, known: cert(4, A, [A, B, C]) }))).toEqual({ pend: { e: 5, hosts: [B, C, D] } });
  });
  it('holds our claims back only for a closer host of the set we know, never while a rebase is pending', () => {
    const key = id(9);
    const [near, far] = compareDistance(A, B, key) < 0 ? [A, B] : [B, A];
    expect(defersToCloser(far, key, [A, B], undefined, near, false)).toBe(true);
    expect(defersToCloser(near, key, [A, B], undefined, far, false)).toBe(false);
    expect(defersToCloser(far, key, [far], cert(3, near, [near, far]), near, false)).toBe(true);
    expect(defersToCloser(far, key, [far], undefined, near, false)).toBe(false); // an outsider
    expect(defersToCloser(far, key, [A, B], undefined, near, true)).toBe(false);
  });
  it('the same claim said again gets the same grant, only while our promise is still its', () => {
    const last = { e: 6, to: idToHex(C), hosts: [C, B, A], sig: { id: B, a: 0 as const, k: new Uint8Array(65), s: new Uint8Array(72) } };
    expect(grantsAgain(last, 6, idToHex(C), claim())).toBe(true);
    expect(grantsAgain(last, 7, idToHex(C), claim())).toBe(false);
    expect(grantsAgain(last, 6, idToHex(C), claim({ hosts: [A, B, D] }))).toBe(false);
    expect(grantsAgain(undefined, 6, idToHex(C), claim())).toBe(false);
  });
});
