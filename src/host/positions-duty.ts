// The primary's part of telling subscribers where the other players stand (issue 12
// "Crowds"): each tick, every subscriber gets the POSITIONS frame its interest view calls
// for (interest-lists.ts), positions quantised and delta-coded (region/position-code.ts).
import { quantise } from '../region/position-code';
import type { DutyShared } from './duty-region';
import { InterestLists } from './interest-lists';
import type { RegionPresence } from './region-presence';

export class PositionsDuty {
  private readonly lists: InterestLists;

  constructor(
    private readonly duty: DutyShared,
    private readonly presence: RegionPresence,
  ) {
    this.lists = new InterestLists(1000 / duty.ctx.opts.tickHz);
  }

  /** A subscriber (re)subscribed or lost a frame: it starts again from n = 0. */
  restart(hex: string): void {
    this.lists.reset(hex);
  }

  tick(now: number): void {
    const d = this.duty;
    const players = this.presence.watched(now, (p) => quantise(d.r, p));
    const subs = [...d.subscribers.keys()].map((hex) => ({ hex, at: this.presence.viewpoint(hex, now) }));
    for (const { hex, body } of this.lists.frames(subs, players, now)) {
      const s = d.subscribers.get(hex)!;
      d.ctx.wires.players.send(s.id, { t: 'POSITIONS', ...d.r, e: d.e, ...body });
    }
    if (this.lists.size > d.subscribers.size) this.lists.keepOnly((hex) => d.subscribers.has(hex));
  }
}
