// The commit pipeline's rules on their own (commit-machine.ts: no wire, clock or store): what
// each input decides, as the effects the shell would perform.
import { describe, expect, it } from 'vitest';
import { LatencySamples } from '../core/latency-samples';
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { entryKey, RegionState } from '../region/region-state';
import type { RejectReason, SubscriptionMessageOf } from '../region/subscription-messages';
import type { CommitEffect } from './commit-effects';
import { CommitMachine, type CommitOptions, type EditJudge } from './commit-machine';
import { EditValidator } from './edit-validator';
import { HOST_DEFAULTS, newHostStats } from './host-options';
import { requestTag, RequestLog } from './request-log';

const id = (n: number): NodeId => new Uint8Array(20).fill(n);
const [SELF, B1, B2, ED, ED2] = [id(1), id(2), id(3), id(9), id(10)];
const E = 5;
const LEASE = HOST_DEFAULTS.leaseMs;

function machine(o: Partial<CommitOptions> = {}, hosts: NodeId[] = [SELF, B1, B2], judge?: EditJudge) {
  const terms = {
    e: E,
    stopped: false,
    hosts,
    backups: () => terms.hosts.filter((h) => !idEquals(h, SELF)),
    get hostCount() {
      return terms.hosts.length;
    },
  };
  const region = { state: new RegionState(), requests: new RequestLog(60_000) };
  const stats = newHostStats();
  const latency = { store: new LatencySamples(), ack: new LatencySamples(), commit: new LatencySamples(), confirm: new LatencySamples() };
  /** Edits at these x are refused (the judge: edit-validator.ts in the shell). */
  const refuse = new Map<number, RejectReason>();
  const opts: CommitOptions = { leaseMs: LEASE, backupQuietMs: 1500, confirmAcks: 1, maxOffered: 1000, offerPerTick: 100, showPending: false, ...o };
  const m = new CommitMachine(terms, region, judge ?? ((_hex, edit) => refuse.get(edit.x)), opts, stats, latency);
  // Both backups granted our claim at 0: the lease holds until LEASE.
  m.lease.start(0, new Set(terms.backups().map(idToHex)), 0);
  return { m, terms, region, stats, refuse };
}

const edit = (r: number, x: number, blockId = 1): SubscriptionMessageOf<'EDIT'> => ({ t: 'EDIT', rx: 0, rz: 0, r, x, y: 10, z: 2, id: blockId, px: x, py: 10, pz: 2 });
const keyOf = (x: number) => entryKey(0, x, 10, 2);
const of = <T extends CommitEffect['t']>(fx: CommitEffect[], t: T) => fx.filter((f): f is Extract<CommitEffect, { t: T }> => f.t === t);
const confirms = (fx: CommitEffect[]) => of(fx, 'confirm').map((c) => [c.r, c.e, c.s]);
const batchOf = (fx: CommitEffect[]) => of(fx, 'replicate')[0]!.batch;

