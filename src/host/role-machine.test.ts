// The role machine's moves on their own: what each move leaves behind, the moves that
// must not undo another (a failed claim after a grant moved us; a SYNC from the same primary),
// and the moves it refuses (from a role that does not lead there; below the firm epoch).
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
    m.claimFailed(before!);
    expect(m.role).toBe('idle');
    const again = m.startClaim();
    m.granted(5, P, [P, SELF, B], true, 100);
    m.claimFailed(again!);
    expect([m.role, m.epoch, m.primaryHex, m.lastHeard, m.applied]).toEqual(['backup', 5, idToHex(P), 100, undefined]);
  });

  it('a grant to a set that leaves us out makes us idle, still pointing at the claimant', () => {
    const m = new RoleMachine();
    m.granted(3, P, [P, B, C], false, 7);
    expect([m.role, m.epoch, m.primaryHex, m.hosts.length]).toEqual(['idle', 3, idToHex(P), 3]);
  });

  it('a SYNC of the same primary and epoch keeps what was applied; a new primary or epoch starts over', () => {
    const m = new RoleMachine();
    m.followed(cert(4, P), P, 10, 'anchored');
    m.appliedUpTo(9);
    m.followed(cert(4, P), P, 20, 'anchored');
    expect([m.role, m.applied, m.lastHeard]).toEqual(['backup', 9, 20]);
    m.followed(cert(5, P), P, 30, 'anchored');
    expect(m.applied).toBeUndefined();
    m.appliedUpTo(2);
    m.followed(cert(5, C, [C, SELF, B]), C, 40, 'anchored');
    expect([m.applied, m.primaryHex]).toEqual([undefined, idToHex(C)]);
  });

  it('primary, then released: no primary followed, the handoff target kept apart', () => {
    const m = new RoleMachine();
    m.handedOffTo('ab', 5);
    m.startClaim();
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

  it('refuses a move from a role that does not lead there, and stays as it was', () => {
    const refused: string[] = [];
    const m = new RoleMachine((move, why) => refused.push(`${move} ${why}`));
    expect(m.becamePrimary(cert(3, SELF), SELF)).toBe(false);
    expect(m.steppedDown(10)).toBe(false);
    expect(m.released('idle', 10)).toBe(false);
    expect(m.notOurs()).toBe(false);
    expect([m.role, m.epoch]).toEqual(['idle', 0]);
    m.startClaim();
    expect(m.startClaim()).toBeUndefined();
    m.becamePrimary(cert(3, SELF), SELF);
    // A primary stops its duty (steps down) before it follows, grants or stands aside.
    expect(m.followed(cert(4, P), P, 20, 'anchored')).toBe(false);
    expect(m.granted(4, P, [P, SELF, B], true, 20)).toBe(false);
    expect(m.stoodAside(cert(4, P, [P, B, C]), 'anchored')).toBe(false);
    expect(m.startClaim()).toBeUndefined();
    expect([m.role, m.epoch, m.primaryHex]).toEqual(['primary', 3, idToHex(SELF)]);
    expect(refused).toEqual([
      'becamePrimary from idle', 'steppedDown from idle', 'released from idle', 'notOurs from idle', 'startClaim from claiming',
      'followed from primary', 'granted from primary', 'stoodAside from primary', 'startClaim from primary',
    ]);
  });

  it('the epoch never falls below one taken firmly; a learnt one may be replaced from below', () => {
    const refused: string[] = [];
    const m = new RoleMachine((move, why) => refused.push(`${move} ${why}`));
    m.granted(6, P, [P, SELF, B], true, 10);
    expect(m.followed(cert(5, C, [C, SELF, B]), C, 20, 'anchored')).toBe(false);
    expect(m.granted(5, C, [C, SELF, B], true, 20)).toBe(false);
    expect(m.stoodAside(cert(4, C, [C, B]), 'anchored')).toBe(false);
    expect([m.role, m.epoch, m.primaryHex, m.floor]).toEqual(['backup', 6, idToHex(P), 6]);
    // An attacker's learnt certificate far above: not firm, so an anchored one below it (but not below 6) replaces it.
    expect(m.stoodAside(cert(2 ** 24 - 1, C, [C, B]), 'learnt')).toBe(true);
    expect([m.role, m.epoch, m.floor]).toEqual(['idle', 2 ** 24 - 1, 6]);
    expect(m.followed(cert(7, P), P, 30, 'anchored')).toBe(true);
    expect([m.role, m.epoch, m.floor]).toEqual(['backup', 7, 7]);
    // Read back from the store: not firm either.
    m.restored(9, undefined);
    expect(m.granted(8, C, [C, SELF, B], true, 40)).toBe(true);
    expect(m.epoch).toBe(8);
    m.startClaim();
    expect(m.becamePrimary(cert(7, SELF), SELF)).toBe(false);
    expect(m.becamePrimary(cert(9, SELF), SELF)).toBe(true);
    expect(refused).toEqual(['followed epoch 5 below 6', 'granted epoch 5 below 6', 'stoodAside epoch 4 below 6', 'becamePrimary epoch 7 below 8']);
  });

  it("an abandoned grant takes us back to whom we followed before it, heard when its refused frames last came", () => {
    const m = new RoleMachine();
    m.followed(cert(4, P), P, 10, 'anchored');
    m.appliedUpTo(9);
    m.granted(5, C, [C, SELF, B], true, 100);
    expect([m.role, m.epoch, m.primaryHex, m.floor]).toEqual(['backup', 5, idToHex(C), 5]);
    expect(m.grantUndoable(5, idToHex(B))).toBe(false);
    m.formerSpoke(idToHex(B), 150); // not the primary we followed
    m.formerSpoke(idToHex(P), 120);
    expect(m.grantAbandoned(5, idToHex(C))).toBe(true);
    expect([m.role, m.epoch, m.primaryHex, m.floor, m.lastHeard, m.applied]).toEqual(['backup', 4, idToHex(P), 4, 120, 9]);
    // Once: a second ABANDON (said again) changes nothing.
    expect(m.grantAbandoned(5, idToHex(C))).toBe(false);
  });

  it('an abandoned grant is not undone once something else moved us', () => {
    const m = new RoleMachine();
    m.followed(cert(4, P), P, 10, 'anchored');
    m.granted(5, C, [C, SELF, B], true, 100);
    m.followed(cert(6, B, [B, SELF, C]), B, 200, 'anchored');
    expect(m.grantUndoable(5, idToHex(C))).toBe(false);
    const n = new RoleMachine();
    n.granted(5, C, [C, SELF, B], true, 100);
    const before = n.startClaim();
    expect(n.grantUndoable(5, idToHex(C))).toBe(false);
    n.claimFailed(before!);
    expect(n.grantAbandoned(5, idToHex(C))).toBe(true);
    expect([n.role, n.epoch, n.primaryHex, n.floor]).toEqual(['idle', 0, '', 0]);
  });

  it('a frame refused during our own claim from the primary it replaces counts as hearing it', () => {
    const m = new RoleMachine();
    m.followed(cert(4, P), P, 10, 'anchored');
    m.startClaim();
    m.forgetPrimaryVoice();
    m.formerSpoke(idToHex(B), 50);
    expect(m.lastHeard).toBe(-Infinity);
    m.formerSpoke(idToHex(P), 60);
    expect(m.lastHeard).toBe(60);
  });
});
