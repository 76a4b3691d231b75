// When a player's MOVE goes: at most `hz` a second on average, on the first page frame at or
// after each beat of a fixed schedule. MOVE can only leave on a page frame (the frame loop
// hands the position over), and frames do not fall on the schedule: a page that draws
// nothing ticks every 50 ms, a drawing one every ~16.7 ms, both with jitter. Spaced "at least
// 1000 / hz after the last one sent", a frame 99.8 ms after the last MOVE was passed over and
// the next went 150 ms after it (6.7 Hz at a 50 ms tick; 8.6 Hz at 60 frames a second: the
// 7th frame), and every position the player took in the longer gap was lost to the others.
// Kept on the schedule, a send late by part of a frame does not delay the ones after it.
// A send late by a whole period or more (a stall: a busy or hidden tab, or the first MOVE)
// starts the schedule again from now: no burst to catch up. Two MOVEs are never closer than
// half a period. Pure: time is passed in.
export class MovePace {
  private next = -Infinity;

  constructor(private readonly hz: number) {}

  /** Whether a MOVE may go on this frame. */
  due(now: number): boolean {
    return now >= this.next;
  }

  /** A MOVE went at `now` (call only when it did: one not sent is tried again next frame). */
  sent(now: number): void {
    const period = 1000 / this.hz;
    this.next = now - this.next >= period ? now + period : Math.max(this.next + period, now + period / 2);
  }
}
