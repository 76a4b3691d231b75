// The player's side of chat: says lines to the primary of the region the player stands in
// (SAY, with the node's player pass right before it: the primary passes on lines only from
// the pass holder of the player they name, host/chat-relay.ts), and takes the lines the
// primaries of the regions around (its live subscriptions) pass on (CHAT). Each line taken
// is checked here, whoever carried it: from the primary we are attached to for its region,
// stamped near our clock, later than the speaker's last line (no replay), within a rate per
// host and per speaker, and signed by the player it names (region/chat-line.ts). A dropped
// line is counted by reason and shown nowhere. The history is this tab's, bounded.
// A line comes again when we re-attach (the primary sends its last lines to a node that
// subscribes anew or missed frames: host/chat-relay.ts): one already shown is a duplicate,
// shown once and counted apart from replays.
import type { Clock, TimerHandle } from '../core/clock';
import { Emitter } from '../core/emitter';
import { hexToId, idToHex } from '../core/node-id';
import type { Signer, Verifier } from '../core/signer';
import { TokenBucket } from '../core/token-bucket';
import { KeyedRateLimit } from '../core/keyed-rate-limit';
import { LruMap } from '../core/lru-map';
import { CHAT_RATE, makeChatLine, MAX_CHAT_CHARS, normaliseChatText, verifyChatLine, type ChatLine } from '../region/chat-line';
import type { PlayerPass } from '../region/player-pass';
import { regionAt, regionName, type RegionCoord } from '../region/region-key';
import type { PlayerWire } from '../region/region-wire';
import type { SubscriptionMessageOf } from '../region/subscription-messages';
import type { Pose } from '../world/pose';
import type { RegionClient } from './region-client';
import { VoxelError } from '../core/errors';

export const CHAT_CLIENT_DEFAULTS = {
  /** Lines this player may say at once, then SAY_PER_SECOND: the hosts' rate (region/chat-line.ts CHAT_RATE), so none is said in vain. */
  sayBurst: CHAT_RATE.burst,
};

/** Lines said per second after the burst: the hosts' rate. */
const SAY_PER_SECOND = CHAT_RATE.perSec;
/** Lines kept in the tab's history. */
const MAX_LINES = 200;
/** Lines shown from one speaker at once, then per second (looser than the hosts': two regions may carry one speaker). */
const SPEAKER_BURST = 8;
const SPEAKER_PER_SECOND = 2;
/** CHAT frames taken from one host at once, then per second, before any signature is checked. */
const HOST_BURST = 40;
const HOST_PER_SECOND = 16;
/** A line stamped this much before our wall clock, or this much after, is dropped (a replay; a stamp that would pin the speaker's next lines out). */
const MAX_AGE_MS = 120_000;
const MAX_AHEAD_MS = 30_000;
/** Speakers (and hosts) whose rate and last line are remembered. */
const MAX_SPEAKERS = 512;
/**
 * A line of ours not echoed by the region's primary this long after it went is sent again (the
 * same signed line: receivers show a stamp once), at most MAX_SENDS times in all. Why: a SAY
 * is lost with a dying link, and nothing else would tell the speaker; a line typed and shown
 * here must reach the others or be marked as not heard (`unheard`). Traced in e2e/chat.test
 * on a loaded machine: the two tabs took each other for silent, the first SAY reached no host
 * (no pass taken, no refusal counted), and the speaker's subscription was re-attaching for
 * the next 2 s, so both resends found no primary and the line was given up unsent.
 */
const RESEND_MS = 1000;
const MAX_SENDS = 3;
/**
 * While its region has no primary we are attached to (a failover, a re-attach), a line waits
 * for one, checked every RESEND_MS: it is sent as soon as one is there, and given up only
 * when this long has passed since it was said (or MAX_SENDS went unechoed).
 */
const UNHEARD_MS = 10_000;
/**
 * A CHAT that comes while the region has no primary we are attached to (an attach, a
 * re-attach: its SNAPSHOT's checks still under way, or its silence-watch gave up on a live
 * primary) is taken when it comes from the primary we were attached to last there; from
 * another node it is held this long, at most MAX_HELD of them, and taken if its sender turns
 * out to be the primary we attach to; dropped as 'not-host' otherwise. Dropped at once, such
 * a line was lost to us for good: its speaker stops sending once the primary echoes it.
 * Traced in e2e/chat.test on a loaded machine: the listener took its live primary for silent,
 * took the region over itself, and dropped the line the old primary passed on meanwhile.
 */
