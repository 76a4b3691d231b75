// Slow or dead (primary-transport.ts): a backup whose silent primary still answers at the
// transport allows it slowPrimaryMaxMs of silence and never more; one whose primary answers
// nothing (a crash) claims exactly when it did without the watch, and one whose primary was
// slow lately claims it about failoverMs after its last frame once the link is proven deaf,
// unless its own readings came late.
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { RegionState } from '../region/region-state';
import type { EpochCert } from '../region/epoch-cert';
import { TRANSPORT_POLL_MS, TransportWatch, type TransportProbe } from '../net/transport-watch';
import { BackupMachine } from './backup-machine';
import { PrimaryTransport, TRANSPORT_ALIVE_MS, TRANSPORT_ANSWER_MS, TRANSPORT_LEAD_MS } from './primary-transport';
import { RequestLog } from './request-log';
import { RoleMachine } from './role-machine';
import { ProofRing } from './state-proofs';

const id = (n: number): NodeId => new Uint8Array(20).fill(n);
const [P, SELF, B2] = [id(1), id(2), id(3)];
const PH = idToHex(P);
const E = 4;
const O = { heartbeatMs: 100, failoverMs: 600, idleHeartbeatMs: 2000, claimStaggerMs: 400, slowPrimaryFactor: 2, slowPrimaryMaxMs: 2400, slowPrimaryHalfLifeMs: 10_000 };
const hosts = [P, SELF, B2]; // we rank first: no stagger
const never = () => false;

/** A link whose far end answers at the transport at the times in `answers` (once watched). */
function link(answers: (t: number) => boolean) {
  const l = { watches: [] as number[], heard: undefined as number | undefined };
  const probe: TransportProbe = { watchTransport: (until) => l.watches.push(until) > 0, transportHeardAt: () => l.heard, transportUnanswered: () => undefined };
  return { l, probe, at: (t: number) => { if (l.watches.length && answers(t)) l.heard = t; } };
}

/** A backup following P, beating on time up to `until` (-1: not yet), its transport watched through `probe`. */
function backup(probe: TransportProbe | undefined, until = 1000) {
  const cert: EpochCert = { e: E, primary: P, hosts, grants: [] };
  const rec = { heardSubs: () => {}, state: new RegionState(), requests: new RequestLog(60_000), cert, proofs: new ProofRing(1000, 10) };
  const roles = new RoleMachine();
  roles.appliedUpTo(0);
  const terms = { promised: E, isCurrentPrimary: (hex: string, e: number) => hex === PH && e === E };
  const m = new BackupMachine(SELF, rec, roles, terms, O, { staleFrames: 0, badCerts: 0, entriesAgainstRules: 0 });
  const t = new PrimaryTransport(() => probe);
  m.transportAlive = (now, from) => t.alive(now, PH, from);
  m.transportDeaf = (from) => t.deaf(PH, from);
  for (let at = 0; at <= until; at += 100) beat(m, at);
  return { m, t };
}

/** A beat of P at `at`. */
const beat = (m: BackupMachine, at: number) => m.heartbeat(P, PH, { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts }, at);

/** The backup's watch every 25 ms from `from` (as hosting-service.ts): the first time it claims, or undefined. */
function firstClaim(m: BackupMachine, t: PrimaryTransport, from: number, to: number, tick: (now: number) => void = () => {}): number | undefined {
  for (let now = from; now <= to; now += 25) {
    tick(now);
    t.watch(now, PH, m.heardAt, m.watchLimit(now));
    if (m.claimDue(now, hosts, P, false, never)) return now;
  }
  return undefined;
}

/**
 * A link watched at the transport in virtual time, driven as WebRtcLink drives its
 * TransportWatch: a tick every `tickEvery` ms (our timers; TRANSPORT_POLL_MS on time) probes
 * when the watch says and asks for the counters (none while a reading is out), each reading
 * answered `answerIn` ms after it was asked with the counters as they were when asked, and a
 * probe at the watch's first baseline. The far end acknowledges a probe sent at t `ackIn(t)`
 * ms later (undefined: never). `advance(to)` runs it up to `to`.
 */
