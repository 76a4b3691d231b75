// The role machine's moves on their own: what each move leaves behind, and the moves that
// must not undo another (a failed claim after a grant moved us; a SYNC from the same primary).
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import type { EpochCert } from '../region/epoch-cert';
import { RoleMachine } from './role-machine';

const id = (n: number): NodeId => new Uint8Array(20).fill(n);
const [SELF, P, B, C] = [id(1), id(2), id(3), id(4)];
const cert = (e: number, primary: NodeId, hosts = [primary, SELF, B]): EpochCert => ({ e, primary, hosts, grants: [] });

describe('RoleMachine', () => {
  it('a failed claim goes back to the role before it, unless a grant moved us meanwhile', () => {
    const m = new RoleMachine();
    const before = m.startClaim();
    expect([before, m.role]).toEqual(['idle', 'claiming']);
    m.claimFailed(before);
    expect(m.role).toBe('idle');
    const again = m.startClaim();
    m.granted(5, P, [P, SELF, B], true, 100);
    m.claimFailed(again);
    expect([m.role, m.epoch, m.primaryHex, m.lastHeard, m.applied]).toEqual(['backup', 5, idToHex(P), 100, undefined]);
  });

  it('a grant to a set that leaves us out makes us idle, still pointing at the claimant', () => {
    const m = new RoleMachine();
    m.granted(3, P, [P, B, C], false, 7);
    expect([m.role, m.epoch, m.primaryHex, m.hosts.length]).toEqual(['idle', 3, idToHex(P), 3]);
  });

  it('a SYNC of the same primary and epoch keeps what was applied; a new primary or epoch starts over', () => {
    const m = new RoleMachine();
    m.followed(cert(4, P), P, 10);
    m.appliedUpTo(9);
    m.followed(cert(4, P), P, 20);
    expect([m.role, m.applied, m.lastHeard]).toEqual(['backup', 9, 20]);
    m.followed(cert(5, P), P, 30);
    expect(m.applied).toBeUndefined();
    m.appliedUpTo(2);
    m.followed(cert(5, C, [C, SELF, B]), C, 40);
    expect([m.applied, m.primaryHex]).toEqual([undefined, idToHex(C)]);
  });

  it('primary, then released: no primary followed, the handoff target kept apart', () => {
    const m = new RoleMachine();
    m.handedOffTo('ab', 5);
    m.becamePrimary(cert(6, SELF), SELF);
    expect([m.role, m.epoch, m.primaryHex, m.handoffTo]).toEqual(['primary', 6, idToHex(SELF), '']);
    m.released('backup', 50);
    m.handedOffTo(idToHex(C));
    expect([m.role, m.primary, m.primaryHex, m.lastHeard, m.handoffTo, m.epoch]).toEqual(['backup', undefined, '', 50, idToHex(C), 6]);
    m.handoffOver();
    expect(m.handoffTo).toBe('');
  });

  it('silence only moves backwards; a restore never lowers the epoch', () => {
    const m = new RoleMachine();
    m.heard(100);
    m.silentSince(40);
    m.silentSince(70);
    expect(m.lastHeard).toBe(40);
    m.forgetPrimaryVoice();
    expect(m.lastHeard).toBe(-Infinity);
    m.restored(8, [P, SELF]);
    m.restored(3, undefined);
    expect([m.epoch, m.hosts.length]).toEqual([8, 2]);
  });
});
