// Every hosting option and its default (docs/HOSTING.md explains the timings).
import type { LatencySamples } from '../core/latency-samples';
import { LINK_BUDGET_DEFAULTS } from '../dht/link-budget';
import { EDIT_RULES } from './edit-validator';
import { MOTION_RULES, type MotionRules } from './motion-tracker';
import { newPassStats, PASS_RULES, type PassStats } from './player-passes';
import { newChatStats, type ChatStats } from './chat-relay';
import { REJECT_REASONS, type RejectReason } from '../region/subscription-messages';
import { HOST_SET_SIZE, REBASE_SILENCE_MS } from '../region/host-set-rules';

/**
 * The node's pins left to its own player: the primaries of the 3 x 3 regions it sees and a
 * backup or two serving it in a crowd (play/region-client.ts), with room.
 */
const PLAYER_PINS = 12;

export const HOST_DEFAULTS = {
  /** Host set size (replicas): the primary and replicas - 1 backups (players assume the same). */
  replicas: HOST_SET_SIZE,
  /** Authoritative tick rate. */
  tickHz: 20,
  /** Primary -> backups and subscribers (a backup also checks its primary this often). */
  heartbeatMs: 100,
  /**
   * A backup that has not heard its primary for this long starts a takeover. A crashed tab
   * says nothing, so this is most of a failover's time (the target: 1 s to the next
   * confirmed edit); it must stay well above a busy tab's event-loop stalls.
   */
  failoverMs: 600,
  /**
   * A primary that was slow lately (long gaps between its frames) is allowed this many times
   * its longest recent gap of silence, up to slowPrimaryMaxMs, the gap halving in weight every
   * slowPrimaryHalfLifeMs (primary-pace.ts): starved tabs no longer take each other for dead.
   */
  slowPrimaryFactor: 2,
  slowPrimaryMaxMs: 2400,
  slowPrimaryHalfLifeMs: 10_000,
  /**
   * Backups check their primary's silence this often: a takeover starts within this of
   * failoverMs (it was heartbeatMs, which added 50 ms to the average failover).
   */
  watchMs: 25,
  /**
   * A primary takes a backup that answered none of its frames for this long for dead (and
   * moves to a new host set). Slower than failoverMs: a busy backup costs nothing until then.
   */
  backupQuietMs: 1500,
  /** Extra wait per backup rank, so the next-closest backup claims first. */
  claimStaggerMs: 400,
  /**
   * A primary confirms only while a majority of its certificate's hosts acked a frame it sent
   * less than this long ago. Backups refuse every other claimant for failoverMs / 2 after
   * hearing their primary, so with leaseMs below that no two primaries confirm at once. The
   * lease counts from our send and the backup's refusal from its reading of the frame, never
   * earlier, so the margin below failoverMs / 2 is only for clock rates; each ms of it is an
   * ack that comes too late to hold the lease (a starved backup's answers come back 250-300
   * ms after the beat: at 250 a new primary waited seconds for the lease in HostSim).
   */
  leaseMs: 290,
  /**
   * A claimant to whose claims no majority of the previous set answered at all (grant or
   * refusal: a refusal is proof of life) for this long takes that majority for dead and
   * claims a rebase (certified by the new set alone). The price: a partition longer than
   * this, with the old majority alive on the other side, can fork the region's history
   * (docs/HOSTING.md "What certificates do not cover").
   */
  rebaseMs: REBASE_SILENCE_MS,
  /**
   * The same when our certificate came from our own store (we restarted): the chain may
   * have moved on while we were away, with hosts we never heard of, so we wait far longer.
   */
  rebaseRestoredMs: 120_000,
  /** Most offered entries a primary adopts per tick (a restarted host's state comes in over several ticks). */
  offerPerTick: 4096,
  /** Most offered entries a primary holds waiting for adoption. */
  maxOffered: 65_536,
  /**
   * After the quorum, wait this long for the other grants' states. 0: a quorum of grants
   * already holds every confirmed edit (each is in a majority's memory), and the hosts that
   * answer later get our SYNC; waiting bought nothing but up to 150 ms of every failover
   * whose host set still named a node that had died silently (docs/HOSTING.md "Failing over fast").
   */
  claimGraceMs: 0,
  /** Backup acks needed before an edit is confirmed (capped by the live backups). */
  confirmAcks: 1,
  /**
   * Ordered edits go to the subscribers at once as PENDING, before they commit (drawn marked
   * pending, taken back if they never commit: play/pending-view.ts); false: subscribers see
   * an edit only at its commit (the DELTA), a commit round trip later.
   */
  showPending: true,
  /**
   * Most subscribers of one region (and most waiting for a claim to finish): past it a new
   * one hears NOT_PRIMARY `full` and asks again later. The crowd target is 200 players in
   * one region; 512 leaves room for those looking in from neighbouring regions.
   */
  maxSubscribers: 512,
  /**
   * Most peers this host pins its links to (host-pins.ts: a primary's backups, then the
   * subscribers near enough to edit, then the others): the node's `maxPinnedLinks` (64,
   * dht/link-budget.ts) less the player's share, so a busy primary's pins never refuse its
   * player's. 52; derived so that the two move together.
   */
  maxHostPins: LINK_BUDGET_DEFAULTS.maxPinnedLinks - PLAYER_PINS,
  /**
   * A region with no subscriber, edit or move for this long is idle: its primary beats to
   * the backups only every `idleHeartbeatMs`, and they allow for that before taking over.
   */
  idleAfterMs: 60_000,
  idleHeartbeatMs: 2000,
  /**
   * A region idle this long is unloaded by its hosts (the idle cost of hosting): written to the
   * store and dropped from memory, its timers, ticks, lookups and pinned links with it; the
   * next frame that names it reads it back from the store first (hosting-service.ts). The
   * primary says so in its beats (`unload`) and its backups unload too; any other region
   * (a granter's, a redirecting node's) unloads after this long without a frame. Needs a
   * store (without one nothing unloads); Infinity: never. Above DEDUPE_MS (request-log.ts): a
   * re-sent edit is still recognised (the request log is not stored).
   */
  unloadAfterMs: 300_000,
  rules: EDIT_RULES,
  /** Player passes: the work asked, and the bounds of what the passes held take (player-passes.ts). */
  passes: PASS_RULES,
  /** How fast players may move between position reports (null: reports are believed as sent). */
  motion: MOTION_RULES as MotionRules | null,
  /**
   * A play-only peer (its DHT is read-only: dht/read-only-peers.ts): it claims, backs up and
   * serves no region, and reloads none; hosting frames that reach it anyway are dropped
   * (`playOnlyFrames`), an edit refused as sent to no primary.
   */
  playOnly: false as boolean,
  random: Math.random as () => number,
};

