// How many node keys this realm derives (one scrypt each, key-ids.ts) for keys it has not met.
// A key comes with every signed frame a node checks, and judging it costs a derivation before
// anything says it is junk: an attacker pairing one worked id with endless fresh keys would
// cost a node one scrypt per frame it sends. So derivations of unmet keys are budgeted, per
// source (the link a frame came over, the relay socket's address) and in all: a source past
// its budget has its keys judged unproven, not derived, until its bucket refills; an honest
// peer's frame refused so is resent, and its key proven once there is budget. Keys already
// met are answered from memory and spend nothing.
//
// The total is shared fairly: the last `reserve` derivations of its bucket go only to
// sources that spent less than their share lately (the total's rate over the sources that
// asked, fair-share.ts; a source alone has it all). Shared first come first served, 8 sources at their own rate (8/s)
// spent all of it, and a new honest key waited behind them for as long as they kept on; now
// sources past their share take only what is above the reserve, and one under it (an honest
// peer meeting a few keys) takes from the reserve.
//
// A source whose key turned out junk lately (it did not stand for the id it came with,
// key-ids.ts) takes no part of the reserve and counts for no share of it: an honest peer
// never sends such a key, and an attacker's sources that send them would otherwise each
// count as a source asking, so 32 of them cut an honest source's share to 64/33 a second
// (10 new keys ~4 s). Sending only keys that stand for their ids instead, a source spends
// the budget only on ids minted with work (core/id-work.ts): each costs it ~2^9 scrypts
// for our one, and is remembered after.
import { FairShare } from './fair-share';
import { KeyedRateLimit } from './keyed-rate-limit';
import { LruMap } from './lru-map';
import { TokenBucket } from './token-bucket';

export interface DerivationBudgetOptions {
  /** Derivations per second one source may ask, and its burst. */
  perSourcePerSec: number;
  perSourceBurst: number;
  /** Derivations per second of all sources together, and the burst. */
  totalPerSec: number;
  totalBurst: number;
  /** Of the total's burst, what only sources under their fair share may take (default: a quarter of it). */
  reserve?: number;
  /** Sources remembered (least recently used forgotten: a forgotten source starts full). */
  sources: number;
  /** How long (ms) a source that sent a junk key takes no part of the reserve. */
  junkMs?: number;
}

/**
 * Documented defaults. One derivation is ~0.5-2 ms in a tab (docs/BENCHMARKS.md "Ids that
 * cost work"), so 64 a second in all is at most ~13% of a core however many sources send
 * junk, and 8 a second is ~1.6% per source. A tab's join meets a few dozen keys in its first
 * seconds (a region's certificate names 3, a lookup's answers a handful), under the bursts;
 * the reserve holds a join's worth for sources within their share.
 */
export const DERIVATION_BUDGET_DEFAULTS: DerivationBudgetOptions = {
  perSourcePerSec: 8,
  perSourceBurst: 64,
  totalPerSec: 64,
  totalBurst: 256,
  sources: 1024,
};

/** How long a source that sent a junk key takes no part of the reserve (DerivationBudgetOptions.junkMs). */
export const JUNK_MS = 10_000;

/** A source named by nobody (a frame whose carrier is not known where its key is checked). */
export const UNATTRIBUTED = 'unattributed';

/**
 * What a node checks of its own: a DHT record it published (its copy, checked again on each
 * read, and the check when it stores it: its region certificates read from its store at
 * start, published again), keys it holds or loads. No peer can have a key checked on it,
 * so it spends no budget (key-ids.ts): charged to the unattributed source, a flood of
 * frames nobody named starved a node's checks of its own records.
 */
export const OWN_SOURCE = 'own';

export class DerivationBudget {
  private readonly o: DerivationBudgetOptions;
  private readonly total: TokenBucket;
  private readonly bySource: KeyedRateLimit;
  private readonly shares: FairShare;
  private readonly reserve: number;
  private readonly junkAt: LruMap<string, number>;
  private readonly junkMs: number;
  /** Derivations refused, in all. */
  refused = 0;

  constructor(o: Partial<DerivationBudgetOptions> = {}, private readonly now: () => number = () => performance.now()) {
    this.o = { ...DERIVATION_BUDGET_DEFAULTS, ...o };
    this.total = new TokenBucket(this.o.totalPerSec, this.o.totalBurst, now());
    this.bySource = new KeyedRateLimit(this.o.perSourcePerSec, this.o.perSourceBurst, this.o.sources);
    this.shares = new FairShare(this.o.totalPerSec, this.o.sources);
    this.reserve = this.o.reserve ?? Math.floor(this.o.totalBurst / 4);
    this.junkAt = new LruMap(this.o.sources);
    this.junkMs = this.o.junkMs ?? JUNK_MS;
  }

  /**
   * True (one derivation spent from `source`'s budget and the total) when both have one
   * left, and, past the share `source` spent lately, one above the reserve.
   */
  take(source: string = UNATTRIBUTED): boolean {
    const t = this.now();
    // A junk sender is past its share whatever it spent, and is not counted among those sharing.
    const junkAt = this.junkAt.peek(source);
    const within = (junkAt === undefined || t - junkAt >= this.junkMs) && this.shares.within(source, t);
    // The source's bucket first: a source past its own budget spends nothing of the total.
    if (this.bySource.take(source, t) && this.total.take(1, t, within ? 0 : this.reserve)) {
      this.shares.spent(source, t);
      return true;
    }
    this.refused++;
    return false;
  }

  /** Notes that a key `source` sent, derived, did not stand for the id it came with. */
  junk(source: string = UNATTRIBUTED): void {
    this.junkAt.set(source, this.now());
  }
}