const HOLD_MS = 10_000;
const MAX_HELD = 32;
/** Stamps of each speaker's last lines shown, to tell a line shown again (a duplicate) from a replay. */
const SHOWN_STAMPS = 16;

export type ChatClientOptions = typeof CHAT_CLIENT_DEFAULTS;

/** A line as the player sees it. */
export interface ChatEntry {
  /** The speaker's player id (hex): two players may share a name, never an id. */
  player: string;
  name: string;
  /** The speaker's colour (palette index), as they signed it. */
  colour: number;
  text: string;
  /** When the speaker said it (epoch ms, the speaker's clock). */
  at: number;
  /** Said by this tab. */
  own: boolean;
  /** Ours, given up without an echo from the region's primary: nobody may have heard it (the box marks it "not sent"). */
  unheard?: boolean;
}

export type ChatDrop = 'not-host' | 'host-rate' | 'stale' | 'replay' | 'speaker-rate' | 'signature';

export class ChatError extends VoxelError {
  override readonly name = 'ChatError';
  constructor(readonly code: 'empty' | 'too-long' | 'rate' | 'nowhere' | 'recipient', message: string) {
    super(message);
  }
}

export interface ChatClientArgs {
  /** Its `attached` events release the lines held while a region had no primary (HOLD_MS). */
  client: Pick<RegionClient, 'attachment'> & { events?: Pick<RegionClient['events'], 'on'> };
  wire: PlayerWire;
  world: string;
  /** The player's key: signs what this tab says. */
  player: Signer;
  /** This node's player pass (the hosts pass on lines only from a node that showed it). */
  pass?: Promise<PlayerPass>;
  verify: Verifier;
  /** Drives the rates (virtual in simulations). */
  clock: Clock;
  /** The wall clock lines are stamped with (default Date.now). */
  wallClock?: () => number;
  /** The name the player is shown by now. */
  name(): string;
  /** The colour this tab's lines are signed with (palette index; none: the one the player id gives). */
  colour?(): number;
  /** Where the player stands now (undefined: not in the world yet). */
  where(): Pick<Pose, 'x' | 'z'> | undefined;
  options?: Partial<ChatClientOptions>;
}

export interface ChatClientEvents extends Record<string, unknown> {
  line: ChatEntry;
  /** A line of ours was given up unheard, or its echo came after all: its `unheard` changed. */
  heard: ChatEntry;
}

interface Speaker {
  bucket: TokenBucket;
  /** The stamp of its last line shown (or being checked): a later one only. */
  last: number;
  /** The stamps of its last SHOWN_STAMPS lines shown. */
  shown: number[];
}

export class ChatClient {
  readonly events = new Emitter<ChatClientEvents>();
  readonly stats = { said: 0, shown: 0, echoes: 0, resent: 0, unheard: 0, duplicates: 0, held: 0, dropped: { 'not-host': 0, 'host-rate': 0, stale: 0, replay: 0, 'speaker-rate': 0, signature: 0 } as Record<ChatDrop, number> };
  private readonly opts: ChatClientOptions;
  private readonly history: ChatEntry[] = [];
  private readonly speakers = new LruMap<string, Speaker>(MAX_SPEAKERS);
  private readonly hosts: KeyedRateLimit;
  private readonly own = new Set<number>();
  private readonly sayBucket: TokenBucket;
  private readonly selfHex: string;
  private lastSaid = 0;
  /** Our lines not yet echoed by a primary, by stamp: what to send again, where, and until when. */
  private readonly unechoed = new Map<number, { region: RegionCoord; frame: SubscriptionMessageOf<'SAY'>; entry: ChatEntry; sends: number; until: number; timer: TimerHandle }>();
  /** Our lines given up unheard, by stamp (a late echo clears the mark). */
  private readonly givenUp = new LruMap<number, ChatEntry>(MAX_LINES);
  /** CHATs from a region with no primary attached, by arrival (HOLD_MS). */
  private held: { at: number; fromHex: string; m: SubscriptionMessageOf<'CHAT'> }[] = [];
  private readonly offs: (() => void)[] = [];
  /** Region name -> the primary we were attached to there last (hex), from the client's `attached` events. */
  private readonly lastPrimary = new LruMap<string, string>(MAX_SPEAKERS);

