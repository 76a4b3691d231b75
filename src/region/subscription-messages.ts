// The host-to-player codec: what a player and a region's hosts say to each other on the
// 'region' channel (subscribe, state, deltas, edits, moves, presence). The host-to-host
// codec (claims, grants, replication) is host/replication-messages.ts on its own channel,
// so a player never decodes, and a host never takes from a player, a replication frame.
// docs/HOSTING.md has the table. Every frame is checked against these schemas before any
// other code sees it (docs/DESIGN.md "Bad input and trust").
import * as v from 'valibot';
import { bytes, defineCodec, u32, type MessageOf } from '../core/codec';
import { certChainSchema, certSchema } from './epoch-cert';
import { MAX_ENTRY_BYTES, MAX_SLOT } from './position-code';
import { CODEC_MAX_FRAME, coord, entries, hosts, i32, id, PART, region, stamp } from './frame-schemas';
import { passFields } from './player-pass';
import { lookSchema, type PlayerLook } from './player-look';
import { chatLineFields } from './chat-line';
import { relayProofs } from './entry-proofs';

/** Players' positions in one POSITIONS frame (a player joining a crowd catches up over a few ticks). */
export const MAX_POSITION_ENTRIES = 256;
/** Players introduced (slot, id, look) in one POSITIONS frame. */
export const MAX_ROSTER = 64;
/** Players said gone in one POSITIONS frame. */
export const MAX_GONE = 256;

// 'uncertified': no certified primary can be had (the node asked is alone, or cannot reach a
// majority of the host set): the editor keeps the edit tentative and submits it later.
// 'world-floor': the bedrock floor (y = 0) is never edited. 'occupied': a solid block inside
// another player's body. 'unknown-player': the editing node showed this primary no valid
// player pass (region/player-pass.ts): the client sends its pass again and retries once.
export const REJECT_REASONS = ['not-primary', 'bad-block', 'outside-region', 'out-of-reach', 'rate', 'busy', 'uncertified', 'world-floor', 'occupied', 'unknown-player'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

/** Another player as the player side shows it (decoded from POSITIONS). */
export interface PlayerFrame {
  id: Uint8Array;
  /** Its name and colour as its node signed them (region/player-look.ts), unchecked; none: the host had none to give. */
  look: PlayerLook | undefined;
  x: number;
  y: number;
  z: number;
  yaw: number;
  pitch: number;
}

const slot = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_SLOT));
const rosterEntry = v.object({ s: slot, id, l: v.optional(lookSchema) });
/** A stream of compact positions (region/position-code.ts): POSITIONS, and the primary's feed to its backups. */
export const positionsFields = {
  n: u32,
  /** The host started afresh at this frame (implied at n = 0): the receiver forgets what it held from it. */
  f: v.optional(v.literal(true)),
  b: bytes(MAX_POSITION_ENTRIES * MAX_ENTRY_BYTES),
  roster: v.optional(v.pipe(v.array(rosterEntry), v.maxLength(MAX_ROSTER))),
  gone: v.optional(v.pipe(v.array(slot), v.maxLength(MAX_GONE))),
};

/** Edits riding in a POSITIONS frame: from, to, entries (as a DELTA's or a PENDING's). */
const riding = v.tuple([u32, u32, entries]);

