// The host-to-host codec: what the hosts of a region say to each other on the 'replica'
// channel (election: claim / grant / abandon / handoff; commit pipeline: replicate, ack,
// heartbeat, sync). Players speak subscription-messages.ts on another channel and never
// see these. docs/HOSTING.md has the table. Every frame is checked against these schemas
// before any other code sees it (docs/DESIGN.md "Bad input and trust").
import * as v from 'valibot';
import { defineCodec, u32, type MessageOf } from '../core/codec';
import { certChainSchema, certPrevSchema, certSchema, grantSigSchema, MAX_PEND } from '../region/epoch-cert';
import { CODEC_MAX_FRAME, entries, hosts, id, PART, region } from '../region/frame-schemas';
import { positionsFields } from '../region/subscription-messages';
import { proofSchema, relayProofs, sigBytes } from '../region/entry-proofs';
import { MAX_FRAME_PROOFS, MAX_PROOF_CERTS } from './state-proofs';

/** Subscribers a primary lists to its backups (who tell them of a takeover). */
export const MAX_SUBS_LISTED = 64;
/** Subscribers one backup is given to serve positions to (the primary's maxSubscribers). */
export const MAX_SERVED = 512;
/** Edit requests named in one REPLICATE (one per edit of the batch). */
export const MAX_REQS = 4096;
/** Edit requests a host hands over with its state (SYNC, GRANT): the newest are kept. */
export const MAX_STATE_REQS = 4096;


/** Frames one GRANT answer may take (a state of 4M entries and its proofs, in pieces of 65,536). */
const MAX_ANSWER_FRAMES = 256;
/** (editor, request id, seq) of an ordered edit, so a successor dedupes a re-sent edit. */
const reqs = v.optional(v.pipe(v.array(v.tuple([id, u32, u32])), v.maxLength(MAX_REQS)));
/** (editor, request id, block key, block id, epoch, seq) of edits a host knows were ordered (its request log). */
const reqLog = v.optional(v.pipe(v.array(v.tuple([id, u32, u32, u32, u32, u32])), v.maxLength(MAX_STATE_REQS)));

