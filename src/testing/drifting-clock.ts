// A local clock for clock-sync tests: reads `origin + (1 + drift) * t` where t is the
// virtual clock's (true) time, and counts its timeouts in its own milliseconds, as a
// tab's performance.now() does against another machine's.
import type { Clock, TimerHandle } from '../core/clock';
import type { VirtualClock } from '../core/virtual-clock';

export class DriftingClock implements Clock {
  constructor(
    private readonly truth: VirtualClock,
    readonly origin: number,
    readonly drift: number,
  ) {}

  now(): number {
    return this.origin + (1 + this.drift) * this.truth.now();
  }

  /** This clock's reading at true time t. */
  at(t: number): number {
    return this.origin + (1 + this.drift) * t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.truth.setTimeout(fn, ms / (1 + this.drift));
  }

  clearTimeout(handle: TimerHandle): void {
    this.truth.clearTimeout(handle);
  }
}
