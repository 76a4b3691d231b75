// The synchronised world clock as one service: `now()` for every layer (spawn times, the
// time of day, anything that must read the same on every peer). It probes its references
// (the region's hosts) with the thesis's timer request / reply over an abstract `send`
// (the host wire carries TIME_REQ / TIME_REP later; tests use a simulated link), feeds the
// OffsetEstimator, and keeps the adjusting estimate apart from the clock events fire on
// (thesis 4.5.3): `now()` and `at()` read the EventClock, which only slews towards the
// estimate while an event is pending.
//
// The error bound (`status().bound`), |now() - reference's now()| at most:
//   the estimate's bound (half the narrowest round trip, plus drift since: offset-estimator.ts)
//   + how far the event clock still lags the estimate (it slews at most 5%)
//   + the reference's own bound (it may itself follow another clock; TIME_REP carries it).
// With no reference this clock is the world's: world time = local + `base` (the tab passes
// performance.timeOrigin, so it is epoch ms and lone tabs already roughly agree), bound 0.
import type { Clock, TimerHandle } from '../core/clock';
import { answerTime, ClockProbe, type ClockMessage } from './clock-probe';
import { EventClock } from './event-clock';
import type { OffsetEstimate } from './offset-estimator';

/** A probe to every reference this often once synchronised. */
const PERIOD_MS = 2000;
/** The first probes to a new reference come this fast (the thesis's burst), so the bound is tight within a second. */
const BURST_MS = 100;
/** Probes to a new reference at BURST_MS before PERIOD_MS takes over. */
const BURST = 8;
/** References probed at most (the host set is 3-5). */
const MAX_REFERENCES = 8;

export interface WorldClockOptions {
  local: Clock;
  /** World time minus local time while there is no reference. */
  base?: number;
  send: (to: string, msg: ClockMessage) => void;
  /** Whom to follow now (the hosts of the player's region); empty: this clock is the reference. */
  references: () => readonly string[];
  /** First request number (clock-probe.ts): a node's second clock starts far from the first. */
  firstNonce?: number;
  /**
   * When a round of probes goes out (default: at once). A reply is timed when the page's
   * code runs, not when it arrives, so a reply that waits behind a busy frame widens the
   * sample and pulls the estimate back; a drawing page sends at the top of a frame it skips,
   * so the reply finds its main thread idle (play/probe-frame-gate.ts). The send time is read when the probes go out.
   */
  sendAt?: (go: () => void) => void;
  /** This node draws frames: its answers say `busy` (clock-probe.ts). */
  busy?: boolean;
  /**
   * Whether this clock may follow reference `id`, knowing whether it draws frames (default:
   * any). Hosts use it to keep the "follows" graph free of cycles (host-items.ts). Among
   * those allowed, an idle reference is followed before a busy one.
   */
  mayFollow?: (id: string, busy: boolean) => boolean;
}

export interface WorldClockStatus {
  /** World time minus local time, as applied now. */
  offset: number;
  /** |now() - the reference's world time| <= bound (ms); Infinity while no reference has answered yet. */
  bound: number;
  /** Samples kept from the reference followed, its id (undefined: none) and its best round trip. */
  samples: number;
  reference: string | undefined;
  minRtt: number;
  drift: number;
}

interface Ref {
  probe: ClockProbe;
  /** The reference's own bound, from its last reply. */
  err: number;
  /** It said it draws frames (its last reply). */
  busy: boolean;
  sent: number;
}

/** Two references agree while their readings lie within both bounds of each other, and this much more (rounding, a reply's last ms). */
const AGREE_SLACK_MS = 5;

/**
 * The references not outvoted: one whose reading lies beyond its and the other's bounds from
 * more than half of the others is left out. The tightest reference was followed whatever
 * the others said, so one hostile host of a player's region, answering at once and naming no
 * error of its own, set the player's world time at will (world-clock-liar.test.ts): when items
 * show, and whether the hosts take its signed drops and carries. Honest references' bounds all
 * hold the same world time, so they agree. With two that disagree (or none agreeing with a
 * majority) nothing tells the liar: all are kept.
 */
function agreeing<T extends { est: OffsetEstimate; err: number }>(heard: T[]): T[] {
  const apart = (a: T, b: T) => Math.abs(a.est.offset - b.est.offset) > a.est.bound + a.err + b.est.bound + b.err + AGREE_SLACK_MS;
  const kept = heard.filter((a) => 2 * heard.filter((b) => b !== a && apart(a, b)).length <= heard.length - 1);
  return kept.length > 0 ? kept : heard;
}

export class WorldClock {
  private readonly refs = new Map<string, Ref>();
  private readonly events: EventClock;
  private timer: TimerHandle | undefined;
  private running = false;
  private followed: string | undefined;

