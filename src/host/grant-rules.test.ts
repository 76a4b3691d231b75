import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import type { EpochCert } from './epoch-cert';
import { grantRefusal, type ClaimFrame, type GranterView } from './grant-rules';

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
    expect(grantRefusal(view(), claim({ e: 5 + 65, known: cert(5, A, [A, B, C]) }))).toBe('epoch-range');
    expect(grantRefusal(view({ cert: undefined }), claim({ e: 0xffffffff, known: undefined }))).toBe('epoch-range');
    expect(grantRefusal(view({ cert: undefined, promised: 0, stateEpoch: 0 }), claim({ e: 100, known: undefined }))).toBe('epoch jump');
  });
  it('refuses a claimant behind our certificate or on another chain', () => {
    expect(grantRefusal(view({ cert: cert(7, A, [A, B, C]), promised: 7 }), claim({ e: 8 }))).toBe('behind e7');
    expect(grantRefusal(view({ cert: cert(7, A, [A, B, C]), promised: 7 }), claim({ e: 8, known: undefined }))).toBe('behind e7');
    expect(grantRefusal(view(), claim({ known: cert(5, D, [D, B, C]) }))).toBe('other certificate');
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