export const subscriptionSpec = {
  /**
   * player -> node: send me the region (since a stamp); `host`: become primary if nobody is.
   * `missed`: I missed frames (a gap in the deltas, or silence): the primary serves me
   * itself for a while, whichever host of the set relayed to me (host/fan-out-plan.ts).
   */
  // `c`: I hold your certificate of since's epoch (attached to you in it): a keepalive's
  // SNAPSHOT may come without it (a certificate is most of a keepalive's answer).
  SUBSCRIBE: [1, v.object({ ...region, since: v.optional(stamp), host: v.boolean(), missed: v.optional(v.boolean()), c: v.optional(v.boolean()) })],
  UNSUBSCRIBE: [2, v.object({ ...region })],
  /** primary -> player: entries stamped after `since` (all when full), complete up to `v`. */
  // `more`: a piece of a large state; the last piece has none. `cert` left out only for a
  // subscriber that said it holds it (SUBSCRIBE `c`, same epoch): read only from the primary
  // it is attached to in that epoch.
  SNAPSHOT: [3, v.object({ ...region, e: u32, v: stamp, full: v.boolean(), hosts, entries, cert: v.optional(certSchema), chain: v.optional(certChainSchema), more: v.optional(v.boolean()) })],
  /**
   * primary (or, in a crowd, a backup relaying its share) -> subscribers: the committed edits
   * seq from..to of epoch e. `pf`: the primary's signatures over the batches it covers
   * (region/entry-proofs.ts), which a subscriber asks of a relayed one.
   */
  DELTA: [4, v.object({ ...region, e: u32, from: u32, to: u32, entries, pf: v.optional(relayProofs) })],
  /**
   * primary -> subscribers: alive, committed up to (e, s); `idle`: it beats slowly now;
   * `hosts` when it changed, and now and then. In a crowd a backup relays the primary's
   * beats to its share, without `hosts`.
   */
  HEARTBEAT: [5, v.object({ ...region, e: u32, s: u32, hosts: v.optional(hosts), idle: v.optional(v.boolean()) })],
  /**
   * node -> player: I am not the primary (of epoch e); try `primary` if given. From a new
   * primary naming itself: a takeover notice. `alone`: no certified primary can be had
   * through me now (too few hosts reachable): the player keeps its edits tentative and asks later.
   * `full`: the primary (or the claimant) holds as many subscribers as it takes
   * (`maxSubscribers`): the player asks again later, as when alone.
   */
  NOT_PRIMARY: [6, v.object({ ...region, e: u32, primary: v.optional(id), alone: v.optional(v.boolean()), full: v.optional(v.boolean()) })],
  /** player -> primary: set world block (x, y, z) to id; (px, py, pz) is where the editor stands. */
  EDIT: [7, v.object({ ...region, r: u32, x: i32, y: i32, z: i32, id: u32, px: coord, py: coord, pz: coord })],
  CONFIRM: [8, v.object({ ...region, r: u32, e: u32, s: u32 })],
  REJECT: [9, v.object({ ...region, r: u32, reason: v.picklist(REJECT_REASONS) })],
  /**
   * player -> primary of the region it stands in; `l`: its look (region/player-look.ts), now
   * and then and whenever it changed or the primary did (the primary keeps the newest).
   */
  MOVE: [10, v.object({ ...region, l: v.optional(lookSchema), x: coord, y: coord, z: coord, yaw: coord, pitch: coord })],
  // (11 was PLAYERS: every player's id, name and float position to every subscriber.)
  /**
   * host -> player: other players' positions (region/position-code.ts), coded against what
   * this host sent this subscriber before: `n` counts this host's frames to it from 0 (a
   * fresh start: the player forgets what it held from this host), so a missed frame shows as
   * a gap and the player asks POSITIONS_LOST. `roster` names new slots before `b` uses them;
   * `gone`: slots no longer standing in the region. From the primary or a backup serving a
   * share of the subscribers (the fan-out shared by the host set).
   */
  // `d`: a committed delta (DELTA's from, to, entries), `p`: batches ordered, not committed
  // yet (PENDING's), and `s`: a beat (committed up to s), riding in the frame instead of
  // frames of their own (host/player-outbox.ts); `d` and `p` as [from, to, entries], not
  // keyed: 23 bytes for one entry where the keyed object took 37 (a crowd's host sends ~40
  // of each a second to each of ~50 subscribers). `dp`, `pp`: `d`'s and `p`'s batch
  // signatures, as a relayed DELTA's and PENDING's `pf`.
  POSITIONS: [12, v.object({ ...region, e: u32, ...positionsFields, d: v.optional(riding), p: v.optional(riding), s: v.optional(u32), dp: v.optional(relayProofs), pp: v.optional(relayProofs) })],
  /** player -> the host whose POSITIONS came with a gap: start again (its next frame marked `f`). */
  POSITIONS_LOST: [13, v.object({ ...region, e: u32 })],
  /**
   * player -> any host it edits at: the player pass of the sending node (region/player-pass.ts),
   * sent before its first EDIT to that host; not about one region, so it names none.
   */
  PLAYER: [14, v.object(passFields)],
  /**
   * primary (or, in a crowd, a backup passing on its REPLICATE to its share) -> subscribers:
   * the edits seq from..to of epoch e as ordered, *not yet committed*: shown at once, marked
   * pending, until the DELTA that commits them comes (or taken back: play/pending-view.ts).
   * Never part of the region state; read under the same checks as DELTA (`pf` too).
   */
  PENDING: [15, v.object({ ...region, e: u32, from: u32, to: u32, entries, pf: v.optional(relayProofs) })],
  /** player -> primary of the region it stands in: a chat line it says (region/chat-line.ts); its node must hold the speaker's pass. */
  SAY: [16, v.object({ ...region, ...chatLineFields })],
  /** primary -> the region's subscribers: a line said there (each checks the speaker's signature itself). */
  CHAT: [17, v.object({ ...region, ...chatLineFields })],
  PART,
} as const;