export type HostOptions = typeof HOST_DEFAULTS;

export interface HostStats extends PassStats, ChatStats {
  claims: number;
  claimsWon: number;
  claimsFailed: number;
  /**
   * Claims begun while we followed a primary, because it went silent: by our own watch
   * (`silenceClaims`: past its silence limit, primary-pace.ts) or at a player's SUBSCRIBE
   * while we had not heard it for failoverMs (`subscribeClaims`); `takeovers`: such claims
   * won. With nobody dead, each takeover deposed a primary that was alive.
   */
  silenceClaims: number;
  subscribeClaims: number;
  takeovers: number;
  /** Claims that met another claimant of the same epoch (a duel) and ended at once: we were the closer and claimed again at once, or the farther and gave way. */
  claimDuels: number;
  grants: number;
  refusals: number;
  /** Claims from nodes outside our view of the host set (refused). */
  outsiderClaims: number;
  /** Frames from a stale epoch or from a node that is not the primary (ignored). */
  staleFrames: number;
  /** Late grants of a claim of ours that had ended without a certificate, answered ABANDON again. */
  abandonsResent: number;
  /** Grants whose claimant abandoned them while they were our last promise: the promise fell back and we followed whom we followed before (election.ts `undoGrant`). */
  grantsUndone: number;
  /** Frames about a region this node does not host (ignored). */
  strayFrames: number;
  /** Hosting frames that reached a play-only peer (HostOptions.playOnly): dropped. */
  playOnlyFrames: number;
  editsAccepted: number;
  editsRejected: number;
  /** Edits refused, by the reason the editor heard. */
  editRefusals: Record<RejectReason, number>;
  confirms: number;
  deltas: number;
  syncs: number;
  handoffs: number;
  /** Regions we handed over and took back, the node handed them having sent us no claim (hosted-region.ts handOff). */
  handoffsTakenBack: number;
  stepDowns: number;
  storeFailures: number;
  publishes: number;
  /** Re-sent edits a primary recognised (answered with the first stamp, not applied again). */
  duplicateEdits: number;
  /** Entries a primary adopted from OFFERs (stored state it lacked). */
  adopted: number;
  /** OFFER frames sent (stored entries a primary lacked). */
  offers: number;
  /** Player positions (MOVE, or an EDIT's) farther than the player could have moved: taken only part way. */
  movesClamped: number;
  /** MOVEs past a player's budget (move-budget.ts): dropped. */
  movesThrottled: number;
  /** Claims not started: fewer than MIN_CERT_HOSTS hosts reachable (a lone tab: its edits stay tentative). */
  uncertifiable: number;
  /** Certificates (in CLAIM, GRANT, SYNC, SNAPSHOT) or grant signatures that failed their check. */
  badCerts: number;
  /** Host-set changes made as a new epoch (membership change). */
  reconfigs: number;
  /** Times a primary held back commits or confirmations because its lease had lapsed. */
  leaseWaits: number;
  /** OFFER frames dropped: from a node our certificate (or its previous set) does not name as a host, or entries invalid. */
  offersRefused: number;
  /** Offered entries dropped before a majority of a host set offered them: aged out, over a host's bound, or the certificate changed (offer-tally.ts). */
  offersUnmatched: number;
  /** Batches and SYNC pieces we signed as primary, GRANT pieces as a former one (state-proofs.ts). */
  proofsSigned: number;
  /** Granted entries a claim adopted under a primary's signature, by a majority of one set, and dropped (neither). */
  grantsProven: number;
  grantsAgreed: number;
  grantsUnproven: number;
  /** Frames the wire could not encode (over the reassembly limit): not sent, state unchanged. */
  unsendable: number;
  /** Authoritative ticks run, over all regions this node is primary of. */
  ticks: number;
  /** HEARTBEAT frames a primary sent to its backups. */
  heartbeats: number;
  /** Stalls of this host's own event loop after which it judged no silence for a while (stall-guard.ts). */
  ownStalls: number;
  /** Frames that came while the store loaded and did not fit MAX_EARLY_FRAMES (hosting-service.ts). */
  earlyDropped: number;
  /** New subscribers (or claim waiters) refused past `maxSubscribers`: told NOT_PRIMARY `full`. */
  subscribersRefused: number;
  /** Regions unloaded (idle: written to the store, dropped from memory). */
  unloads: number;
  /** Regions read back from the store at a frame that named them (after an unload). */
  reloads: number;
  /** Role moves the role machine refused (role-machine.ts): from a role that does not lead there, or below the epoch taken firmly. */
  roleMovesRefused: number;
  /** Entries our primary sent (REPLICATE, SYNC), or our own store held, against the world's rules (region-state.ts obeysWorldRules): not applied. */
  entriesAgainstRules: number;
}

