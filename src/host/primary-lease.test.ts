// The lease's rules on their own (primary-lease.ts: no clock or wire): a majority's answers
// to frames sent less than leaseMs ago hold it; no answer to a beat for backupQuietMs means
// a backup is quiet, and a majority of them means we stop being primary.
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { LATE_ACK_MS, PrimaryLease } from './primary-lease';

const id = (n: number): NodeId => new Uint8Array(20).fill(n);
const [B1, B2, B3, B4] = [id(2), id(3), id(4), id(5)];
const O = { leaseMs: 250, backupQuietMs: 1500, confirmAcks: 1 };

function lease(backups: NodeId[]) {
  const terms = { backups: () => backups, hostCount: backups.length + 1 };
  return new PrimaryLease(terms, O);
}

describe('primary lease', () => {
  it('is held while a majority (us included) answered a frame sent less than leaseMs ago', () => {
    const l = lease([B1, B2, B3, B4]); // 5 hosts: we and two backups
    l.start(0, new Set(), 0);
    l.beat(0, 100);
    l.heard(idToHex(B1), l.beatAt(0));
    expect(l.held(110)).toBe(false);
    l.heard(idToHex(B2), 100);
    expect(l.held(349)).toBe(true);
    expect(l.held(350)).toBe(false);
    // An answer to an older frame renews nothing.
    l.heard(idToHex(B1), 50);
    expect(l.held(350)).toBe(false);
  });

  it('holds from the claim for the backups that granted it', () => {
    const l = lease([B1, B2]);
    l.start(1000, new Set([idToHex(B1)]), 900);
    expect(l.held(1149)).toBe(true);
    expect(l.held(1150)).toBe(false);
  });

  it('a backup is quiet after backupQuietMs without an answer; no majority answering a beat ends our duty', () => {
    const l = lease([B1, B2]);
    l.start(0, new Set(), 0);
    expect(l.quiet(idToHex(B1), 1500)).toBe(false);
    expect(l.quiet(idToHex(B1), 1501)).toBe(true);
    // An idle region beats rarely: silence counts from the first beat left unanswered.
    l.beat(0, 100);
    l.heard(idToHex(B1), 100);
    l.beat(1, 2000);
    expect(l.unanswered(3000)).toBe(false);
    expect(l.unanswered(3501)).toBe(true);
    l.heard(idToHex(B2), l.beatAt(1));
    expect(l.unanswered(3501)).toBe(false);
  });

  it('a backup that answered late lately is slow; one that answered on time, then nothing, is not', () => {
    const l = lease([B1, B2]);
    l.start(0, new Set(), 0);
    l.beat(0, 100);
    l.heard(idToHex(B1), l.beatAt(0), 150); // on time
    l.heard(idToHex(B2), l.beatAt(0), 100 + LATE_ACK_MS); // a starved tab's answer
    expect(l.quiet(idToHex(B1), 2000) && l.quiet(idToHex(B2), 2000)).toBe(true);
    expect(l.slow(idToHex(B1), 2000, 5000)).toBe(false);
    expect(l.slow(idToHex(B2), 2000, 5000)).toBe(true);
    expect(l.slow(idToHex(B2), 5400 + LATE_ACK_MS, 5000)).toBe(false);
  });

  it('too many refusals leave no backup to confirm with, until the refuser acks again', () => {
    const l = lease([B1, B2]);
    expect(l.refusedBy(idToHex(B1))).toBe(false);
    expect(l.refusedBy(idToHex(B2))).toBe(true);
    l.answered(idToHex(B2));
    expect(l.refusedBy(idToHex(B1))).toBe(false);
  });
});