export const replicationSpec = {
  /** primary -> backups: alive, committed up to (e, s), its subscribers (told of a takeover). */
  // `b`: beat number, echoed in the backups' ACK (the primary's lease counts from the beat's send time).
  // `unload`: the region has been idle for unloadAfterMs: the primary unloads it, and so do we (host-options.ts).
  // `release`: the primary's last beat of epoch e: it stopped ordering with no successor (no majority answered it), and
  // its backups claim at once by rank instead of waiting out its silence (backup-machine.ts `released`).
  HEARTBEAT: [5, v.object({ ...region, e: u32, s: u32, hosts, subs: v.optional(v.pipe(v.array(id), v.maxLength(MAX_SUBS_LISTED))), idle: v.optional(v.boolean()), unload: v.optional(v.boolean()), b: v.optional(u32), release: v.optional(v.boolean()) })],
  /** backup -> a primary it will not follow: I promised epoch e (to `primary`, if I follow it). */
  REFUSE: [6, v.object({ ...region, e: u32, primary: v.optional(id) })],
  /** claimant -> host set (+ previous hosts): grant me epoch e over `hosts`; `known`: the newest certificate I hold. */
  CLAIM: [12, v.object({ ...region, e: u32, hosts, known: v.optional(certSchema), chain: v.optional(certChainSchema), rebase: v.optional(v.boolean()), pend: v.optional(v.pipe(v.array(certPrevSchema), v.maxLength(MAX_PEND))) })],
  /**
   * host -> claimant: yes (`sig`: my signature over the claim's terms, and my state) or no
   * (I promised `promised` already; `cert`: the newest certificate I hold, when newer than the claimant's).
   */
  // `proofs`: entries signed by a primary (its batches and SYNC pieces we keep, or our own state if we were the primary), under the certificates `pc`.
  GRANT: [13, v.object({
    ...region, e: u32, ok: v.boolean(), promised: u32, entries: v.optional(entries), sig: v.optional(grantSigSchema), cert: v.optional(certSchema), chain: v.optional(certChainSchema), reqs: reqLog, pend: v.optional(certPrevSchema),
    proofs: v.optional(v.pipe(v.array(proofSchema), v.maxLength(MAX_FRAME_PROOFS))), pc: v.optional(v.pipe(v.array(certSchema), v.maxLength(MAX_PROOF_CERTS))),
    /** Frames this answer takes (a large state, its evidence), when more than one: the claimant counts the answer once all came. */
    n: v.optional(v.pipe(u32, v.maxValue(MAX_ANSWER_FRAMES))),
  })],
  /** primary -> backups: edits seq from..to of epoch e. */
  /** `reqs`: the batch's edit requests as (editor, request id, seq), so a successor dedupes re-sends. */
  /** `sig`: the primary's signature over the batch (state-proofs.ts), kept by the backups as evidence of its entries. */
  REPLICATE: [14, v.object({ ...region, e: u32, from: u32, to: u32, entries, hosts, reqs, sig: v.optional(sigBytes) })],
  /** backup -> primary: holds up to seq `to` of epoch e; `b`: the heartbeat answered (the primary's lease). */
  ACK: [15, v.object({ ...region, e: u32, to: u32, b: v.optional(u32) })],
  /** primary -> backup: the full state at (e, s) (join, re-replication, gap repair), with the epoch's certificate and the request log. */
  /** `sig`: the primary's signature over this piece's entries (state-proofs.ts, `f` 0, `t` s). */
  /** `silent`: nodes the primary struck for leaving the region unanswered (unclaiming-hosts.ts); its backups strike them too. */
  SYNC: [16, v.object({ ...region, e: u32, s: u32, hosts, entries, cert: certSchema, chain: v.optional(certChainSchema), reqs: reqLog, more: v.optional(v.boolean()), sig: v.optional(sigBytes), silent: v.optional(hosts) })],
  /** backup -> primary: I missed something, send SYNC. */
  SYNC_REQ: [17, v.object({ ...region, e: u32 })],
  /** primary -> closer node: claim epoch e (I will grant it). */
  // To the target: `cert`, the primary's certificate (the claim's previous epoch). To the
  // backups: `to`, the target, whose claim they may grant although they heard the primary just now.
  HANDOFF: [18, v.object({ ...region, e: u32, cert: v.optional(certSchema), chain: v.optional(certChainSchema), to: v.optional(id) })],
  /** host -> primary: stored entries the primary may lack (a restarted host's state); it adopts them as new edits. */
  // `cert`: the offerer's certificate of the region (informative: the primary takes offers only from hosts its own
  // certificate or that one's previous set names, region-offers.ts).
  OFFER: [20, v.object({ ...region, entries, cert: v.optional(certSchema) })],
  /** claimant -> its granters: my claim of e formed no certificate and never will (forget it). */
  // alive: the primary the claim took for dead answered it (its granters go back to it).
  // silent: hosts the claim named that sent it nothing in its whole round (a granter strikes them too: unclaiming-hosts.ts).
  ABANDON: [21, v.object({ ...region, e: u32, alive: v.optional(v.boolean()), silent: v.optional(hosts) })],
  PART,
  /**
   * primary -> backup, in a crowd (host/positions-duty.ts, host/fan-out-share.ts): every player's position as a
   * POSITIONS stream (everyone at every change), and (`serve`, when it changes) the
   * subscribers this backup sends POSITIONS to, so no one host carries the crowd's fan-out.
   */
  FEED: [22, v.object({ ...region, e: u32, ...positionsFields, serve: v.optional(v.pipe(v.array(id), v.maxLength(MAX_SERVED))) })],
  /** backup -> primary: a FEED frame was missing or unreadable: start the stream again. */
  FEED_LOST: [23, v.object({ ...region, e: u32 })],
  /**
   * primary -> a backup serving a share of the subscribers (host/fan-out-plan.ts): the
   * committed edits seq from..to of epoch e, once, for it to pass on to them as a DELTA,
   * with `pf`, the signatures of the batches it covers (the subscribers check them).
   */
  RELAY: [24, v.object({ ...region, e: u32, from: u32, to: u32, entries, pf: v.optional(relayProofs) })],
} as const;

export type ReplicationMessage = MessageOf<typeof replicationSpec>;
export type ReplicationMessageOf<T extends ReplicationMessage['t']> = Extract<ReplicationMessage, { t: T }>;

/**
 * Frames nobody waits on, which may wait briefly on a link to share a write with others
 * (net/link.ts `mayWait`, at most LINK_WAIT_MS, 25 ms): a primary's beat, which its backups
 * allow failoverMs (600 ms) or more of silence and whose ack its lease needs within leaseMs
 * (290 ms) of it, one beat period (100 ms) later at most. Not the beat that says `release`
 * (its backups claim at once on it), nor anything of an edit's path or a claim.
 */
export function mayWaitOnLink(msg: Exclude<ReplicationMessage, { t: 'PART' }>): boolean {
  return msg.t === 'HEARTBEAT' && msg.release === undefined;
}

// FEED as an array, as POSITIONS (subscription-messages.ts): 20 a second to each backup serving a share.
export const replicationCodec = defineCodec(replicationSpec, { maxFrame: CODEC_MAX_FRAME, positional: { FEED: ['rx', 'rz', 'e', 'n', 'b', 'serve', 'f', 'roster', 'gone'] } });
