// The player's side of a region's committed edits, in order of seq (region-client.ts applies
// them). A host's frames to a subscriber it holds no direct link to are routed, and two
// routes can swap them (a primary links to at most 32 nodes; a crowd subscribes by the
// hundred): a DELTA can come before the one it follows, and a beat naming seq s before the
// DELTA that carries s. Taking either for a loss made every such swap cost a SUBSCRIBE and a
// snapshot (in the crowd of 200, ~50 a second, a quarter of the busiest host's upload), and,
// with the fan-out shared, a spell of the primary serving the subscriber itself. So a DELTA
// that comes early waits (REORDER_MS) for the ones before it, a beat ahead of what we hold
// waits as long for its DELTA, and only then do we ask again (`resubscribe`).
// Pure: time is passed in.
import type { SubscriptionMessageOf } from '../region/subscription-messages';

/** Why an attached subscription re-subscribed saying it missed frames: an early DELTA, or a beat ahead of our deltas, whose gap did not fill; or too many early DELTAs at once. */
export type GapCause = 'delta' | 'beat' | 'overflow';

/** An early DELTA, or a beat ahead of our deltas, waits this long before we ask again. */
export const REORDER_MS = 250;
/** Early DELTAs held per subscription; past it we ask again at once. */
export const MAX_EARLY = 16;

type Delta = Pick<SubscriptionMessageOf<'DELTA'>, 'e' | 'from' | 'to' | 'entries'>;

export interface DeltaOutcome {
  /** DELTAs to apply now, in order (each follows the one before, or what we held). */
  apply: Delta[];
  /** A gap that did not fill in time: ask the primary for what we miss. */
  resubscribe: boolean;
}

export class DeltaOrder {
  private readonly early = new Map<number, { m: Delta; at: number }>();
  /** Since when we know of a seq we do not hold (an early DELTA or a beat). */
  private behindAt: number | undefined;
  /** What showed the gap we last asked again for (counted by the client: ClientStats.gapWhy). */
  cause: GapCause = 'delta';

  /** Forget what waits (a snapshot, a new epoch). */
  reset(): void {
    this.early.clear();
    this.behindAt = undefined;
  }

  /** A DELTA of the epoch we follow; `held`: the seq we hold (0 in a new epoch). */
  take(m: Delta, held: number, now: number): DeltaOutcome {
    const out: DeltaOutcome = { apply: [], resubscribe: false };
    if (m.to <= held) return out;
    if (m.from > held + 1) {
      this.early.set(m.from, { m, at: now });
      this.behind(now, 'delta');
      out.resubscribe = this.early.size > MAX_EARLY;
      if (out.resubscribe) {
        this.reset();
        this.cause = 'overflow';
      }
      return out;
    }
    out.apply.push(m);
    let to = m.to;
    for (let next = this.next(to); next; next = this.next(to)) {
      out.apply.push(next);
      to = next.to;
    }
    for (const [from, e] of this.early) if (e.m.to <= to) this.early.delete(from);
    if (this.early.size === 0) this.behindAt = undefined;
    return out;
  }

  /** A beat: committed up to `s`; true when a gap waited long enough and we should ask again. */
  beat(s: number, held: number, now: number): boolean {
    if (s > held) this.behind(now, 'beat');
    else if (this.early.size === 0) this.behindAt = undefined;
    return this.due(now);
  }

  /** True when what we lack has waited REORDER_MS (the watchdog asks too). */
  due(now: number): boolean {
    if (this.behindAt === undefined || now - this.behindAt < REORDER_MS) return false;
    this.reset();
    return true;
  }

  private behind(now: number, cause: GapCause): void {
    if (this.behindAt !== undefined) return;
    this.behindAt = now;
    this.cause = cause;
  }

  /** The early DELTA that follows seq `to` (and carries something past it). */
  private next(to: number): Delta | undefined {
    for (const [from, e] of this.early) {
      if (from > to + 1) continue;
      this.early.delete(from);
      if (e.m.to > to) return e.m;
    }
    return undefined;
  }
}
