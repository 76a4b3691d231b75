// What a primary takes of each player's MOVEs: at most MOVE_LIMIT (region/move-rate.ts), twice
// the pace an honest client keeps (play/move-pace.ts), per sending node. A MOVE costs the
// primary its belief (motion-tracker.ts) and its presence, and a tick's fan-out sends at most
// a player's newest two positions anyway (interest-lists.ts): past the budget a MOVE is
// dropped (counted: HostStats `movesThrottled`), and the player's next one within it is taken. The link's own limit (dht/link-set.ts, ~1,000 frames
// a second) is for a whole peer's traffic, and a primary's backups forward a crowd's MOVEs.
// Pure: time is passed in.
import { KeyedRateLimit } from '../core/keyed-rate-limit';
import { MOVE_LIMIT } from '../region/move-rate';
import { MAX_TRACKED_PLAYERS } from './region-presence';

export class MoveBudget {
  private readonly rates: KeyedRateLimit;

  constructor(limit: { perSec: number; burst: number } = MOVE_LIMIT) {
    this.rates = new KeyedRateLimit(limit.perSec, limit.burst, MAX_TRACKED_PLAYERS);
  }

  /** True when node `hex`'s MOVE at `now` is within its budget (spent); false past it. */
  take(hex: string, now: number): boolean {
    return this.rates.take(hex, now);
  }
}