function watchedLink(ackIn: (sentAt: number) => number | undefined, o: { tickEvery?: number; answerIn?: number } = {}) {
  const every = o.tickEvery ?? TRANSPORT_POLL_MS, answerIn = o.answerIn ?? 5;
  const w = new TransportWatch();
  let now = 0, bytes = 0, nextTick = Infinity;
  let reading: { askedAt: number; bytes: number } | undefined;
  const acks: number[] = [];
  const send = () => {
    const a = ackIn(now);
    if (a !== undefined) acks.push(now + a);
  };
  const step = () => {
    bytes += 60 * acks.filter((a) => a === now).length;
    if (reading && reading.askedAt + answerIn === now) {
      const r = reading;
      reading = undefined;
      if (w.sample(now, r.bytes, r.askedAt)) send();
    }
    if (now !== nextTick) return;
    const s = w.tick(now);
    nextTick = s === 'stop' ? Infinity : now + every;
    if (s === 'probe') send();
    if (s !== 'stop' && !reading) reading = { askedAt: now, bytes };
  };
  const probe: TransportProbe = {
    watchTransport: (until) => {
      if (w.extend(now, until)) {
        nextTick = now;
        step();
      }
      return true;
    },
    transportHeardAt: () => w.heardAt,
    transportUnanswered: () => w.unanswered,
  };
  return { probe, advance: (to: number) => { while (now < to) { now++; step(); } } };
}

/**
 * A backup following P from 0, watching every 25 ms (as hosting-service.ts) with the
 * transport watched through `l`: P beats at `beats`; the first time from `from` the backup
 * claims (a claim before is not made: it watches on), or undefined.
 */
function claimWhileBeating(l: ReturnType<typeof watchedLink> | undefined, beats: number[], from: number, to: number): number | undefined {
  const { m, t } = backup(l?.probe, -1);
  const due = new Set(beats);
  for (let now = 0; now <= to; now += 25) {
    l?.advance(now);
    if (due.has(now)) beat(m, now);
    t.watch(now, PH, m.heardAt, m.watchLimit(now));
    if (m.claimDue(now, hosts, P, false, never) && now >= from) return now;
  }
  return undefined;
}

/** Beats every 100 ms from `from` to `to`. */
const onTime = (from: number, to: number) => Array.from({ length: Math.floor((to - from) / 100) + 1 }, (_, k) => from + 100 * k);
/** On time to 1,000, then three silences of 1.5 s (a page blocked: the transport answers), then on time to the crash at 8,000. */
const SLOW_SPELL = [...onTime(0, 1000), 2500, 4000, 5500, ...onTime(5600, 8000)];
const CRASH = 8000;
/** A live tab's network thread acknowledges each probe 200 ms on (the delayed ack); crashed at CRASH, nothing. */
const answersTillCrash = (ms = 200) => (t: number) => (t < CRASH ? ms : undefined);