  constructor(private readonly args: ChatClientArgs) {
    this.opts = { ...CHAT_CLIENT_DEFAULTS, ...args.options };
    this.selfHex = idToHex(args.player.id);
    this.hosts = new KeyedRateLimit(HOST_PER_SECOND, HOST_BURST, MAX_SPEAKERS);
    this.sayBucket = new TokenBucket(SAY_PER_SECOND, this.opts.sayBurst, args.clock.now());
    this.offs.push(args.wire.toPlayer.on('frame', ({ fromHex, msg }) => {
      if (msg.t === 'CHAT') void this.take(fromHex, msg);
    }));
    if (args.client.events) {
      this.offs.push(args.client.events.on('attached', ({ region, primary }) => {
        this.lastPrimary.set(regionName(region), primary);
        this.release(region, primary);
      }));
    }
  }

  close(): void {
    for (const off of this.offs) off();
    this.held = [];
    for (const u of this.unechoed.values()) this.args.clock.clearTimeout(u.timer);
    this.unechoed.clear();
  }

  /** The lines of this tab's history, oldest first. */
  lines(): ChatEntry[] {
    return this.history.slice();
  }

  /** Says `typed` to the players around; resolves with the line as shown here. Throws ChatError when it cannot be said. */
  async say(typed: string): Promise<ChatEntry> {
    const text = normaliseChatText(typed);
    if (text === undefined) {
      if (typed.trim() === '') throw new ChatError('empty', 'Nothing to say');
      throw new ChatError('too-long', `A line is at most ${MAX_CHAT_CHARS} characters, with no control characters`);
    }
    const pos = this.args.where();
    const region: RegionCoord | undefined = pos && regionAt(pos.x, pos.z);
    const primary = region && this.args.client.attachment(region)?.primary;
    // Between two primaries (a failover, a re-attach) the line waits for the next one (resend);
    // only where we were never attached is there nobody to wait for.
    const between = !!region && !primary && this.lastPrimary.peek(regionName(region)) !== undefined;
    if (!region || (!primary && !between)) throw new ChatError('nowhere', 'Nobody can hear you yet: the region you stand in has no host (joining)');
    if (!this.sayBucket.take(1, this.args.clock.now())) throw new ChatError('rate', 'You are talking too fast: wait a moment');
    // Stamps of one player's lines only go up (receivers drop a stamp not after the last).
    const w = Math.max(Math.floor((this.args.wallClock ?? Date.now)()), this.lastSaid + 1);
    this.lastSaid = w;
    const line = await makeChatLine(this.args.player, this.args.world, this.args.name(), text, w, this.args.colour?.());
    const frame: SubscriptionMessageOf<'SAY'> = { t: 'SAY', rx: region.rx, rz: region.rz, ...line };
    if (primary) await this.send(primary, frame);
    this.stats.said++;
    this.own.add(w);
    if (this.own.size > MAX_LINES) this.own.delete(this.own.values().next().value!);
    const entry: ChatEntry = { player: this.selfHex, name: line.n, colour: line.c, text, at: w, own: true };
    const now = this.args.clock.now();
    this.unechoed.set(w, { region, frame, entry, sends: primary ? 1 : 0, until: now + UNHEARD_MS, timer: this.args.clock.setTimeout(() => void this.resend(w), RESEND_MS) });
    if (this.unechoed.size > MAX_LINES) this.forget(this.unechoed.keys().next().value!);
    const speaker = this.speaker(this.selfHex);
    speaker.last = Math.max(speaker.last, w);
    return this.show(entry);
  }

  private async send(primary: string, frame: SubscriptionMessageOf<'SAY'>): Promise<void> {
    const to = hexToId(primary);
    const pass = await this.args.pass;
    // Shown with each line: a host that knows it already answers from memory (player-passes.ts).
    if (pass) this.args.wire.send(to, { t: 'PLAYER', ...pass });
    this.args.wire.send(to, frame);
  }

  private async resend(w: number): Promise<void> {
    const u = this.unechoed.get(w);
    if (!u) return;
    if (u.sends >= MAX_SENDS || this.args.clock.now() >= u.until) return this.giveUp(w, u.entry);
    u.timer = this.args.clock.setTimeout(() => void this.resend(w), RESEND_MS);
    // To the region's primary now: the one it went to may have failed over meanwhile. With
    // none attached, the line waits for one (a send to nobody would spend a try).
    const primary = this.args.client.attachment(u.region)?.primary;
    if (!primary) return;
    u.sends++;
    this.stats.resent++;
    await this.send(primary, u.frame);
  }

