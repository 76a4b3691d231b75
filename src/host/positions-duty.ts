// The primary's part of telling subscribers where the other players stand (crowds):
// each tick, every subscriber it serves gets the POSITIONS frame its interest
// view calls for (interest-lists.ts), positions quantised and delta-coded
// (region/position-code.ts). In a crowd the fan-out is shared with the backups
// (fan-out-plan.ts says who serves whom): each backup with a share gets a FEED of every
// player's position (at every change, coded the same way) with the subscribers it serves
// (fan-out-share.ts). A subscriber looking in from next door gets its positions from the
// primary whoever serves its other frames: only the primary knows where it looks from.
import { idToHex } from '../core/node-id';
import { quantise } from '../region/position-code';
import type { DutyShared } from './duty-region';
import { FEED_MS } from './fan-out-share';
import { INTEREST_DEFAULTS, InterestLists, InterestView, nextFrame, type Watched } from './interest-lists';
import type { RegionPresence } from './region-presence';
import { MAX_SERVED } from './replication-messages';

/** A backup's list of whom it serves is sent again at least this often (it may have missed one). */
const SERVE_AGAIN_MS = 2000;
/** A serving backup hears a FEED at least this often, moves or not (it serves while the feed flows). */
const FEED_AGAIN_MS = FEED_MS / 2;
/** The feed to a backup: every player at every change. */
const FEED = { ...INTEREST_DEFAULTS, nearest: Infinity, farMs: 1000 };

export class PositionsDuty {
  private readonly lists: InterestLists;
  private readonly tickMs: number;
  /** Per backup (hex): what it holds of our feed, and the serve list it has. */
  private readonly feeds = new Map<string, { view: InterestView; serve: string; at: number; sentAt: number }>();

  constructor(
    private readonly duty: DutyShared,
    private readonly presence: RegionPresence,
  ) {
    this.tickMs = 1000 / duty.ctx.opts.tickHz;
    this.lists = new InterestLists(this.tickMs);
  }

  /** A subscriber (re)subscribed or lost a frame: it starts afresh at our next frame. */
  restart(hex: string): void {
    this.lists.reset(hex);
  }

  /** A backup lost a FEED frame: its feed starts again. */
  feedLost(hex: string): void {
    this.feeds.get(hex)?.view.reset();
  }

  /** After the fan-out plan of this tick (fan-out-plan.ts). */
  tick(now: number): void {
    const d = this.duty;
    const players = this.presence.watched(now, (p) => quantise(d.regionFields, p));
    const mine = new Set<string>();
    for (const hex of d.subscribers.keys()) if (d.fanOut.positions(hex) || !this.presence.position(hex, now)) mine.add(hex);
    const subs = [...mine].map((hex) => ({ hex, at: this.presence.viewpoint(hex, now) }));
    for (const { hex, body } of this.lists.frames(subs, players, now)) {
      d.ctx.wires.players.send(d.subscribers.get(hex)!.id, { t: 'POSITIONS', ...d.regionFields, e: d.e, ...body, ...d.outbox.ride(hex, d.e) });
    }
    d.outbox.flush(d.ctx.wires.players, now, this.tickMs);
    if (this.lists.size > mine.size) this.lists.keepOnly((hex) => mine.has(hex));
    this.feed(players, now);
  }

  /** Each backup's FEED: the players, and whom it serves (nobody once the crowd is gone). */
  private feed(players: Watched[], now: number): void {
    const d = this.duty;
    const backups = d.backups();
    for (const b of backups) {
      const hex = idToHex(b);
      let f = this.feeds.get(hex);
      const serving = d.fanOut.servedBy(hex).slice(0, MAX_SERVED);
      if (!f && serving.length === 0) continue;
      if (!f) this.feeds.set(hex, (f = { view: new InterestView(), serve: '', at: -Infinity, sentAt: -Infinity }));
      const key = serving.map(idToHex).join();
      const serveDue = key !== f.serve || (serving.length > 0 && now - f.at >= SERVE_AGAIN_MS);
      const body = serving.length > 0 ? nextFrame(f.view, players, '', undefined, now, this.tickMs, FEED) : undefined;
      if (!body && !serveDue && now - f.sentAt < FEED_AGAIN_MS) continue;
      f.sentAt = now;
      d.ctx.wires.replicas.send(b, { t: 'FEED', ...d.regionFields, e: d.e, ...(body ?? { ...f.view.next(), b: new Uint8Array(0) }), ...(serveDue ? { serve: serving } : {}) });
      if (serveDue) {
        f.serve = key;
        f.at = now;
      }
      // A backup that serves nobody has been told so, and needs no feed.
      if (serving.length === 0) this.feeds.delete(hex);
    }
    for (const hex of this.feeds.keys()) if (!backups.some((b) => idToHex(b) === hex)) this.feeds.delete(hex);
  }
}