/** Where a primary's commit waits, per batch of edits, ms from ordering it. */
export interface CommitLatency {
  /** Our own store write resolved. */
  store: LatencySamples;
  /** Enough backups acked it (`confirmAcks`). */
  ack: LatencySamples;
  /** Committed: in two memories (the ack; alone, the store), broadcast to subscribers. */
  commit: LatencySamples;
  /** Confirmed to its editors: committed and in our own store (both of the above). */
  confirm: LatencySamples;
}

export function newHostStats(): HostStats {
  return {
    claims: 0, claimsWon: 0, claimsFailed: 0, silenceClaims: 0, subscribeClaims: 0, takeovers: 0, claimDuels: 0, grants: 0, refusals: 0, outsiderClaims: 0, staleFrames: 0, abandonsResent: 0, grantsUndone: 0, strayFrames: 0, playOnlyFrames: 0,
    editsAccepted: 0, editsRejected: 0, confirms: 0, deltas: 0, syncs: 0, handoffs: 0, handoffsTakenBack: 0, stepDowns: 0, storeFailures: 0, publishes: 0, duplicateEdits: 0, adopted: 0, offers: 0, uncertifiable: 0, badCerts: 0, reconfigs: 0, leaseWaits: 0, offersRefused: 0, offersUnmatched: 0, proofsSigned: 0, grantsProven: 0, grantsAgreed: 0, grantsUnproven: 0, unsendable: 0, movesClamped: 0, ticks: 0, heartbeats: 0, ownStalls: 0, earlyDropped: 0,
    movesThrottled: 0,
    subscribersRefused: 0, unloads: 0, reloads: 0, roleMovesRefused: 0, entriesAgainstRules: 0, editRefusals: Object.fromEntries(REJECT_REASONS.map((r) => [r, 0])) as Record<RejectReason, number>, ...newPassStats(), ...newChatStats(),
  };
}