  private giveUp(w: number, entry: ChatEntry): void {
    this.forget(w);
    this.stats.unheard++;
    entry.unheard = true;
    this.givenUp.set(w, entry);
    this.events.emit('heard', entry);
  }

  /** Our line `w` was echoed: heard after all if we had given it up. */
  private echoed(w: number): void {
    this.forget(w);
    const entry = this.givenUp.peek(w);
    if (!entry) return;
    this.givenUp.delete(w);
    this.stats.unheard--;
    entry.unheard = false;
    this.events.emit('heard', entry);
  }

  private forget(w: number): void {
    const u = this.unechoed.get(w);
    if (u) this.args.clock.clearTimeout(u.timer);
    this.unechoed.delete(w);
  }

  /** Held lines past HOLD_MS (or MAX_HELD) are dropped. */
  private expireHeld(): void {
    const since = this.args.clock.now() - HOLD_MS;
    while (this.held.length > 0 && (this.held.length > MAX_HELD || this.held[0]!.at < since)) {
      this.held.shift();
      this.stats.dropped['not-host']++;
    }
  }

  /** We attached to `primary` for `region`: the lines it sent meanwhile are taken, the others' dropped. */
  private release(region: RegionCoord, primary: string): void {
    this.expireHeld();
    const mine = this.held.filter((h) => h.m.rx === region.rx && h.m.rz === region.rz);
    if (mine.length === 0) return;
    this.held = this.held.filter((h) => !mine.includes(h));
    for (const h of mine) {
      if (h.fromHex === primary) void this.take(h.fromHex, h.m);
      else this.stats.dropped['not-host']++;
    }
  }

  private async take(fromHex: string, m: SubscriptionMessageOf<'CHAT'>): Promise<void> {
    const drop = (why: ChatDrop) => void this.stats.dropped[why]++;
    const attached = this.args.client.attachment({ rx: m.rx, rz: m.rz });
    const followed = attached ? attached.primary : this.lastPrimary.peek(regionName(m));
    if (!attached && followed !== fromHex && this.args.client.events) {
      this.stats.held++;
      this.held.push({ at: this.args.clock.now(), fromHex, m });
      return this.expireHeld();
    }
    if (followed !== fromHex) return drop('not-host');
    const now = this.args.clock.now();
    if (!this.hosts.take(fromHex, now)) return drop('host-rate');
    const hex = idToHex(m.p);
    if (hex === this.selfHex && this.own.has(m.w)) {
      // A copy of one already echoed (the primary's last lines, sent again on a re-attach).
      if (!this.unechoed.has(m.w) && !this.givenUp.peek(m.w)) return void this.stats.duplicates++;
      this.echoed(m.w);
      return void this.stats.echoes++;
    }
    const wall = (this.args.wallClock ?? Date.now)();
    if (m.w < wall - MAX_AGE_MS || m.w > wall + MAX_AHEAD_MS) return drop('stale');
    const speaker = this.speaker(hex);
    const again = () => speaker.shown.includes(m.w);
    if (again()) return void this.stats.duplicates++;
    if (m.w <= speaker.last) return drop('replay');
    if (!(await verifyChatLine(m as ChatLine, this.args.world, this.args.verify))) return drop('signature');
    // Checked again after the wait: another copy of the line may have been shown meanwhile.
    if (again()) return void this.stats.duplicates++;
    if (m.w <= speaker.last) return drop('replay');
    if (!speaker.bucket.take(1, this.args.clock.now())) return drop('speaker-rate');
    speaker.last = m.w;
    speaker.shown.push(m.w);
    if (speaker.shown.length > SHOWN_STAMPS) speaker.shown.shift();
    this.show({ player: hex, name: m.n, colour: m.c, text: m.x, at: m.w, own: false });
  }

  private show(entry: ChatEntry): ChatEntry {
    this.history.push(entry);
    if (this.history.length > MAX_LINES) this.history.shift();
    this.stats.shown++;
    this.events.emit('line', entry);
    return entry;
  }

  private speaker(hex: string): Speaker {
    return this.speakers.use(hex, () => ({ bucket: new TokenBucket(SPEAKER_PER_SECOND, SPEAKER_BURST, this.args.clock.now()), last: 0, shown: [] }));
  }
}
