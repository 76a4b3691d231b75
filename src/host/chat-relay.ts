// What a region's primary does with a chat line (region/chat-line.ts): it passes a SAY on
// to the region's subscribers as CHAT when the sending node is one of them and holds the
// pass of the player the line names (player-passes.ts), so a node speaks only as its own
// player and a flood costs a pass's work per player; and within two rates, per player and
// for the whole region, so no one player, and no crowd of minted players, floods the
// others. The signature is not checked here: every receiver checks it (play/chat-client.ts),
// and a pass holder could sign its own garbage anyway; the rates bound what it can send.
// The last lines passed on are kept a while and sent again to a node that subscribes anew or
// says it missed frames: a CHAT lost to one subscriber (its link dying, a re-attach under way)
// is never resent by its speaker, whose echo came; receivers show a line once.
import type { Clock } from '../core/clock';
import { idToHex } from '../core/node-id';
import { TokenBucket } from '../core/token-bucket';
import { KeyedRateLimit } from '../core/keyed-rate-limit';
import { CHAT_RATE, type ChatLine } from '../region/chat-line';
import type { SubscriptionMessageOf } from '../region/subscription-messages';

export const CHAT_RULES = {
  /** Lines one player may say at once, and then per second: the rate its chat client keeps to (region/chat-line.ts). */
  playerBurst: CHAT_RATE.burst,
  playerPerSecond: CHAT_RATE.perSec,
  /** Lines a region passes on at once, from everyone... */
  regionBurst: 20,
  /** ...and then per second. */
  regionPerSecond: 8,
  /** Players whose rate is remembered per region (least recently heard forgotten). */
  maxSpeakers: 256,
  /** Lines passed on that a (re)subscribing node is sent again: at most this many... */
  recentLines: 16,
  /** ...said within this long (the receivers' own window is 2 minutes: chat-client.ts). */
  recentMs: 30_000,
};

export type ChatRules = typeof CHAT_RULES;

/** Why a SAY was not passed on. */
export type ChatRefusal = 'not-subscriber' | 'unknown-player' | 'wrong-player' | 'player-rate' | 'region-rate';

export interface ChatStats {
  chatRelayed: number;
  chatRefused: Record<ChatRefusal, number>;
}

export const newChatStats = (): ChatStats => ({
  chatRelayed: 0,
  chatRefused: { 'not-subscriber': 0, 'unknown-player': 0, 'wrong-player': 0, 'player-rate': 0, 'region-rate': 0 },
});

export interface ChatRelayDeps {
  clock: Clock;
  stats: ChatStats;
  /** The player (hex) node `hex` proved to be, if any. */
  playerOf(hex: string): string | undefined;
  isSubscriber(hex: string): boolean;
}

export class ChatRelay {
  private readonly speakers: KeyedRateLimit;
  private readonly region: TokenBucket;
  /** The lines passed on lately, oldest first, with when (our clock). */
  private readonly recent: { at: number; frame: SubscriptionMessageOf<'CHAT'> }[] = [];

  constructor(private readonly deps: ChatRelayDeps, private readonly rules: ChatRules = CHAT_RULES) {
    this.speakers = new KeyedRateLimit(rules.playerPerSecond, rules.playerBurst, rules.maxSpeakers);
    this.region = new TokenBucket(rules.regionPerSecond, rules.regionBurst, deps.clock.now());
  }

  /** True when the line node `fromHex` said is to be passed on (counted either way). */
  take(fromHex: string, line: ChatLine): boolean {
    const refused = this.refusal(fromHex, line);
    if (refused) {
      this.deps.stats.chatRefused[refused]++;
      return false;
    }
    this.deps.stats.chatRelayed++;
    return true;
  }

  /** Keeps a line passed on, for `recentLines` (see the file's head). */
  passed(frame: SubscriptionMessageOf<'CHAT'>): void {
    this.recent.push({ at: this.deps.clock.now(), frame });
    if (this.recent.length > this.rules.recentLines) this.recent.shift();
  }

  /** The lines passed on within `recentMs`, oldest first: for a node that (re)subscribes. */
  recentLines(): SubscriptionMessageOf<'CHAT'>[] {
    const since = this.deps.clock.now() - this.rules.recentMs;
    while (this.recent.length > 0 && this.recent[0]!.at < since) this.recent.shift();
    return this.recent.map((r) => r.frame);
  }

  private refusal(fromHex: string, line: ChatLine): ChatRefusal | undefined {
    if (!this.deps.isSubscriber(fromHex)) return 'not-subscriber';
    const player = this.deps.playerOf(fromHex);
    if (player === undefined) return 'unknown-player';
    if (player !== idToHex(line.p)) return 'wrong-player';
    const now = this.deps.clock.now();
    if (!this.speakers.take(player, now)) return 'player-rate';
    if (!this.region.take(1, now)) return 'region-rate';
    return undefined;
  }
}