export type SubscriptionMessage = MessageOf<typeof subscriptionSpec>;
export type SubscriptionMessageOf<T extends SubscriptionMessage['t']> = Extract<SubscriptionMessage, { t: T }>;
/**
 * Which side of a node each frame is for: 'host', what players send to hosts; 'player', what
 * hosts send to players. region-wire.ts hands each frame to its side only (a new frame type
 * must be given a side here, or this does not compile).
 */
export const FRAME_SIDE = {
  SUBSCRIBE: 'host', UNSUBSCRIBE: 'host', EDIT: 'host', MOVE: 'host', POSITIONS_LOST: 'host', PLAYER: 'host', SAY: 'host',
  SNAPSHOT: 'player', DELTA: 'player', PENDING: 'player', HEARTBEAT: 'player', NOT_PRIMARY: 'player', CONFIRM: 'player', REJECT: 'player', POSITIONS: 'player', CHAT: 'player',
} as const satisfies Record<Exclude<SubscriptionMessage['t'], 'PART'>, 'host' | 'player'>;
type SideOf<S extends 'host' | 'player'> = { [T in keyof typeof FRAME_SIDE]: (typeof FRAME_SIDE)[T] extends S ? T : never }[keyof typeof FRAME_SIDE];
/**
 * Frames nobody waits on, which may wait briefly on a link to share a write with others
 * (net/link.ts `mayWait`): a subscriber's beat (it re-attaches only after a second of
 * silence) and positions (the far tab interpolates them). Not positions carrying a delta or
 * pending batches (`d`, `p`): an edit to show. Everything else (an edit, its confirmation, a
 * delta, a snapshot, a move) leaves at the end of its task, taking what waits along.
 */
export function mayWaitOnLink(msg: Exclude<SubscriptionMessage, { t: 'PART' }>): boolean {
  return msg.t === 'HEARTBEAT' || (msg.t === 'POSITIONS' && msg.d === undefined && msg.p === undefined);
}
/** Frames a host takes from players. */
export type PlayerToHost = SubscriptionMessageOf<SideOf<'host'>>;
/** Frames a player takes from hosts. */
export type HostToPlayer = SubscriptionMessageOf<SideOf<'player'>>;

// POSITIONS as an array, not a map (codec.ts `positional`), the fields in every frame first: a
// crowd's host sends ~1,500 a second, and the names took 12 of a frame's ~23 bytes of head
// (and 2 more for each of s, d, p riding).
export const subscriptionCodec = defineCodec(subscriptionSpec, { maxFrame: CODEC_MAX_FRAME, positional: { POSITIONS: ['rx', 'rz', 'e', 'n', 'b', 's', 'd', 'p', 'f', 'roster', 'gone', 'dp', 'pp'] } });
