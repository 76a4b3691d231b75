// The hosting protocol's frames (docs/HOSTING.md has the table). Every frame is checked
// against these schemas before any other code sees it (docs/DESIGN.md "Bad input and trust").
import * as v from 'valibot';
import { bytes, defineCodec, u32, type MessageOf } from '../core/codec';
import { ID_BYTES } from '../core/node-id';
import { certPrevSchema, certSchema, grantSigSchema, MAX_PEND } from './epoch-cert';

/** Largest frame sent as one DATA payload; larger ones travel as PART frames. */
export const WIRE_MAX = 60 * 1024;
/** Bytes of one PART. */
export const PART_BYTES = 48 * 1024;
/** Largest reassembled frame (a region state of ~170k edited blocks). */
export const ASSEMBLED_MAX = 2 * 1024 * 1024;
/** Host ids named in a frame (the host set, r <= 7). */
export const MAX_HOSTS = 8;
/** Subscribers a primary lists to its backups (who tell them of a takeover). */
export const MAX_SUBS_LISTED = 64;
/** Edit requests named in one REPLICATE (one per edit of the batch). */
export const MAX_REQS = 4096;
/** Edit requests a host hands over with its state (SYNC, GRANT): the newest are kept. */
export const MAX_STATE_REQS = 4096;
/** Players named in one PLAYERS frame. */
export const MAX_PLAYERS = 64;

const id = bytes(ID_BYTES, ID_BYTES);
const hosts = v.pipe(v.array(id), v.maxLength(MAX_HOSTS));
const i32 = v.pipe(v.number(), v.integer(), v.minValue(-0x80000000), v.maxValue(0x7fffffff));
const coord = v.pipe(v.number(), v.finite(), v.minValue(-1e8), v.maxValue(1e8));
const entries = bytes(ASSEMBLED_MAX);
const stamp = v.object({ e: u32, s: u32 });
const region = { rx: i32, rz: i32 };
const name = v.pipe(v.string(), v.maxLength(32));
/** (editor, request id, seq) of an ordered edit, so a successor dedupes a re-sent edit. */
const reqs = v.optional(v.pipe(v.array(v.tuple([id, u32, u32])), v.maxLength(MAX_REQS)));
/** (editor, request id, block key, block id, epoch, seq) of edits a host knows were ordered (its request log). */
const reqLog = v.optional(v.pipe(v.array(v.tuple([id, u32, u32, u32, u32, u32])), v.maxLength(MAX_STATE_REQS)));

