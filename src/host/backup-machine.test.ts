// The backup's rules on their own (backup-machine.ts: no wire, clock or store): which frames
// it takes, in what order, when it asks for a SYNC, what it acks and when it claims.
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import type { EpochCert } from '../region/epoch-cert';
import { encodeEntries, RegionState, type Entry } from '../region/region-state';
import { BackupMachine, type FollowRecord } from './backup-machine';
import type { ReplicationMessageOf } from './replication-messages';
import { RequestLog } from './request-log';
import { RoleMachine } from './role-machine';
import { ProofRing } from './state-proofs';
import { AIR, WATER } from '../world/blocks';
import { blockIndex } from '../world/coords';

const id = (n: number): NodeId => new Uint8Array(20).fill(n);
const [P, SELF, B2, OTHER] = [id(1), id(2), id(3), id(7)];
const E = 4;
const O = { heartbeatMs: 100, failoverMs: 600, idleHeartbeatMs: 2000, claimStaggerMs: 400 };
/** Blocks five above the unbreakable floor (y = 0: no entry may set one there). */
const Y5 = blockIndex(0, 5, 0);
const entry = (key: number, s: number, e = E): Entry => ({ key: Y5 + key, id: 1, e, s });

const cert = (primary = P): EpochCert => ({ e: E, primary, hosts: [P, SELF, B2], grants: [] });

/** The region's record as the machine sees it; the subscribers it hears of kept in `knownSubs`. */
function followRecord(): FollowRecord & { knownSubs: NodeId[] } {
  const rec = { knownSubs: [] as NodeId[], heardSubs: (ids: NodeId[]) => void (rec.knownSubs = ids), state: new RegionState(), requests: new RequestLog(60_000), cert: cert(), proofs: new ProofRing(1000, 10) };
  return rec;
}

function backup(applied?: number) {
  const rec = followRecord();
  const roles = new RoleMachine();
  roles.heard(0);
  if (applied !== undefined) roles.appliedUpTo(applied);
  const terms = { promised: E, following: idToHex(P), isCurrentPrimary: (hex: string, e: number) => hex === terms.following && e === E };
  const stats = { staleFrames: 0, badCerts: 0, entriesAgainstRules: 0 };
  return { m: new BackupMachine(SELF, rec, roles, terms, O, stats), rec, roles, terms, stats };
}

const replicate = (from: number, entries: Entry[], e = E, hosts = [P, SELF, B2]): ReplicationMessageOf<'REPLICATE'> =>
  ({ t: 'REPLICATE', rx: 0, rz: 0, e, from, to: from + entries.length - 1, entries: encodeEntries(entries), hosts, reqs: entries.map((x) => [id(9), x.s, x.s] as [NodeId, number, number]) });
const sync = (s: number, entries: Entry[], more?: true): ReplicationMessageOf<'SYNC'> =>
  ({ t: 'SYNC', rx: 0, rz: 0, e: E, s, hosts: [P, SELF, B2], entries: encodeEntries(entries), cert: cert(), ...(more ? { more } : {}) });

