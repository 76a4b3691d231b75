// The looks (name and colour, region/player-look.ts) of the other players, as this tab shows
// them: taken from the rosters of the hosts around us, whoever carried them, and shown only
// once the node they name signed them. A look is dropped and counted when its signature does
// not hold (also when a host rewrites the name or colour of the look shown and keeps its
// signature), when it is older than (or as old as, but not the same as) the one shown (a host
// replaying an old name, or frames out of order), when it is stamped ahead of our clock (it
// would pin the player's later looks out), or when the player changes looks faster than the
// rate here allows. The same look again (a slot introduced anew) costs no check, and so does
// the same forged look again (counted once, then as refusedAgain).
import type { Clock } from '../core/clock';
import { derivationMark, refusedSince } from '../core/key-ids';
import type { NodeId } from '../core/node-id';
import type { Verifier } from '../core/signer';
import { LruMap } from '../core/lru-map';
import { TokenBucket } from '../core/token-bucket';
import { sameBytes } from '../dht/value-store';
import { LOOK_RULES, sameLook, verifyPlayerLook, type PlayerLook } from '../region/player-look';

/** Players whose look is remembered (the longest unused forgotten). */
const MAX_PLAYERS = 1024;
/** Changes of one player's look shown at once, then per second (the hosts pass on one per NAME_CHANGE_MS). */
const CHANGE_BURST = 3;
const CHANGE_PER_SECOND = 0.2;
/** Looks being checked at once: a host introducing a crowd of forged ones waits its turn, never queues unbounded work. */
const MAX_CHECKING = 64;

export type LookDrop = 'ahead' | 'replay' | 'signature' | 'rate' | 'busy';

export interface PlayerLooksArgs {
  world: string;
  verify: Verifier;
  /** Drives the change rate (virtual in simulations). */
  clock: Clock;
  /** The wall clock looks are stamped with (default Date.now). */
  wallClock?: () => number;
  /** A look proven and shown from now on. */
  onShown?(hex: string, look: PlayerLook): void;
}

interface Held {
  /** The look shown (proven). */
  look: PlayerLook | undefined;
  /** The stamp of the look being checked, if any. */
  checking: number | undefined;
  /** The last look whose signature did not hold: the same again (a host's listing of a forged MOVE each second, a roster resent) costs no check and is not counted again. */
  refused: PlayerLook | undefined;
  bucket: TokenBucket;
}

export class PlayerLooks {
  readonly stats = { shown: 0, repeats: 0, refusedAgain: 0, dropped: { ahead: 0, replay: 0, signature: 0, rate: 0, busy: 0 } as Record<LookDrop, number> };
  private readonly held = new LruMap<string, Held>(MAX_PLAYERS);
  private checking = 0;

  constructor(private readonly args: PlayerLooksArgs) {}

  /** The proven look of the player at node `hex`, if any. */
  shown(hex: string): PlayerLook | undefined {
    return this.held.peek(hex)?.look;
  }

  /** A look the node `via` (hex) gave for the player at node `id` (hex `hex`): checked, then shown (onShown) or dropped and counted. */
  take(id: NodeId, hex: string, look: PlayerLook, via?: string): void {
    void this.check(id, hex, look, via);
  }

  private async check(id: NodeId, hex: string, look: PlayerLook, via: string | undefined): Promise<void> {
    const drop = (why: LookDrop) => void this.stats.dropped[why]++;
    const h = this.entry(hex);
    if (h.refused && sameSigned(look, h.refused) && sameBytes(look.s, h.refused.s)) return void this.stats.refusedAgain++;
    if (h.look && look.w <= h.look.w) {
      if (look.w < h.look.w || !sameBytes(look.s, h.look.s)) return drop('replay');
      if (sameSigned(look, h.look)) return void this.stats.repeats++;
      // The signature shown, over other words: a host rewrote the name or colour of the look
      // it holds. Remembered, as the player's slot carries it to us again with each update.
      h.refused = look;
      return drop('signature');
    }
    if (h.checking !== undefined && look.w <= h.checking) return void this.stats.repeats++;
    const wall = (this.args.wallClock ?? Date.now)();
    if (look.w > wall + LOOK_RULES.maxAheadMs) return drop('ahead');
    if (this.checking >= MAX_CHECKING) return drop('busy');
    this.checking++;
    h.checking = look.w;
    let ok: boolean;
    const mark = derivationMark();
    try {
      ok = await verifyPlayerLook(look, this.args.world, id, this.args.verify, via);
    } finally {
      this.checking--;
      if (h.checking === look.w) h.checking = undefined;
    }
    if (!ok) {
      // A key judged unproven for want of derivation budget is not a bad signature
      // (core/key-ids.ts `refusedSince`): remembered, the honest look would never be checked again.
      if (!refusedSince(mark)) h.refused = look;
      return drop('signature');
    }
    // Checked again after the wait: a newer look may have been shown meanwhile.
    if (h.look && look.w <= h.look.w) return drop('replay');
    if (h.look && !sameLook(h.look, look) && !h.bucket.take(1, this.args.clock.now())) return drop('rate');
    h.look = look;
    this.stats.shown++;
    this.args.onShown?.(hex, look);
  }

  private entry(hex: string): Held {
    return this.held.use(hex, () => ({ look: undefined, checking: undefined, refused: undefined, bucket: new TokenBucket(CHANGE_PER_SECOND, CHANGE_BURST, this.args.clock.now()) }));
  }
}

/** Every signed field alike (the signature is compared by the caller). */
function sameSigned(a: PlayerLook, b: PlayerLook): boolean {
  return a.a === b.a && a.w === b.w && sameLook(a, b) && sameBytes(a.k, b.k);
}