// 'uncertified': no certified primary can be had (the node asked is alone, or cannot reach a
// majority of the host set): the editor keeps the edit tentative and submits it later.
export const REJECT_REASONS = ['not-primary', 'bad-block', 'outside-region', 'out-of-reach', 'rate', 'busy', 'uncertified'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

export const playerSchema = v.object({ id, name, x: coord, y: coord, z: coord, yaw: coord, pitch: coord });
export type PlayerFrame = v.InferOutput<typeof playerSchema>;

export const hostSpec = {
  /** client -> node: send me the region (since a stamp); `host`: become primary if nobody is. */
  SUBSCRIBE: [1, v.object({ ...region, since: v.optional(stamp), host: v.boolean() })],
  UNSUBSCRIBE: [2, v.object({ ...region })],
  /** primary -> client: entries stamped after `since` (all when full), complete up to `v`. */
  // `more`: a piece of a large state; the last piece has none.
  SNAPSHOT: [3, v.object({ ...region, e: u32, v: stamp, full: v.boolean(), hosts, entries, cert: certSchema, more: v.optional(v.boolean()) })],
  /** primary -> subscribers: the committed edits seq from..to of epoch e. */
  DELTA: [4, v.object({ ...region, e: u32, from: u32, to: u32, entries })],
  /** primary -> backups and subscribers: alive, committed up to (e, s); backups also get the subscribers. */
  // `b`: beat number, echoed in the backups' ACK (the primary's lease counts from the beat's send time).
  HEARTBEAT: [5, v.object({ ...region, e: u32, s: u32, hosts, subs: v.optional(v.pipe(v.array(id), v.maxLength(MAX_SUBS_LISTED))), idle: v.optional(v.boolean()), b: v.optional(u32) })],
  /** any -> client: I am not the primary (of epoch e); try `primary` if given. From a new primary naming itself: a takeover notice. */
  // `refuse`: a host's answer to a primary's frame it will not follow (it promised e elsewhere).
  // `alone`: no certified primary can be had through me now (too few hosts reachable): the
  // player keeps its edits tentative and asks again later.
  NOT_PRIMARY: [6, v.object({ ...region, e: u32, primary: v.optional(id), refuse: v.optional(v.boolean()), alone: v.optional(v.boolean()) })],
  /** client -> primary: set world block (x, y, z) to id; (px, py, pz) is where the editor stands. */
  EDIT: [7, v.object({ ...region, r: u32, x: i32, y: i32, z: i32, id: u32, px: coord, py: coord, pz: coord })],
  CONFIRM: [8, v.object({ ...region, r: u32, e: u32, s: u32 })],
  REJECT: [9, v.object({ ...region, r: u32, reason: v.picklist(REJECT_REASONS) })],
  /** player -> primary of the region it stands in. */
  MOVE: [10, v.object({ ...region, name, x: coord, y: coord, z: coord, yaw: coord, pitch: coord })],
  PLAYERS: [11, v.object({ ...region, e: u32, players: v.pipe(v.array(playerSchema), v.maxLength(MAX_PLAYERS)) })],
  /** claimant -> host set (+ previous hosts): grant me epoch e over `hosts`; `known`: the newest certificate I hold. */
  CLAIM: [12, v.object({ ...region, e: u32, hosts, known: v.optional(certSchema), rebase: v.optional(v.boolean()), pend: v.optional(v.pipe(v.array(certPrevSchema), v.maxLength(MAX_PEND))) })],
  /**
   * host -> claimant: yes (`sig`: my signature over the claim's terms, and my state) or no
   * (I promised `promised` already; `cert`: the newest certificate I hold, when newer than the claimant's).
   */
  GRANT: [13, v.object({ ...region, e: u32, ok: v.boolean(), promised: u32, entries: v.optional(entries), sig: v.optional(grantSigSchema), cert: v.optional(certSchema), reqs: reqLog, pend: v.optional(certPrevSchema) })],
  /** primary -> backups: edits seq from..to of epoch e. */
  /** `reqs`: the batch's edit requests as (editor, request id, seq), so a successor dedupes re-sends. */
  REPLICATE: [14, v.object({ ...region, e: u32, from: u32, to: u32, entries, hosts, reqs })],
  /** backup -> primary: holds up to seq `to` of epoch e; `b`: the heartbeat answered (the primary's lease). */
  ACK: [15, v.object({ ...region, e: u32, to: u32, b: v.optional(u32) })],
  /** primary -> backup: the full state at (e, s) (join, re-replication, gap repair), with the epoch's certificate and the request log. */
  SYNC: [16, v.object({ ...region, e: u32, s: u32, hosts, entries, cert: certSchema, reqs: reqLog, more: v.optional(v.boolean()) })],
  /** backup -> primary: I missed something, send SYNC. */
  SYNC_REQ: [17, v.object({ ...region, e: u32 })],
  /** primary -> closer node: claim epoch e (I will grant it). */
  // To the target: `cert`, the primary's certificate (the claim's previous epoch). To the
  // backups: `to`, the target, whose claim they may grant although they heard the primary just now.
  HANDOFF: [18, v.object({ ...region, e: u32, cert: v.optional(certSchema), to: v.optional(id) })],
  /** host -> primary: stored entries the primary may lack (a restarted host's state); it adopts them as new edits. */
  // `cert`: a certificate of the region naming the offerer as a host (its stored promise): only hosts may offer.
  OFFER: [20, v.object({ ...region, entries, cert: v.optional(certSchema) })],
  /** claimant -> its granters: my claim of e formed no certificate and never will (forget it). */
  ABANDON: [21, v.object({ ...region, e: u32 })],
  /** One piece of a frame larger than WIRE_MAX. */
  PART: [19, v.object({ x: u32, i: u32, n: v.pipe(u32, v.minValue(1), v.maxValue(Math.ceil(ASSEMBLED_MAX / PART_BYTES))), b: bytes(PART_BYTES) })],
} as const;

export type HostMessage = MessageOf<typeof hostSpec>;
export type HostMessageOf<T extends HostMessage['t']> = Extract<HostMessage, { t: T }>;
/** Frames about a region (everything but PART). */
export type RegionMessage = Exclude<HostMessage, { t: 'PART' }>;

export const hostCodec = defineCodec(hostSpec, { maxFrame: ASSEMBLED_MAX + 1024 });