describe('backup machine', () => {
  it('applies REPLICATE in order and acks from memory, then writes; a gap asks for a SYNC, once per heartbeat period', () => {
    const { m, rec, roles } = backup(2);
    expect(m.replicate(P, idToHex(P), replicate(3, [entry(10, 3), entry(11, 4)]), 50)).toEqual([{ t: 'ack', to: P, e: E, applied: 4 }, { t: 'persist' }]);
    expect(rec.state.size).toBe(2);
    // The editors' requests travel with the batch: a successor recognises a re-send.
    expect(rec.requests.size).toBe(2);
    // s5 never came: s6 is not applied, the primary is asked for its state.
    expect(m.replicate(P, idToHex(P), replicate(6, [entry(12, 6)]), 60)).toEqual([{ t: 'sync-req', to: P }]);
    expect(m.replicate(P, idToHex(P), replicate(6, [entry(12, 6)]), 100)).toEqual([]);
    expect(m.replicate(P, idToHex(P), replicate(6, [entry(12, 6)]), 160)).toEqual([{ t: 'sync-req', to: P }]);
    expect([roles.applied, rec.state.size]).toEqual([4, 2]);
    // A batch re-sent after we applied it is acked again; what we applied never goes back.
    expect(m.replicate(P, idToHex(P), replicate(3, [entry(10, 3)]), 170)).toEqual([{ t: 'ack', to: P, e: E, applied: 4 }, { t: 'persist' }]);
    expect(roles.lastHeard).toBe(170);
  });

  it("applies nothing against the world's rules from its primary: AIR at the floor, a block no edit could set; the rest of the batch applies and is acked", () => {
    const { m, rec, roles, stats } = backup(0);
    const floorAir: Entry = { key: blockIndex(3, 0, 3), id: AIR, e: E, s: 1 };
    const water: Entry = { key: Y5 + 7, id: WATER, e: E, s: 2 };
    const grass = entry(8, 3);
    expect(m.replicate(P, idToHex(P), replicate(1, [floorAir, water, grass]), 10)).toEqual([{ t: 'ack', to: P, e: E, applied: 3 }, { t: 'persist' }]);
    expect(rec.state.all()).toEqual([grass]);
    expect([roles.applied, stats.entriesAgainstRules]).toEqual([3, 2]);
    // The same in a SYNC: neither applied nor offered back.
    const s = sync(4, [{ ...floorAir, s: 4 }, entry(9, 4)]);
    const fx = m.syncPiece(P, s, m.syncCheck(P, s).entries!, 20);
    expect(fx[0]).toEqual({ t: 'offer', to: P, entries: [entry(9, 4)] });
    expect([rec.state.size, stats.entriesAgainstRules]).toEqual([2, 3]);
  });

  it('keeps the signed batches and SYNC pieces it applied, as they came, under the certificate of their epoch (the evidence a claimant adopts them by)', () => {
    const { m, rec } = backup(0);
    const sig = new Uint8Array(64).fill(5);
    m.replicate(P, idToHex(P), { ...replicate(1, [entry(10, 1)]), sig }, 10);
    // Unsigned, or past a gap: nothing kept.
    m.replicate(P, idToHex(P), replicate(2, [entry(11, 2)]), 20);
    m.replicate(P, idToHex(P), { ...replicate(9, [entry(12, 9)]), sig }, 30);
    expect(rec.proofs.all().map((h) => [h.proof.e, h.proof.f, h.proof.t, h.cert.e])).toEqual([[E, 1, 1, E]]);
    m.syncPiece(P, { ...sync(9, [entry(12, 9)]), sig }, [entry(12, 9)], 40);
    expect(rec.proofs.all().map((h) => [h.proof.f, h.proof.t])).toEqual([[1, 1], [0, 9]]);
    expect(rec.proofs.all()[1]!.proof.b).toEqual(encodeEntries([entry(12, 9)]));
  });

  it('takes nothing from a primary it does not follow: refused below its promise, a SYNC asked for when named a host, else stale', () => {
    const { m, rec, roles, stats } = backup(0);
    expect(m.replicate(OTHER, idToHex(OTHER), replicate(1, [entry(10, 1)], E - 1), 10)).toEqual([{ t: 'refuse', to: OTHER }]);
    expect(m.replicate(OTHER, idToHex(OTHER), replicate(1, [entry(10, 1)], E + 1), 20)).toEqual([{ t: 'sync-req', to: OTHER }]);
    expect(m.replicate(OTHER, idToHex(OTHER), replicate(1, [entry(10, 1)], E + 1, [OTHER, B2]), 200)).toEqual([]);
    expect(m.heartbeat(OTHER, idToHex(OTHER), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E + 1, s: 0, hosts: [OTHER, B2], b: 3 }, 210)).toEqual([]);
    expect([rec.state.size, roles.lastHeard, stats.staleFrames]).toEqual([0, 0, 3]);
    // Nothing applies before the first SYNC of the epoch: a REPLICATE asks for it.
    const fresh = backup();
    expect(fresh.m.replicate(P, idToHex(P), replicate(1, [entry(10, 1)]), 10)).toEqual([{ t: 'sync-req', to: P }]);
    expect(fresh.rec.state.size).toBe(0);
  });

  it('answers each numbered beat (the lease), learns the subscribers, and asks for the state it lacks', () => {
    const { m, rec, roles } = backup();
    const hb = { t: 'HEARTBEAT' as const, rx: 0, rz: 0, e: E, s: 3, hosts: [P, SELF, B2], b: 7, subs: [OTHER] };
    expect(m.heartbeat(P, idToHex(P), hb, 30)).toEqual([{ t: 'sync-req', to: P }, { t: 'ack', to: P, e: E, applied: 0, b: 7 }]);
    expect([roles.lastHeard, rec.knownSubs]).toEqual([30, [OTHER]]);
  });

  it('checks a SYNC before its certificate, takes it in pieces, and acks and offers only at the last piece', () => {
    const { m, rec, roles, stats, terms } = backup();
    expect(m.syncCheck(P, { ...sync(2, []), e: E - 1, cert: { ...cert(), e: E - 1 } })).toEqual({ entries: undefined, effects: [{ t: 'refuse', to: P }] });
    expect(m.syncCheck(P, { ...sync(2, []), cert: cert(OTHER) }).entries).toBeUndefined();
    expect(stats.badCerts).toBe(1);
    expect(m.syncCheck(P, { ...sync(2, []), entries: new Uint8Array([1, 2, 3]) }).entries).toBeUndefined();
    expect(stats.staleFrames).toBe(2);
    terms.following = idToHex(P);
    // Ours holds a newer entry for key 10 and one the primary lacks (key 20).
    rec.state.merge([entry(10, 9, E + 1), entry(20, 1, 1)]);
    const first = sync(2, [entry(10, 1)], true);
    expect(m.syncPiece(P, first, m.syncCheck(P, first).entries!, 40)).toEqual([]);
    expect(roles.applied).toBeUndefined();
    const last = sync(2, [entry(11, 2)]);
    const fx = m.syncPiece(P, last, m.syncCheck(P, last).entries!, 50);
    expect(fx.map((f) => f.t)).toEqual(['offer', 'ack', 'persist']);
    expect(fx[0]).toEqual({ t: 'offer', to: P, entries: [entry(10, 1), entry(11, 2)] });
    expect(fx[1]).toEqual({ t: 'ack', to: P, e: E, applied: 2 });
    // Merged, never replacing what we hold.
    expect(rec.state.get(Y5 + 10)).toEqual(entry(10, 9, E + 1));
    expect(rec.state.size).toBe(3);
  });

  it('claims after failoverMs of silence plus claimStaggerMs per rank (two idle beats more when idle); a closed link is silence', () => {
    const hosts = [P, B2, SELF]; // we rank second among the backups
    const never = () => false;
    const { m, roles } = backup(0);
    expect(m.claimDue(1000, hosts, P, false, never)).toBe(false);
    expect(m.claimDue(1001, hosts, P, false, never)).toBe(true);
    // Held back while someone else's claim is considered.
    expect(m.claimDue(1001, hosts, P, false, () => true)).toBe(false);
    // After a claim of ours, the next waits as long from its (jittered) start; what we heard
    // of the primary stays as it was (the grant rule "primary alive" reads it).
    m.claimed(5000);
    expect(roles.lastHeard).toBe(0);
    expect(m.claimDue(6000, hosts, P, false, never)).toBe(false);
    expect(m.claimDue(6001, hosts, P, false, never)).toBe(true);
    // An idle primary beats every idleHeartbeatMs: two missed beats more before we claim.
    m.heartbeat(P, idToHex(P), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts, idle: true }, 6000);
    expect(m.claimDue(6000 + 1001, hosts, P, false, never)).toBe(false);
    expect(m.claimDue(6000 + 1001 + 2 * O.idleHeartbeatMs, hosts, P, false, never)).toBe(true);
    // Its link closed: as if failoverMs had passed, and no longer idle.
    m.heartbeat(P, idToHex(P), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts, idle: true }, 20_000);
    expect(m.claimDue(20_000, hosts, P, true, never)).toBe(false);
    expect(m.claimDue(20_000 + 401, hosts, P, false, never)).toBe(true);
  });

  it('pings the hosts ahead of a claim once per silence, failoverMs / 2 before the claim is due (its rank counted); a primary heard starts a new silence', () => {
    const hosts = [P, B2, SELF]; // we rank second: our claim is due at 1000
    const { m } = backup(0);
    expect(m.pingDue(700, hosts, P)).toBe(false);
    expect(m.pingDue(701, hosts, P)).toBe(true);
    expect(m.pingDue(800, hosts, P)).toBe(false);
    // Heard again: the next silence pings again, as late in it.
    m.heartbeat(P, idToHex(P), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts }, 2000);
    expect(m.pingDue(2700, hosts, P)).toBe(false);
    expect(m.pingDue(2701, hosts, P)).toBe(true);
    // Nothing for a primary that said it unloads the region (its silence is no death).
    m.heartbeat(P, idToHex(P), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts, idle: true, unload: true }, 3000);
    expect(m.pingDue(3000 + 4 * O.idleHeartbeatMs, hosts, P)).toBe(false);
  });

  it('allows a primary that was slow lately a longer silence (primary-pace.ts), and a closed link none', () => {
    const hosts = [P, SELF, B2]; // we rank first: no stagger
    const never = () => false;
    const PACED = { ...O, slowPrimaryFactor: 2, slowPrimaryMaxMs: 2400, slowPrimaryHalfLifeMs: 10_000 };
    const beat = (m: BackupMachine, at: number) => m.heartbeat(P, idToHex(P), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts }, at);
    const made = () => {
      const rec = followRecord();
      const roles = new RoleMachine();
      roles.appliedUpTo(0);
      const terms = { promised: E, following: idToHex(P), isCurrentPrimary: (hex: string, e: number) => hex === idToHex(P) && e === E };
      return new BackupMachine(SELF, rec, roles, terms, PACED, { staleFrames: 0, badCerts: 0, entriesAgainstRules: 0 });
    };
    // On time (a beat every 100 ms): failoverMs, as before.
    const quick = made();
    for (let t = 0; t <= 1000; t += 100) beat(quick, t);
    expect(quick.claimDue(1000 + 601, hosts, P, false, never)).toBe(true);
    // A starved primary whose beats came up to 450 ms apart: 900 ms of silence allowed.
    const slow = made();
    for (const t of [0, 100, 550, 650, 1000]) beat(slow, t);
    expect(slow.silenceLimit(1000)).toBeGreaterThan(850); // 2 x 450, decayed a little since 550
    expect(slow.claimDue(1000 + 700, hosts, P, false, never)).toBe(false);
    expect(slow.claimDue(1000 + 950, hosts, P, false, never)).toBe(true);
    // Its closed link is death at once, however slow it was.
    expect(slow.claimDue(1000 + 2, hosts, P, true, never)).toBe(false);
    expect(slow.claimDue(1000 + 30, hosts, P, true, never)).toBe(true);
    // Never past slowPrimaryMaxMs, and the slowness is forgotten by halves.
    const stalled = made();
    beat(stalled, 0);
    beat(stalled, 5000);
    expect(stalled.silenceLimit(5000)).toBe(2400);
    expect(stalled.silenceLimit(5000 + 60_000)).toBe(600);
  });

  it("judges a player's request to claim (hosted-region.ts primaryAlive) by the primary's pace, as its own watch: a slow primary is alive for as long as the watch allows it", () => {
    const hosts = [P, SELF, B2];
    const PACED = { ...O, slowPrimaryFactor: 2, slowPrimaryMaxMs: 2400, slowPrimaryHalfLifeMs: 10_000 };
    const beat = (m: BackupMachine, at: number, idle = false) => m.heartbeat(P, idToHex(P), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts, ...(idle ? { idle } : {}) }, at);
    const roles = new RoleMachine();
    roles.appliedUpTo(0);
    const terms = { promised: E, following: idToHex(P), isCurrentPrimary: (hex: string, e: number) => hex === idToHex(P) && e === E };
    const m = new BackupMachine(SELF, followRecord(), roles, terms, PACED, { staleFrames: 0, badCerts: 0, entriesAgainstRules: 0 });
    // On time: failoverMs, as the watch.
    for (let t = 0; t <= 1000; t += 100) beat(m, t);
    expect(m.primaryHeardLately(1000 + 599)).toBe(true);
    expect(m.primaryHeardLately(1000 + 601)).toBe(false);
    // Starved (beats up to 450 ms apart): still alive 700 ms after its last beat, when a
    // fixed failoverMs took it for dead and the backup claimed at the player's word.
    for (const t of [1450, 1900, 2350]) beat(m, t);
    expect(m.primaryHeardLately(2350 + 700)).toBe(true);
    expect(m.primaryHeardLately(2350 + 700)).toBe(!m.claimDue(2350 + 700, hosts, P, false, () => false));
    expect(m.primaryHeardLately(2350 + 950)).toBe(false);
    // An idle primary beats every idleHeartbeatMs: alive over two missed beats.
    beat(m, 2500, true);
    expect(m.primaryHeardLately(2500 + 2 * O.idleHeartbeatMs)).toBe(true);
    expect(m.primaryHeardLately(2500 + 2 * O.idleHeartbeatMs + 2401)).toBe(false);
  });

  it('takes a primary that said it released its epoch for silent at once: the closest backup claims now, the next a stagger later, whatever its pace', () => {
    const never = () => false;
    const PACED = { ...O, slowPrimaryFactor: 2, slowPrimaryMaxMs: 2400, slowPrimaryHalfLifeMs: 10_000 };
    const made = () => {
      const roles = new RoleMachine();
      roles.appliedUpTo(0);
      const terms = { promised: E, following: idToHex(P), isCurrentPrimary: (hex: string, e: number) => hex === terms.following && e === E };
      return { m: new BackupMachine(SELF, followRecord(), roles, terms, PACED, { staleFrames: 0, badCerts: 0, entriesAgainstRules: 0 }), roles, terms };
    };
    const beat = (m: BackupMachine, at: number, release?: true) => m.heartbeat(P, idToHex(P), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts: [P, SELF, B2], b: 1, ...(release ? { release } : {}) }, at);
    for (const [hosts, wait] of [[[P, SELF, B2], 0], [[P, B2, SELF], O.claimStaggerMs]] as const) {
      const { m, roles, terms } = made();
      // A slow primary (beats 900 ms apart): its silence would be allowed 1,800 ms.
      for (const t of [0, 900, 1800]) beat(m, t);
      expect(m.silenceLimit(1800)).toBeGreaterThan(1700);
      // Its last beat says it released: no ack (it counts none), and no word of life.
      expect(beat(m, 1900, true)).toEqual([]);
      expect(m.primaryReleased).toBe(true);
      expect(m.primaryHeardLately(1900)).toBe(false);
      expect(1900 - roles.lastHeard).toBeGreaterThanOrEqual(O.failoverMs); // the grant rule 'primary alive' holds no claimant off
      expect(m.claimDue(1900 + wait, [...hosts], P, false, never)).toBe(false);
      expect(m.claimDue(1900 + wait + 1, [...hosts], P, false, never)).toBe(true);
      // A beat of that epoch that comes after it (another route) changes nothing.
      beat(m, 1950);
      expect(m.claimDue(1950 + wait + 1, [...hosts], P, false, never)).toBe(true);
      // Another primary followed (as after a grant): no longer released.
      terms.following = idToHex(B2);
      expect(m.primaryReleased).toBe(false);
    }
    // Only the primary we follow can say it: a release beat from another node is stale.
    const { m } = made();
    beat(m, 0);
    m.heartbeat(OTHER, idToHex(OTHER), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts: [OTHER, SELF], release: true }, 100);
    expect(m.primaryReleased).toBe(false);
    expect(m.claimDue(101, [P, SELF, B2], P, false, never)).toBe(false);
  });

  it('takes the silence of a primary that said it unloads for no death, until the primary speaks again', () => {
    const { m } = backup(0);
    const hosts = [P, SELF, B2];
    const never = () => false;
    // The unload beat is acked like any numbered beat (the primary counts the acks before it unloads).
    expect(m.heartbeat(P, idToHex(P), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts, idle: true, unload: true, b: 7 }, 1000)).toEqual([{ t: 'ack', to: P, e: E, applied: 0, b: 7 }]);
    expect(m.primaryUnloads).toBe(true);
    expect(m.claimDue(1000 + 3_600_000, hosts, P, false, never)).toBe(false);
    expect(m.claimDue(1000 + 3_600_000, hosts, P, true, never)).toBe(false);
    // It woke (a subscriber came): its silence counts again.
    m.heartbeat(P, idToHex(P), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts }, 5000);
    expect(m.primaryUnloads).toBe(false);
    expect(m.claimDue(5000 + 601, hosts, P, false, never)).toBe(true);
    // A beat from another node that names no unload of ours changes nothing.
    m.heartbeat(P, idToHex(P), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts, unload: true }, 9000);
    m.heartbeat(OTHER, idToHex(OTHER), { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts: [OTHER], idle: true }, 9100);
    expect(m.primaryUnloads).toBe(true);
  });
});