describe('primary transport', () => {
  it('watches the link only once the silence is within TRANSPORT_LEAD_MS of its limit, a while past each watch', () => {
    const { l, probe } = link(() => false);
    const t = new PrimaryTransport(() => probe);
    t.watch(1000 + 599 - TRANSPORT_LEAD_MS, PH, 1000, 600);
    expect(l.watches).toEqual([]);
    t.watch(1000 + 600 - TRANSPORT_LEAD_MS, PH, 1000, 600);
    expect(l.watches).toEqual([1000 + 600 - TRANSPORT_LEAD_MS + TRANSPORT_ALIVE_MS]);
    // No link to watch (no direct link, a runtime that cannot tell): nothing.
    expect(() => new PrimaryTransport(() => undefined).watch(5000, PH, 1000, 600)).not.toThrow();
  });

  it('takes the transport for alive only when heard after the primary went silent, and lately', () => {
    let heard: number | undefined;
    const t = new PrimaryTransport(() => ({ watchTransport: () => true, transportHeardAt: () => heard, transportUnanswered: () => undefined }));
    expect(t.alive(1500, PH, 1000)).toBe(false);
    heard = 900; // before the silence: says nothing of it
    expect(t.alive(1000, PH, 1000)).toBe(false);
    heard = 1300;
    expect(t.alive(1300 + TRANSPORT_ALIVE_MS, PH, 1000)).toBe(true);
    expect(t.alive(1301 + TRANSPORT_ALIVE_MS, PH, 1000)).toBe(false);
  });

  it("waits for the first answer of a silence's watch, TRANSPORT_ANSWER_MS from its start, and no longer; a link that cannot be watched is not waited for", () => {
    const t = new PrimaryTransport(() => ({ watchTransport: () => true, transportHeardAt: () => undefined, transportUnanswered: () => undefined }));
    t.watch(1400, PH, 1000, 600); // a late watch (our own timers were late)
    expect(t.alive(1400 + TRANSPORT_ANSWER_MS - 1, PH, 1000)).toBe(true);
    expect(t.alive(1400 + TRANSPORT_ANSWER_MS, PH, 1000)).toBe(false);
    t.watch(1800, PH, 1000, 600); // the same silence watched on: no new wait
    expect(t.alive(1801, PH, 1000)).toBe(false);
    const node = new PrimaryTransport(() => ({ watchTransport: () => false, transportHeardAt: () => undefined, transportUnanswered: () => undefined }));
    node.watch(1400, PH, 1000, 600);
    expect(node.alive(1401, PH, 1000)).toBe(false);
  });

  it('a primary blocked 1.5 s whose transport answers is not claimed; answering, it is still claimed at slowPrimaryMaxMs, never later', () => {
    // Acknowledgements come 200 ms after each 200 ms probe: the first one 400 ms into the silence.
    const blocked = link((t) => t >= 1400 && (t - 1400) % 200 === 0);
    const { m, t } = backup(blocked.probe);
    expect(firstClaim(m, t, 1000, 2500, blocked.at)).toBeUndefined();
    expect(m.primaryHeardLately(2500)).toBe(true); // a player's word to claim is refused too
    // Its page speaks again: a normal silence from there.
    for (let at = 2600; at <= 4000; at += 100) m.heartbeat(P, PH, { t: 'HEARTBEAT', rx: 0, rz: 0, e: E, s: 0, hosts }, at);
    // A page that never speaks again, its transport answering all along: claimed at the cap.
    blocked.l.heard = undefined;
    const capped = firstClaim(m, t, 4000, 10_000, blocked.at);
    expect(capped).toBe(4000 + O.slowPrimaryMaxMs + 25);
  });

  it('a crashed primary (nothing comes back) is claimed exactly when it was without the watch', () => {
    const crashed = link(() => false);
    const watched = backup(crashed.probe);
    const without = backup(undefined);
    const a = firstClaim(watched.m, watched.t, 1000, 5000, crashed.at);
    expect(a).toBe(firstClaim(without.m, without.t, 1000, 5000));
    expect(a).toBe(1000 + O.failoverMs + 25);
    expect(crashed.l.watches.length).toBeGreaterThan(0); // probed, heard nothing
    // A primary that answers only after its silence passed the limit is no reprieve: claimed as before.
    const late = link((t) => t >= 1700);
    const l2 = backup(late.probe);
    expect(firstClaim(l2.m, l2.t, 1000, 5000, late.at)).toBe(a);
  });

  it('a primary slow lately whose renderer then crashed is claimed about failoverMs after its last frame once its link is proven deaf, not at its pace (2.4 s); unwatched, as before', () => {
    // Through the slow spell the blocked page's transport answers: no claim.
    expect(claimWhileBeating(watchedLink(answersTillCrash()), SLOW_SPELL, 0, CRASH)).toBeUndefined();
    const deaf = claimWhileBeating(watchedLink(answersTillCrash()), SLOW_SPELL, CRASH, 20_000)!;
    // Watched from 150 ms of silence; a probe sent after the baseline, unanswered 400 ms by
    // readings on time (8,155 to the reading asked at 8,650): claimed at 8,675.
    expect(deaf - CRASH).toBeGreaterThan(O.failoverMs);
    expect(deaf - CRASH).toBeLessThanOrEqual(O.failoverMs + 100);
    // A link that cannot be watched (an older peer, a routed link): its pace, as before.
    const unwatched = claimWhileBeating(undefined, SLOW_SPELL, CRASH, 20_000)!;
    expect(unwatched - CRASH).toBeGreaterThan(2000);
  });

  it("proves nothing deaf when the backup's own readings come late (a starved tab: its counters may be behind) or the far end acknowledges late: the pace decides, as before", () => {
    const unwatched = claimWhileBeating(undefined, SLOW_SPELL, CRASH, 20_000);
    // Our stats calls answered 200 ms after they were asked.
    expect(claimWhileBeating(watchedLink(answersTillCrash(), { answerIn: 200 }), SLOW_SPELL, CRASH, 20_000)).toBe(unwatched);
    // Our timers ticking every 300 ms instead of 125.
    expect(claimWhileBeating(watchedLink(answersTillCrash(), { tickEvery: 300 }), SLOW_SPELL, CRASH, 20_000)).toBe(unwatched);
    // A live tab whose network thread acknowledges 350 ms late: never deaf, alive (heard within
    // TRANSPORT_ALIVE_MS): claimed only at slowPrimaryMaxMs of silence.
    const lateAcks = watchedLink((t) => (t < 20_000 ? 350 : undefined));
    expect(claimWhileBeating(lateAcks, SLOW_SPELL, CRASH, 20_000)).toBe(CRASH + O.slowPrimaryMaxMs + 25);
  });
});