describe('commit machine', () => {
  it('commits once confirmAcks backups hold a batch, and confirms it only once our store holds it too', () => {
    const { m } = machine({ confirmAcks: 2 });
    const ordered = m.edit(ED, idToHex(ED), edit(1, 3), 10);
    expect(ordered.map((f) => f.t)).toEqual(['accepted', 'replicate', 'persist']);
    const batch = batchOf(ordered);
    expect([batch.from, batch.to]).toEqual([1, 1]);
    // One of two acks needed: nothing committed yet.
    expect(m.ack(idToHex(B1), 1, undefined, 20)).toEqual([]);
    expect(m.committed).toBe(0);
    // Our store holds it, but only one backup: still not committed, so not confirmed.
    expect(m.stored(batch, 25)).toEqual([]);
    // The second ack commits (DELTA) and, the store holding it already, confirms.
    const fx = m.ack(idToHex(B2), 1, undefined, 30);
    expect(fx.map((f) => f.t)).toEqual(['delta', 'confirming', 'confirm']);
    expect(of(fx, 'delta')[0]).toMatchObject({ from: 1, to: 1 });
    expect(confirms(fx)).toEqual([[1, E, 1]]);
    expect(m.committed).toBe(1);
  });

  it('shows a batch to the subscribers as it is ordered (pending), but it enters the state only at its commit', () => {
    const { m, region } = machine({ showPending: true });
    const ordered = m.edit(ED, idToHex(ED), edit(1, 3), 10);
    expect(ordered.map((f) => f.t)).toEqual(['accepted', 'replicate', 'persist', 'pending']);
    expect(of(ordered, 'pending')[0]!.batch).toBe(batchOf(ordered));
    expect(region.state.get(keyOf(3))).toBeUndefined();
    expect(m.ack(idToHex(B1), 1, undefined, 20).map((f) => f.t)).toEqual(['delta']);
    expect(region.state.get(keyOf(3))).toMatchObject({ id: 1, e: E, s: 1 });
    // Not ordered (no lease): not shown either.
    expect(m.edit(ED, idToHex(ED), edit(2, 4), 5000).map((f) => f.t)).toEqual([]);
  });

  it('never confirms before the store write finished (committed on an ack, confirmed on `stored`)', () => {
    const { m } = machine();
    const batch = batchOf(m.edit(ED, idToHex(ED), edit(1, 3), 10));
    const acked = m.ack(idToHex(B1), 1, undefined, 20);
    expect(acked.map((f) => f.t)).toEqual(['delta']);
    expect(m.commit(30)).toEqual([]);
    expect(confirms(m.stored(batch, 40))).toEqual([[1, E, 1]]);
    expect(m.confirmed).toBe(1);
  });

  it('a batch holds each block once: the later edit replaces the earlier, both confirmed with their own stamps', () => {
    const { m, stats } = machine();
    // The lease is gone at 1000 (nothing heard since 0): both edits queue.
    expect(m.edit(ED, idToHex(ED), edit(1, 3, 1), 1000)).toEqual([]);
    expect(m.edit(ED2, idToHex(ED2), edit(2, 3, 4), 1001)).toEqual([]);
    expect(stats.leaseWaits).toBe(2);
    expect(m.queued).toBe(2);
    // A backup answers a beat: the lease is back, the queue is ordered as one batch at once.
    m.lease.beat(0, 1002);
    const batch = batchOf(m.ack(idToHex(B1), 0, 0, 1010));
    expect(batch.entries).toEqual([{ key: keyOf(3), id: 4, e: E, s: 2 }]);
    expect(batch.waiters.map((w) => w.s)).toEqual([1, 2]);
    m.ack(idToHex(B1), 2, undefined, 1020);
    expect(confirms(m.stored(batch, 1030))).toEqual([[1, E, 1], [2, E, 2]]);
  });

  it("charges a player's rate when its edits arrived: a backlog that queued for the lease at the allowed pace is not refused 'rate'", () => {
    // The shell's judge, the real rules: 20 edits a second, a burst of 20, per player.
    const rules = new EditValidator({ rx: 0, rz: 0 });
    const judge: EditJudge = (_hex, e, now, arrivedAt) => rules.check('player', { x: e.x, y: e.y, z: e.z, id: e.id, px: e.px, py: e.py, pz: e.pz }, now, undefined, arrivedAt);
    const { m, stats } = machine({}, [SELF, B1, B2], judge);
    // The lease is gone from LEASE on; 36 edits arrive 62.5 ms apart (16 a second, the
    // client's pace: play/submitted-edits.ts EDIT_PACE) and queue, 2.25 s in all.
    let t = 1000;
    for (let r = 1; r <= 36; r++, t += 62.5) expect(m.edit(ED, idToHex(ED), edit(r, r % 30), t)).toEqual([]);
    expect(m.queued).toBe(36);
    // The lease is back: the whole queue is judged now, each edit at the time it arrived.
    m.lease.beat(0, t);
    const fx = m.ack(idToHex(B1), 0, 0, t + 5);
    expect(of(fx, 'reject')).toEqual([]);
    expect(batchOf(fx).waiters).toHaveLength(36);
    expect(stats.editRefusals.rate).toBe(0);
    // A flood is still refused: 30 more at one instant, past the burst.
    const flood = Array.from({ length: 30 }, (_, i) => m.edit(ED, idToHex(ED), edit(100 + i, i), t + 10)).flat();
    expect(of(flood, 'reject').length).toBeGreaterThan(0);
    expect(of(flood, 'reject').every((f) => f.reason === 'rate')).toBe(true);
  });

  it('a re-sent request is ordered once: confirmed with its first stamp, in this epoch or an earlier one', () => {
    const { m, region, stats } = machine();
    const batch = batchOf(m.edit(ED, idToHex(ED), edit(7, 3), 10));
    // The editor re-sends before its CONFIRM: no new seq, no new batch; it waits with the first.
    expect(m.edit(ED, idToHex(ED), edit(7, 3), 15)).toEqual([]);
    expect(m.seq).toBe(1);
    m.ack(idToHex(B1), 1, undefined, 20);
    expect(confirms(m.stored(batch, 30))).toEqual([[7, E, 1]]);
    // Re-sent once more after the CONFIRM (it was lost): confirmed at once, still s1.
    expect(confirms(m.edit(ED, idToHex(ED), edit(7, 3), 40))).toEqual([[7, E, 1]]);
    // Ordered by a predecessor (e4 s3) and superseded there by e4 s9: confirmed with its old
    // stamp, not applied again over the later edit.
    region.requests.remember(requestTag(idToHex(ED), 8, keyOf(6), 1), { e: 4, s: 3 }, 0);
    region.state.merge([{ key: keyOf(6), id: 2, e: 4, s: 9 }]);
    expect(confirms(m.edit(ED, idToHex(ED), edit(8, 6), 50))).toEqual([[8, 4, 3]]);
    expect(m.seq).toBe(1);
    expect(stats.duplicateEdits).toBe(3);
  });

  it('confirms with its first stamp, unjudged and not ordered again, a re-send of an edit a predecessor ordered that our state holds', () => {
    const { m, region, refuse, stats } = machine();
    // The predecessor ordered it as e4 s3 just before it died (never confirmed); our state
    // holds it, and the judge would now refuse it (this host has not seen the player's pass).
    region.requests.remember(requestTag(idToHex(ED), 8, keyOf(6), 1), { e: 4, s: 3 }, 0);
    region.state.merge([{ key: keyOf(6), id: 1, e: 4, s: 3 }]);
    refuse.set(6, 'unknown-player');
    // Ordered again, every subscriber was shown it twice (e4s3, then e5s1).
    const fx = m.edit(ED, idToHex(ED), edit(8, 6), 10);
    expect(of(fx, 'reject')).toEqual([]);
    expect(of(fx, 'replicate')).toEqual([]);
    expect(confirms(fx)).toEqual([[8, 4, 3]]);
    expect(m.seq).toBe(0);
    expect(region.state.get(keyOf(6))).toMatchObject({ id: 1, e: 4, s: 3 });
    // A new edit of the same player is judged as ever.
    expect(m.edit(ED, idToHex(ED), edit(9, 6, 2), 20)).toEqual([{ t: 'reject', to: ED, r: 9, reason: 'unknown-player' }]);
    expect(stats.editsRejected).toBe(1);
  });

  it('orders again, unjudged, a re-send of an edit a predecessor ordered that our state lacks (a refusal now would contradict its first ordering)', () => {
    const { m, region, refuse } = machine();
    // Known to the request log (a granter's), not to our state: the predecessor's batch did
    // not reach the state we began from.
    region.requests.remember(requestTag(idToHex(ED), 8, keyOf(6), 1), { e: 4, s: 3 }, 0);
    refuse.set(6, 'unknown-player');
    const fx = m.edit(ED, idToHex(ED), edit(8, 6), 10);
    expect(of(fx, 'reject')).toEqual([]);
    expect(batchOf(fx).entries).toEqual([{ key: keyOf(6), id: 1, e: E, s: 1 }]);
    // The same request id for another block id (a player reusing it): another edit, judged and ordered as its own.
    refuse.delete(6);
    expect(batchOf(m.edit(ED, idToHex(ED), edit(8, 6, 2), 20)).entries).toEqual([{ key: keyOf(6), id: 2, e: E, s: 2 }]);
  });

  it('a send that fails changes nothing decided: the batch waits for acks; inputs it refuses change no state', () => {
    const { m, refuse, region, stats } = machine();
    // The REPLICATE never arrives: no ack, nothing committed or confirmed, the batch stays
    // (the heartbeat's re-sync sends it again) however often the tick and the store come.
    const batch = batchOf(m.edit(ED, idToHex(ED), edit(1, 3), 10));
    expect([...m.stored(batch, 20), ...m.commit(30), ...m.order(40)]).toEqual([]);
    expect(m.batches).toEqual([batch]);
    expect(region.state.size).toBe(0);
    // An ack from outside the host set, or beyond what we sent, commits nothing to come.
    expect(m.ack(idToHex(ED), 1, undefined, 50)).toEqual([]);
    expect(m.ack(idToHex(B1), 1_000_000, undefined, 60).map((f) => f.t)).toEqual(['delta', 'confirming', 'confirm']);
    const next = batchOf(m.edit(ED, idToHex(ED), edit(2, 4), 70));
    expect(m.stored(next, 80)).toEqual([]);
    expect(m.committed).toBe(1);
    // An edit the judge refuses takes no seq and no place in the request log: re-sent once
    // acceptable, it is ordered (not confirmed as a duplicate of nothing).
    refuse.set(5, 'out-of-reach');
    expect(m.edit(ED, idToHex(ED), edit(3, 5), 90)).toEqual([{ t: 'reject', to: ED, r: 3, reason: 'out-of-reach' }]);
    expect([m.seq, stats.editsRejected]).toEqual([2, 1]);
    refuse.clear();
    expect(batchOf(m.edit(ED, idToHex(ED), edit(3, 5), 95)).entries.map((e) => e.s)).toEqual([3]);
  });

  it('stops ordering, committing and confirming when the lease runs out, and resumes with it', () => {
    const { m, stats } = machine();
    const batch = batchOf(m.edit(ED, idToHex(ED), edit(1, 3), 120));
    // The ack of the batch sent at 120 holds the lease until 120 + LEASE.
    expect(m.ack(idToHex(B1), 1, undefined, 130).map((f) => f.t)).toEqual(['delta']);
    // Our store write finishes after the lease ran out: committed, but not confirmed.
    const late = 120 + LEASE;
    expect(m.stored(batch, late)).toEqual([]);
    expect(stats.leaseWaits).toBe(1);
    // Nor is a new edit ordered, nor does the tick confirm.
    expect(m.edit(ED, idToHex(ED), edit(2, 4), late + 1)).toEqual([]);
    expect(m.commit(late + 2)).toEqual([]);
    expect(m.confirmed).toBe(1);
    // The backup answers a new beat: the edit that waited is ordered and the stored batch
    // confirmed at once, not at the next tick.
    m.lease.beat(1, late + 10);
    const back = m.ack(idToHex(B1), 1, 1, late + 20);
    expect(batchOf(back).from).toBe(2);
    expect(confirms(back)).toEqual([[1, E, 1]]);
    expect(m.commit(late + 21)).toEqual([]);
  });

  it("holds the lease from a backup's ack of our first SYNC, and orders the edits that waited for it at once", () => {
    const { m, stats } = machine();
    // Certified LEASE + 50 after the claim went out (a loaded machine): the grants hold no lease.
    const start = LEASE + 50;
    m.lease.syncSent(idToHex(B1), start);
    m.lease.syncSent(idToHex(B2), start);
    // A re-sync later counts no later: an ack may answer the first.
    m.lease.syncSent(idToHex(B1), start + 500);
    expect(m.edit(ED, idToHex(ED), edit(1, 3), start + 40)).toEqual([]);
    expect(stats.leaseWaits).toBe(1);
    // B1 acks its SYNC (no beat, no batch before it): it follows us since a frame sent at `start`.
    const fx = m.ack(idToHex(B1), 0, undefined, start + 60);
    expect(batchOf(fx).entries.map((e) => e.key)).toEqual([keyOf(3)]);
    expect(m.lease.held(start + LEASE - 1)).toBe(true);
    expect(m.lease.held(start + LEASE)).toBe(false);
  });

  it('with no backup, our store write is the second copy: it commits and confirms', () => {
    const { m } = machine({}, [SELF]);
    const batch = batchOf(m.edit(ED, idToHex(ED), edit(1, 3), 10));
    expect(m.stored(batch, 20).map((f) => f.t)).toEqual(['delta', 'confirming', 'confirm']);
  });

  it('release hands accepted edits to the state and tells their editors busy; offers adopt only what we lack', () => {
    const { m, region, stats } = machine();
    const batch = batchOf(m.edit(ED, idToHex(ED), edit(1, 3, 4), 10));
    m.offer([{ key: keyOf(3), id: 1, e: 2, s: 1 }, { key: keyOf(8), id: 1, e: 2, s: 1 }, { key: keyOf(9), id: 1, e: E, s: 1 }]);
    expect(stats.offersRefused).toBe(1); // stamped in our epoch: forged
    const adopted = batchOf(m.order(20));
    expect(adopted.entries).toEqual([{ key: keyOf(8), id: 1, e: E, s: 2 }]);
    expect(m.release()).toEqual([{ t: 'reject', to: ED, r: 1, reason: 'busy' }]);
    expect(region.state.get(keyOf(3))).toEqual({ key: keyOf(3), id: 4, e: E, s: 1 });
    expect(m.batches).toEqual([]);
    expect(batch.to).toBe(1);
  });

  it('confirms nothing once stopped: a store write that lands after a step down leaves the editors to re-send', () => {
    const { m, terms } = machine();
    const batch = batchOf(m.edit(ED, idToHex(ED), edit(1, 3), 10));
    expect(m.ack(idToHex(B1), 1, undefined, 20).map((f) => f.t)).toEqual(['delta']);
    // A successor's certificate made us step down (the grant moved the region's epoch and
    // hosts) while our write was in flight; B1, still acking within leaseMs, is in its set.
    terms.stopped = true;
    terms.e = E + 1;
    terms.hosts = [B1, SELF, B2];
    m.stepDown();
    expect(m.stored(batch, 30)).toEqual([]);
  });
});