  constructor(private readonly o: WorldClockOptions) {
    this.events = new EventClock({ local: o.local, target: (t) => this.target(t) });
  }

  /** World time (ms). */
  now(): number {
    return this.events.now();
  }

  /** Calls fn once world time reaches `worldTime` (never early: the clock only slews meanwhile). */
  at(worldTime: number, fn: () => void): ReturnType<EventClock['at']> {
    return this.events.at(worldTime, fn);
  }

  cancel(p: ReturnType<EventClock['at']>): void {
    this.events.cancel(p);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.probe();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== undefined) this.o.local.clearTimeout(this.timer);
  }

  /** A clock frame from a peer: requests are answered with our world time and bound (once we have one), replies feed that reference's estimate. */
  receive(from: string, msg: ClockMessage): void {
    if (msg.t === 'TIME_REQ') {
      // Not yet synchronised to our own reference: our time is nobody's, so no answer (the asker retries).
      const bound = this.status().bound;
      if (Number.isFinite(bound)) this.o.send(from, answerTime(msg, this.now(), bound, this.o.busy));
      return;
    }
    const ref = this.refs.get(from);
    if (!ref) return;
    if (ref.probe.reply(msg, this.o.local.now())) {
      ref.err = msg.err ?? 0;
      ref.busy = msg.busy === true;
    }
  }

  /** The reference `id` said in its last reply that it draws frames. */
  isBusy(id: string): boolean {
    return this.refs.get(id)?.busy ?? false;
  }

  status(): WorldClockStatus {
    const local = this.o.local.now();
    const world = this.now();
    const best = this.best(local);
    const lag = best ? Math.abs(best.est.offset - this.events.offset) : 0;
    return {
      offset: world - local,
      // Following someone but no reply yet: nothing is known.
      // (Only references it may not follow, e.g. busy ones: it is its own reference.)
      bound: best ? best.est.bound + best.err + lag : [...this.refs].some(([id, r]) => !this.o.mayFollow || this.o.mayFollow(id, r.busy)) ? Infinity : 0,
      samples: best?.est.samples ?? 0,
      reference: best?.id,
      minRtt: best?.est.minRtt ?? NaN,
      drift: best?.est.drift ?? 0,
    };
  }

  /** Counters of every reference's probe (requests, replies, unasked replies). */
  get stats(): { requests: number; replies: number; unasked: number } {
    const s = { requests: 0, replies: 0, unasked: 0 };
    for (const r of this.refs.values()) for (const k of Object.keys(s) as (keyof typeof s)[]) s[k] += r.probe.stats[k];
    return s;
  }

  /**
   * The reference whose estimate (with its own error) is tightest, among those that do not
   * draw frames when any such has answered (a busy one's bound holds, but its middle sits
   * late: clock-probe.ts); only those `mayFollow` allows.
   */
  private best(local: number): { id: string; est: OffsetEstimate; err: number } | undefined {
    const heard: { id: string; est: OffsetEstimate; err: number; busy: boolean }[] = [];
    for (const [id, r] of this.refs) {
      if (this.o.mayFollow && !this.o.mayFollow(id, r.busy)) continue;
      const est = r.probe.estimator.estimate(local);
      if (est) heard.push({ id, est, err: r.err, busy: r.busy });
    }
    let out: (typeof heard)[number] | undefined;
    for (const c of agreeing(heard)) {
      const better = !out || (out.busy && !c.busy) || (out.busy === c.busy && c.est.bound + c.err < out.est.bound + out.err);
      if (better) out = c;
    }
    return out;
  }

  private target(local: number): { offset: number } | undefined {
    const best = this.best(local);
    this.followed = best?.id;
    return best ? { offset: best.est.offset } : { offset: this.o.base ?? 0 };
  }

  private probe(): void {
    if (!this.running) return;
    const want = this.o.references().slice(0, MAX_REFERENCES);
    for (const id of this.refs.keys()) if (!want.includes(id)) this.refs.delete(id);
    let bursting = false;
    const round: [string, Ref][] = [];
    for (const id of want) {
      let r = this.refs.get(id);
      if (!r) this.refs.set(id, (r = { probe: new ClockProbe(undefined, this.o.firstNonce), err: 0, busy: false, sent: 0 }));
      r.sent++;
      bursting ||= r.sent < BURST;
      round.push([id, r]);
    }
    const go = () => {
      for (const [id, r] of round) if (this.running && this.refs.get(id) === r) this.o.send(id, r.probe.request(this.o.local.now()));
    };
    if (this.o.sendAt) this.o.sendAt(go);
    else go();
    this.timer = this.o.local.setTimeout(() => this.probe(), bursting ? BURST_MS : PERIOD_MS);
  }

  /** The reference followed at the last reading (dashboard). */
  get reference(): string | undefined {
    return this.followed;
  }
}
