// The clock world events fire on, kept apart from the estimate that adjusts (thesis
// 4.5.3: adjusting the firing timer while replies still arrive breaks the sync). The
// estimate may jump with every timer reply; while an event is pending this clock only
// slews towards it, at most `slew` ms per ms, so it never runs backwards then and an event
// set for world time W fires once, never early, however the estimate moves meanwhile.
//
// It steps straight to the estimate when no event is pending and it never stepped before
// or is off by more than STEP_MS (the first estimate; a tab back from a long sleep): with
// nothing pending a step harms nobody, and slewing off an hour would take a day.
import type { Clock, TimerHandle } from '../core/clock';

/** Default largest correction rate: 50 ms per second, unseen in a spinning item. */
export const DEFAULT_SLEW = 0.05;
/** Off by more than this with nothing pending: step. */
export const STEP_MS = 250;

export interface EventClockOptions {
  /** The local clock (monotonic; injected: the virtual clock in tests). */
  local: Clock;
  /** The reference's offset from the local clock at a local time (OffsetEstimator.estimate), undefined before any. */
  target: (localNow: number) => { offset: number } | undefined;
  slew?: number;
}

interface Pending {
  at: number;
  fn: () => void;
  timer: TimerHandle;
}

export class EventClock {
  private applied = 0;
  private lastLocal: number;
  private stepped = false;
  private readonly pending = new Set<Pending>();
  private readonly slew: number;

  constructor(private readonly o: EventClockOptions) {
    this.lastLocal = o.local.now();
    this.slew = o.slew ?? DEFAULT_SLEW;
  }

  /** World time now: the local clock plus the correction applied so far. */
  now(): number {
    const local = this.o.local.now();
    const target = this.o.target(local)?.offset;
    if (target !== undefined) {
      const diff = target - this.applied;
      if (this.pending.size === 0 && (!this.stepped || Math.abs(diff) > STEP_MS)) {
        this.applied = target;
        this.stepped = true;
      } else {
        const most = this.slew * Math.max(0, local - this.lastLocal);
        this.applied += Math.max(-most, Math.min(most, diff));
      }
    }
    this.lastLocal = local;
    return local + this.applied;
  }

  /** World minus local time as applied now (what a dashboard shows next to the estimate). */
  get offset(): number {
    return this.applied;
  }

  /** Calls fn once world time reaches `worldTime` (at once, asynchronously, if it has). */
  at(worldTime: number, fn: () => void): Pending {
    const p: Pending = { at: worldTime, fn, timer: undefined };
    this.now(); // a step still due happens before this event is pending, not after
    this.pending.add(p);
    this.arm(p);
    return p;
  }

  cancel(p: Pending): void {
    if (this.pending.delete(p)) this.o.local.clearTimeout(p.timer);
  }

  private arm(p: Pending): void {
    const left = p.at - this.now();
    if (left <= 0) {
      p.timer = this.o.local.setTimeout(() => {
        if (!this.pending.has(p)) return;
        p.fn(); // still pending meanwhile, so the world time fn reads cannot step back
        this.pending.delete(p);
      }, 0);
      return;
    }
    // The world runs at most 1 + slew times as fast as the local clock: wake no later than due, then look again.
    p.timer = this.o.local.setTimeout(() => this.arm(p), left / (1 + this.slew));
  }
}
