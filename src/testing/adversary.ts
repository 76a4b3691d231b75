// An adversary in the test kit (docs/TRUST.md "The adversary kit"): one simulated world,
// one visited region, and an attacker holding 2 to 8 keys that plays every host-to-host
// frame, every host-to-player frame and both DHT records of the region against every role
// that reads them, each carrying one kind of forged authority (a "chain"). Table-driven:
// a frame type is one entry of FRAMES (which roles it reaches, which chains it carries, how
// it is made, which of the product's refusal counters must move), and runAdversary plays
// the product of the three, one row at a time, then judges the world:
// - every block the attacker sends is a marker no honest editor writes (GLASS at y >= 200,
//   AIR at the world floor), unique per row, so a block an honest subscriber shows or an
//   honest host stores that no honest primary confirmed is found, and named by its row;
// - the region's primary, sampled every 100 ms from the first row to the end;
// - the highest epoch any honest host promised or holds (the epochs must not run out);
// - honest edits made between the rows, all to be confirmed and shown;
// - per row, the frame reached its target (the wire saw it) and the counters it names moved
//   there, so a row that "passes" because nothing arrived, or was dropped uncounted, shows.
// The attacker's keys: its live rogue (far from the region key), `near` live nodes ground
// next to the region's hosts (ids showing SIM_ID_WORK_BITS of work, as every live node's do
// here; the price of grinding them at the product's bits is docs/TRUST.md "Ids that cost
// work": ~2 (N / 3) 2^13 keygens), the rest keypairs that are no live node, drawn without
// the work (far from every key for every reader: cert-anchor.ts `workedId`). Node only (the simulator); run by adversary.test.ts and bench/adversary-bench.ts.
import { every } from '../core/clock';
import { idEquals, sortByDistance, type NodeId } from '../core/node-id';
import type { Signer } from '../core/signer';
import { HOST_DEFAULTS } from '../host/host-options';
import { CLAIM_TIMEOUT_MS } from '../host/claim-round';
import { LEARN_EPOCH_CAP } from '../region/cert-anchor';
import { MAX_CERT_HOSTS, MAX_EPOCH, MAX_EPOCH_JUMP, signGrant, type ClaimTerms, type EpochCert } from '../region/epoch-cert';
import { putEdits, putLocation } from '../region/region-records';
import { claimTerms } from '../host/grant-rules';
import { columnIndex, REGION_BLOCKS, RegionKeys, regionName, type RegionCoord } from '../region/region-key';
import { encodeEntries, entryKey, type Entry, type RegionState } from '../region/region-state';
import { AIR, GLASS, PLACEABLE } from '../world/blocks';
import { chunkOf, localOf, WORLD_FLOOR_Y } from '../world/coords';
import { HostSim, SIM_ID_WORK_BITS, simKeyHash, type SimPeer } from './host-sim';
import { restart } from './edit-ledger';
import { Attacker, eclipseOnce, rankOf, type PlayerMsg, type ReplicaMsg } from './sybil-scenario';

/** Who reads what the attacker sends. */
export type Role = 'primary' | 'backup' | 'idle' | 'subscriber' | 'fresh' | 'holder';
/**
 * The authority a row's frame carries: `minted` (a certificate of the next epoch over the
 * attacker's keys), `top` (the same at MAX_EPOCH: a freeze if believed), `replayed` (the
 * region's real certificate, or its real epoch numbers in a frame without one, captured
 * earlier), `cross-region` (a real certificate of another region), `cross-world` (the
 * region's real certificate as its hosts would grant it in another world: the same terms
 * signed over that world's region key), `spliced` (the real certificate's epoch and hosts as
 * the "previous" link of a successor over the attacker's keys, claimed as a rebase, the one
 * form whose shape needs no previous-set grants), `linked` (a certificate two epochs on, over
 * the attacker's keys, with the links a reader walks from its own certificate: the real one,
 * then the spliced one; frames without links carry the certificate alone).
 */
export type Chain = 'minted' | 'top' | 'replayed' | 'cross-region' | 'cross-world' | 'spliced' | 'linked';
export const CERT_CHAINS: readonly Chain[] = ['minted', 'top', 'replayed', 'cross-region', 'cross-world', 'spliced', 'linked'];
/** Frames without a certificate: forged (next epoch) or replayed (the real epoch's numbers). */
const NUMBER_CHAINS: readonly Chain[] = ['minted', 'replayed'];

/** The product's refusal counters a row may name: a host's (HostStats), a player's (`client_`), a DHT node's record refusals. */
export type Counter = 'badCerts' | 'staleFrames' | 'outsiderClaims' | 'refusals' | 'offersRefused' | 'offersUnmatched' | 'strayFrames' | 'client_stale' | 'client_uncertified' | 'client_relayUnproven' | 'ruleRejects';
const HOST_COUNTERS = ['badCerts', 'staleFrames', 'outsiderClaims', 'refusals', 'offersRefused', 'offersUnmatched', 'strayFrames'] as const;

/** What a row's frame is made from. */
export interface RowInput {
  s: Scene;
  /** The certificate of the row's chain (for the region key, or the other world's). */
  cert: EpochCert;
  /** The links carried before it (CLAIM, GRANT, SYNC `chain`): the `linked` chain's. */
  links: EpochCert[] | undefined;
  /** The row's planted blocks, stamped as the frame needs them (`stamp(e, s0)`). */
  planted: (e: number, s0: number) => Entry[];
  /** AIR at the world floor, the row's own column (OFFER). */
  floor: (e: number) => Entry[];
  chain: Chain;
}

/** One frame type: the roles it reaches, the chains it carries, how it is made, the counters its refusal moves. */
export interface FrameKind {
  t: string;
  wire: 'replicas' | 'players' | 'dht';
  roles: readonly Role[];
  chains: readonly Chain[];
  counts: readonly Counter[];
  /** Why a refusal of it is not counted at a role (then no counter is asked of the row; it must still arrive). */
  silent?: (role: Role, chain: Chain) => string | undefined;
  make: (x: RowInput) => Promise<ReplicaMsg | PlayerMsg | undefined> | ReplicaMsg | PlayerMsg | undefined;
}

export interface Row {
  frame: FrameKind;
  role: Role;
  chain: Chain;
  name: string;
  silent: string | undefined;
}

const HOSTS: readonly Role[] = ['primary', 'backup', 'idle'];
/** A host holding no anchored certificate of the region learns a validly signed one below the cap (docs/TRUST.md rule 3): nothing is refused. */
const learns = (role: Role, chain: Chain) =>
  role === 'idle' && (chain === 'minted' || chain === 'linked')
    ? 'a host with no anchored certificate learns one below LEARN_EPOCH_CAP (rule 3); learnt, it anchors nothing, and the real chain replaces it (enlist)'
    : undefined;
const PLAYERS: readonly Role[] = ['subscriber', 'fresh'];
const region = (s: Scene) => ({ rx: s.r.rx, rz: s.r.rz });
/** The committed seq of the real epoch at the primary (frames that follow it look like the next batch). */
const seqNow = (s: Scene) => (s.sim.primaryOf(s.r) ?? s.primary).host.regionState(s.r)?.state.all().reduce((n, x) => (x.e === s.real.e ? Math.max(n, x.s) : n), 0) ?? 0;
const nextE = (x: RowInput) => (x.chain === 'replayed' ? x.s.real.e : x.s.real.e + 1);

/** Every frame type the attacker plays. A new frame type is one entry here. */
export const FRAMES: readonly FrameKind[] = [
  // Host to host (host/replication-messages.ts).
  { t: 'CLAIM', wire: 'replicas', roles: HOSTS, chains: CERT_CHAINS, counts: ['badCerts', 'outsiderClaims', 'staleFrames', 'refusals'],
    make: ({ s, cert, links }) => ({ t: 'CLAIM', ...region(s), e: cert.e, hosts: cert.hosts, known: cert, ...(links ? { chain: links } : {}) }) },
  { t: 'GRANT', wire: 'replicas', roles: HOSTS, chains: CERT_CHAINS, counts: ['staleFrames', 'badCerts'],
    make: async ({ s, cert, links, planted }) => {
      const terms: ClaimTerms = { e: cert.e, primary: s.atk.id, hosts: cert.hosts, prev: { e: s.real.e, hosts: s.real.hosts } };
      return { t: 'GRANT', ...region(s), e: cert.e, ok: true, promised: cert.e, entries: encodeEntries(planted(s.real.e, seqNow(s) + 1)), sig: await signGrant(s.atk.keys[0]!, s.key, terms), cert, ...(links ? { chain: links } : {}) };
    } },
  { t: 'REFUSE', wire: 'replicas', roles: HOSTS, chains: NUMBER_CHAINS, counts: ['staleFrames'],
    make: (x) => ({ t: 'REFUSE', ...region(x.s), e: nextE(x), primary: x.s.atk.id }) },
  { t: 'ABANDON', wire: 'replicas', roles: HOSTS, chains: NUMBER_CHAINS, counts: ['staleFrames'],
    make: (x) => ({ t: 'ABANDON', ...region(x.s), e: nextE(x) }) },
  { t: 'HANDOFF', wire: 'replicas', roles: HOSTS, chains: CERT_CHAINS, counts: ['badCerts', 'staleFrames'],
    silent: (role, chain) =>
      role === 'primary' ? 'a primary drops every HANDOFF (region-granter.ts onHandoff: it hands off, it is not handed to)'
      : chain === 'replayed' || chain.startsWith('cross') ? 'a certificate not naming its sender: the host looks up whether it is nearest the key itself, and claims only then'
      : learns(role, chain),
    make: ({ s, cert, links }) => ({ t: 'HANDOFF', ...region(s), e: cert.e, cert, ...(links ? { chain: links } : {}) }) },
  { t: 'REPLICATE', wire: 'replicas', roles: HOSTS, chains: NUMBER_CHAINS, counts: ['staleFrames'],
    silent: (role) => (role === 'primary' ? 'a primary drops REPLICATE' : role === 'backup' ? 'names the target a host: it asks the sender for a SYNC, whose certificate decides (the SYNC rows)' : undefined),
    make: (x) => {
      const from = seqNow(x.s) + 1, entries = x.planted(nextE(x), from);
      return { t: 'REPLICATE', ...region(x.s), e: nextE(x), from, to: from + entries.length - 1, entries: encodeEntries(entries), hosts: x.s.real.hosts, reqs: [] };
    } },
  { t: 'ACK', wire: 'replicas', roles: HOSTS, chains: NUMBER_CHAINS, counts: ['staleFrames'],
    silent: (role, chain) => (role === 'primary' && chain === 'replayed' ? 'an ACK of the epoch from a node that is no backup is dropped uncounted (commit pipeline)' : undefined),
    make: (x) => ({ t: 'ACK', ...region(x.s), e: nextE(x), to: seqNow(x.s) + 100, b: 1 }) },
  { t: 'HEARTBEAT', wire: 'replicas', roles: HOSTS, chains: NUMBER_CHAINS, counts: ['staleFrames'],
    silent: (role) => (role === 'backup' ? 'names the target a host: it asks the sender for a SYNC, whose certificate decides (the SYNC rows)' : undefined),
    make: (x) => ({ t: 'HEARTBEAT', ...region(x.s), e: nextE(x), s: seqNow(x.s) + 100, hosts: [x.s.atk.id, ...x.s.real.hosts.slice(1)] }) },
  { t: 'SYNC', wire: 'replicas', roles: HOSTS, chains: CERT_CHAINS, counts: ['badCerts', 'staleFrames'],
    silent: learns,
    make: ({ s, cert, links, planted }) => {
      const entries = planted(cert.e, 1);
      return { t: 'SYNC', ...region(s), e: cert.e, s: entries.length, hosts: cert.hosts, entries: encodeEntries(entries), cert, ...(links ? { chain: links } : {}) };
    } },
  { t: 'SYNC_REQ', wire: 'replicas', roles: HOSTS, chains: NUMBER_CHAINS, counts: ['staleFrames'],
    silent: (role, chain) => (role === 'primary' && chain === 'replayed' ? 'a SYNC_REQ of the epoch from a node that is no backup is dropped uncounted (primary-heartbeat.ts syncBackup)' : undefined),
    make: (x) => ({ t: 'SYNC_REQ', ...region(x.s), e: nextE(x) }) },
  // Stamped before the primary's epoch: stored state it could lack, the only offers it takes.
  { t: 'OFFER', wire: 'replicas', roles: HOSTS, chains: CERT_CHAINS, counts: ['offersRefused', 'staleFrames'],
    make: ({ s, cert, planted, floor }) => ({ t: 'OFFER', ...region(s), entries: encodeEntries([...planted(s.real.e - 1, 1000), ...floor(s.real.e - 1)]), cert }) },
  { t: 'FEED', wire: 'replicas', roles: HOSTS, chains: NUMBER_CHAINS, counts: ['staleFrames'],
    make: (x) => ({ t: 'FEED', ...region(x.s), e: nextE(x), n: 0, b: new Uint8Array(0) }) },
  { t: 'FEED_LOST', wire: 'replicas', roles: HOSTS, chains: NUMBER_CHAINS, counts: [],
    silent: () => 'dropped uncounted: a feed is only restarted for a backup it is sent to (positions-duty.ts feedLost)',
    make: (x) => ({ t: 'FEED_LOST', ...region(x.s), e: nextE(x) }) },
  { t: 'RELAY', wire: 'replicas', roles: HOSTS, chains: NUMBER_CHAINS, counts: ['staleFrames'],
    make: (x) => {
      const from = seqNow(x.s) + 1, entries = x.planted(nextE(x), from);
      return { t: 'RELAY', ...region(x.s), e: nextE(x), from, to: from + entries.length - 1, entries: encodeEntries(entries) };
    } },
  // Host to player (region/subscription-messages.ts).
  { t: 'SNAPSHOT', wire: 'players', roles: PLAYERS, chains: CERT_CHAINS, counts: ['client_uncertified', 'client_stale'],
    make: ({ s, cert, planted }) => {
      const entries = planted(cert.e, 1);
      return { t: 'SNAPSHOT', ...region(s), e: cert.e, v: { e: cert.e, s: entries.length }, full: true, hosts: cert.hosts, entries: encodeEntries(entries), cert };
    } },
  { t: 'DELTA', wire: 'players', roles: PLAYERS, chains: NUMBER_CHAINS, counts: ['client_stale', 'client_relayUnproven'],
    make: (x) => {
      const from = seqNow(x.s) + 1, entries = x.planted(nextE(x), from);
      return { t: 'DELTA', ...region(x.s), e: nextE(x), from, to: from + entries.length - 1, entries: encodeEntries(entries) };
    } },
  { t: 'PENDING', wire: 'players', roles: PLAYERS, chains: NUMBER_CHAINS, counts: ['client_stale', 'client_relayUnproven'],
    make: (x) => {
      const from = seqNow(x.s) + 1, entries = x.planted(nextE(x), from);
      return { t: 'PENDING', ...region(x.s), e: nextE(x), from, to: from + entries.length - 1, entries: encodeEntries(entries) };
    } },
  { t: 'HEARTBEAT', wire: 'players', roles: PLAYERS, chains: NUMBER_CHAINS, counts: [],
    silent: () => 'a beat not from our primary is dropped uncounted (region-client.ts: hosts hear beats of their own too)',
    make: (x) => ({ t: 'HEARTBEAT', ...region(x.s), e: nextE(x), s: seqNow(x.s) + 100, hosts: [x.s.atk.id] }) },
  { t: 'NOT_PRIMARY', wire: 'players', roles: PLAYERS, chains: NUMBER_CHAINS, counts: ['client_stale'],
    make: (x) => ({ t: 'NOT_PRIMARY', ...region(x.s), e: nextE(x), primary: x.s.atk.id }) },
  { t: 'CONFIRM', wire: 'players', roles: PLAYERS, chains: NUMBER_CHAINS, counts: ['client_stale'],
    make: (x) => ({ t: 'CONFIRM', ...region(x.s), r: 1, e: nextE(x), s: seqNow(x.s) + 1 }) },
  { t: 'REJECT', wire: 'players', roles: PLAYERS, chains: NUMBER_CHAINS, counts: ['client_stale'],
    make: (x) => ({ t: 'REJECT', ...region(x.s), r: 1, reason: 'not-primary' }) },
  { t: 'POSITIONS', wire: 'players', roles: PLAYERS, chains: NUMBER_CHAINS, counts: ['client_stale'],
    make: (x) => ({ t: 'POSITIONS', ...region(x.s), e: nextE(x), n: 0, b: new Uint8Array(0) }) },
  // DHT records (region/region-records.ts): put through the attacker's own node, read by the
  // holders' rules and by the fresh subscriber that looks the primary up.
  { t: 'LOCATION', wire: 'dht', roles: ['holder'], chains: CERT_CHAINS.filter((c) => c !== 'replayed'), counts: ['ruleRejects'], make: () => undefined },
  { t: 'EDITS', wire: 'dht', roles: ['holder'], chains: CERT_CHAINS.filter((c) => c !== 'replayed'), counts: ['ruleRejects'], make: () => undefined },
];

/** Every row: each frame type against each role it reaches, with each chain it carries. */
export function rows(frames: readonly FrameKind[] = FRAMES): Row[] {
  const out: Row[] = [];
  for (const frame of frames) for (const role of frame.roles) for (const chain of frame.chains) out.push({ frame, role, chain, silent: frame.silent?.(role, chain), name: `${frame.t}${frame.wire === 'players' && frame.t === 'HEARTBEAT' ? '(player)' : ''} -> ${role}, ${chain}` });
  return out;
}

export interface AdversaryOptions {
  seed: number;
  /** The attacker's keys in all, its live ones among them (2 to 8). */
  keys: number;
  /** Of those, live nodes ground next to the region's hosts (among the 8 nearest the key). */
  near?: number;
  /**
   * The `near` ids ground all into the one gap just past the hosts (4th and 5th nearest), not
   * one before each honest node there (4th and 6th): with one of the 3 nearest dead they are
   * a fresh reader's 3rd and 4th live nodes (sybil_1k's band, docs/TRUST.md).
   */
  packed?: boolean;
  /** Honest peers (default 12). */
  honest?: number;
  /** Id work every live node's id shows and every peer asks (HostSimOptions.idWorkBits; default SIM_ID_WORK_BITS). */
  idWorkBits?: number;
  /**
   * One live node of the attacker's inside the region's host set (ground next to its second
   * nearest host before anyone visits it): a backup of the set, one of 3, as any node near
   * the key may be. It hosts nothing (its frames are the attacker's).
   */
  member?: boolean;
  /**
   * With `member`: the attacker's node in the set answers every CLAIM of the region with a
   * valid GRANT (its key is one of the set's) carrying its own blocks as its stored state;
   * with `kill` the failover's claimant asks it. A row of its own ("GRANT answering CLAIM").
   */
  grants?: boolean;
  /** The region's primary dies silently halfway through the host rows (the attack goes on through the failover). */
  kill?: boolean;
  /**
   * With `member`: the attacker's node in the set answers the first SUBSCRIBE the region's
   * subscriber sends it (as it re-attaches through the set's backups after a kill, still within
   * OWN_CHAIN_MS of its primary) with a SNAPSHOT under this chain. A node it asked: the
   * snapshot passes the asked filter, and its certificate alone decides. A row of its own
   * ("SNAPSHOT answering SUBSCRIBE -> subscriber, member, <chain>").
   */
  answers?: Chain;
  /**
   * With `member`: the attacker's near nodes refuse every CLAIM of the region (after the
   * setup) with a refusal carrying this chain's certificate, as a refuser names the newer
   * certificate a claim must build on (the failover's claimant reads it by rule 2).
   */
  refuses?: Chain;
  /**
   * false: no fresh subscriber joins (its join waits up to 10 s for an attachment, so the
   * player rows then land long after a kill; without it they land during the failover). The
   * fresh rows are then played at nobody.
   */
  fresh?: boolean;
  /** Only these rows (default: every row). */
  only?: (r: Row) => boolean;
  /**
   * After the rows, the primary takes the host the idle rows reached into its set in place
   * of a backup (a membership change, as when that host becomes one of the nearest): it must
   * grant and follow the region's real chain, whatever it learnt meanwhile (`enlisted`).
   * 'restarted': that host restarts from its store first (what it learnt is stored too).
   */
  enlist?: boolean | 'restarted';
}

/** The world the rows are played in. */
export interface Scene {
  sim: HostSim;
  atk: Attacker;
  r: RegionCoord;
  key: NodeId;
  /** The region's newest certificate the attacker captured (at the start; after a failover, the new one), and a real one of another region. */
  real: EpochCert;
  other: EpochCert;
  otherRegion: RegionCoord;
  /** The region's key in another world (cross-world certificates are granted over it). */
  worldKey: NodeId;
  player: SimPeer;
  primary: SimPeer;
  /** The node the attacker sends from (a near node when it has some: its certificates then anchor near the key). */
  sender: SimPeer;
}

export interface RowResult {
  name: string;
  t: string;
  role: Role;
  chain: Chain;
  /** The frame reached its target(s) (the target's wire saw it; records: put). */
  delivered: boolean;
  /** No live target when the row came (kill runs: no primary during the failover). */
  skipped: boolean;
  /** The attacker's sender was a host of the region's current set when the row came (placed there, or moved in by a failover). */
  member: boolean;
  /** The counters the row names, moved at its targets during the row. */
  counted: number;
  /** Why no counter is asked of the row (FrameKind.silent). */
  silent?: string;
  /** The row's planted blocks shown by honest subscribers / stored by honest hosts (at the end). */
  shown: number;
  stored: number;
  /** Of the row's blocks, those its targets drew as pending edits (PENDING: shown until a commit takes them back). */
  pending: number;
  /** Highest epoch a target promised or holds after the row. */
  epoch: number;
}

export interface AdversaryResult {
  rows: RowResult[];
  /** Honest peers of the region's host set (at the end) holding a certificate whose primary is the attacker's (the idle rows' host among them, if a failover moved it into the set after it learnt a forged chain). */
  adopted: number;
  /** Longest run with no honest primary of the region, from the first row to the end (ms virtual). */
  noPrimaryMs: number;
  /** Highest epoch an honest host of the region promised or holds, and the real one at the start. */
  maxEpoch: number;
  startEpoch: number;
  /** Highest epoch any honest peer (hosts of other sets too) learnt. */
  maxEpochAnywhere: number;
  /** Honest edits made during the attack, confirmed, and shown by every honest subscriber at the end. */
  honestEdits: number;
  honestConfirmed: number;
  /** ... stored by the primary at the end, and shown by both subscribers. */
  honestStored: number;
  honestShown: number;
  doublePrimaries: number;
  /** The fresh subscriber (joined after the records were put) attached to an honest primary. */
  freshAttachedHonest: boolean;
  /** The subscriber attached since the setup is attached to the region's honest primary at the end. */
  playerFollows: boolean;
  /** Where the attacker's live nodes (its rogue, then its `near` ids) lie among the live nodes nearest the key at the start (1: nearest). */
  liveRanks: number[];
  /** Honest hosts that held, at any 100 ms sample from the first row on, a certificate of the region whose primary is the attacker's. */
  heldAttackers: number;
  /** With `enlist`: whether the idle rows' host, taken into the set, followed the honest primary within 3 s, the epoch it then held, and whether it held its certificate as learnt before (after the restart, with 'restarted'). */
  enlisted?: { follows: boolean; epoch: number; keptLearnt: boolean };
}

/** A region must have an honest primary again within this: a backup notices silence (failoverMs) and one claim round completes (CLAIM_TIMEOUT_MS). */
export const FAILOVER_TARGET_MS = HOST_DEFAULTS.failoverMs + CLAIM_TIMEOUT_MS;
/** How long each row is given to land. */
const ROW_MS = 200;
/** An honest edit after this many rows. */
const EDIT_EVERY = 8;
const PLANTED_PER_ROW = 2;
/** A location record fits the DHT's 1 KiB with a certificate of this many hosts at most. */
export const RECORD_HOSTS = 4;
const PLANTED_Y = 200;

/** The row's planted GLASS: `PLANTED_PER_ROW` blocks at its own (x, y) column pair, stamped (e, s0..). */
export function plantedOf(r: RegionCoord, i: number) {
  return (e: number, s0: number): Entry[] =>
    Array.from({ length: PLANTED_PER_ROW }, (_, k) => {
      const x = r.rx * REGION_BLOCKS + (i % REGION_BLOCKS), z = r.rz * REGION_BLOCKS + 40 + k, y = PLANTED_Y + Math.floor(i / REGION_BLOCKS);
      return { key: entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), y, localOf(z)), id: GLASS, e, s: s0 + k };
    });
}

/** The row's AIR at the world floor. */
export function floorOf(r: RegionCoord, i: number) {
  return (e: number): Entry[] => {
    const x = r.rx * REGION_BLOCKS + (i % REGION_BLOCKS), z = r.rz * REGION_BLOCKS + 50 + Math.floor(i / REGION_BLOCKS);
    return [{ key: entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), WORLD_FLOOR_Y, localOf(z)), id: AIR, e, s: 2000 + i }];
  };
}

const count = (state: RegionState | undefined, list: Entry[]) => (state ? list.filter((x) => state.get(x.key)?.id === x.id).length : 0);

/** A peer's refusal counters, flat. */
function counters(p: SimPeer): Record<Counter, number> {
  const h = p.host.stats, c = p.client.stats;
  const out = Object.fromEntries(HOST_COUNTERS.map((k) => [k, h[k]])) as Record<Counter, number>;
  out.client_stale = c.stale;
  out.client_uncertified = c.uncertified;
  out.client_relayUnproven = c.relayUnproven;
  out.ruleRejects = Object.values(p.dht.stats.ruleRejects).reduce((n, x) => n + x, 0);
  return out;
}

/** The certificate of `chain` for the scene's region. */
export async function certOf(s: Scene, chain: Chain, most = MAX_CERT_HOSTS): Promise<EpochCert> {
  const { atk, real, key } = s;
  // With near nodes: those and the rogue (a majority near the key); else every key it holds.
  const mine = atk.nodes.length > 1 ? [...atk.nodes.slice(1).map((p) => p.dht.selfId), atk.id] : atk.keys.slice(0, most).map((k) => k.id);
  const primary = s.sender.dht.selfId;
  switch (chain) {
    case 'minted':
      return atk.mint(key, { e: real.e + 1, primary, hosts: mine, prev: { e: real.e, hosts: mine } });
    case 'top':
      return atk.mint(key, { e: MAX_EPOCH, primary, hosts: mine, prev: { e: MAX_EPOCH - 1, hosts: mine } });
    case 'spliced':
      return atk.mint(key, { e: real.e + 1, primary, hosts: mine, prev: { e: real.e, hosts: real.hosts }, rebase: true });
    case 'linked':
      return atk.mint(key, { e: real.e + 2, primary, hosts: mine, prev: { e: real.e + 1, hosts: mine } });
    case 'replayed':
      return real;
    case 'cross-region':
      return s.other;
    case 'cross-world': {
      const { grants: _g, ...terms } = real;
      return { ...terms, grants: await Promise.all(real.grants.map((g) => signGrant(s.sim.keyring.signer(g.id), s.worldKey, terms))) };
    }
  }
}

/** The links a `linked` row carries: the real certificate, then the spliced one over the attacker's keys. */
export async function linksOf(s: Scene, chain: Chain): Promise<EpochCert[] | undefined> {
  return chain === 'linked' ? [s.real, await certOf(s, 'spliced')] : undefined;
}

/** The honest peers a row is sent to. */
export function targets(s: Scene, role: Role, fresh: SimPeer | undefined): SimPeer[] {
  const honest = s.sim.live().filter((p) => !s.atk.owns(p));
  const inSet = (p: SimPeer) => s.real.hosts.some((h) => idEquals(h, p.dht.selfId));
  switch (role) {
    case 'primary': {
      const p = s.sim.primaryOf(s.r);
      return p && !s.atk.owns(p) ? [p] : [];
    }
    case 'backup':
      return s.sim.backupsOf(s.r).filter((p) => !s.atk.owns(p)).slice(0, 1);
    case 'idle':
      return honest.filter((p) => !inSet(p) && p !== s.player && !p.playOnly).slice(0, 1);
    case 'subscriber':
      return [s.player];
    case 'fresh':
      return fresh ? [fresh] : [];
    case 'holder':
      return honest;
  }
}

/** The first region (row by row) whose key the rogue is not among the 4 nearest of. */
async function farRegion(sim: HostSim, rogue: SimPeer, keys: RegionKeys, from: number): Promise<{ r: RegionCoord; key: NodeId }> {
  for (let i = from; i < from + 64; i++) {
    const r = { rx: 1 + (i % 8), rz: 1 + Math.floor(i / 8) };
    const key = await keys.key(r);
    if (rankOf(sim, rogue, key) >= 4) return { r, key };
  }
  throw new Error('every region is near the rogue');
}

/** Honest edit `i` of `r`: a placeable block at y 120..159 (no row's marker lies there). */
export function honestSpot(r: RegionCoord, i: number): { x: number; y: number; z: number; id: number } {
  const x = r.rx * REGION_BLOCKS + ((i * 13) % REGION_BLOCKS), z = r.rz * REGION_BLOCKS + ((i * 29) % 32), y = 120 + (i % 40);
  return { x, y, z, id: PLACEABLE[i % (PLACEABLE.length - 1)]! };
}

/** One honest edit of `r` by `p` (honestSpot): the entry it made once confirmed, else undefined. */
async function honestEdit(sim: HostSim, p: SimPeer, r: RegionCoord, i: number, ms = 5000): Promise<{ x: number; y: number; z: number; id: number } | undefined> {
  const { x, y, z, id } = honestSpot(r, i);
  let ok: boolean | undefined;
  p.client.submit(x, y, z, id, { x, y, z: z + 2 }).then(() => (ok = true), () => (ok = false));
  await sim.clock.runUntil(() => ok !== undefined, ms);
  return ok ? { x, y, z, id } : undefined;
}

/** Builds the world: honest peers, the attacker, another region visited (its real certificate), the target region visited. */
async function scene(o: AdversaryOptions): Promise<Scene> {
  const sim = new HostSim({ seed: o.seed, idWorkBits: o.idWorkBits ?? SIM_ID_WORK_BITS });
  await sim.grow(o.honest ?? 12);
  const rogue = await sim.add();
  const near = o.member ? Math.max(1, o.near ?? 0) : (o.near ?? 0);
  if (o.keys < 2 || o.keys > 8 || near > o.keys - 1) throw new Error('2 to 8 keys, the rogue and its near nodes among them');
  const atk = new Attacker(sim, rogue, o.keys - 1 - near, o.seed, false);
  const keys = new RegionKeys(sim.world, simKeyHash);
  const { r, key } = await farRegion(sim, rogue, keys, 0);
  const a = await farRegion(sim, rogue, keys, 8);
  if (regionName(a.r) === regionName(r)) throw new Error('one region for both');
  const honest = () => sim.live().filter((p) => !atk.owns(p));
  const player = sortByDistance(honest(), (p) => p.dht.selfId, key).at(-1)!;
  let n = 0;
  const visit = async (at: RegionCoord) => {
    await sim.settle(player.client.subscribe(at));
    for (let i = 0; i < 3; i++) if (!(await honestEdit(sim, player, at, 100 + n++, 10_000))) throw new Error('setup edit not confirmed');
    await sim.run(1000);
    const primary = sim.primaryOf(at), cert = primary?.host.regionState(at)?.cert;
    if (!primary || !cert) throw new Error('no primary after the setup edits');
    return { primary, cert };
  };
  const other = (await visit(a.r)).cert;
  player.client.unsubscribe(a.r);
  // Ground ids (showing the work): in the gap before each honest node just past the region's
  // hosts, or inside the set (`member`: in the gap before its second nearest node).
  const ranked = sortByDistance(honest(), (p) => p.dht.selfId, key).map((p) => p.dht.selfId);
  const first = o.member ? 1 : HOST_DEFAULTS.replicas;
  let settingUp = true;
  for (let i = first; i < first + (o.member ? Math.max(1, near) : near); i++) {
    const gap = o.packed ? first : i;
    const p = await sim.add(sim.groundId(key, ranked[gap - 1], ranked[gap]));
    atk.own(p);
    // A member stays in the set: it acks every beat of the region's primary with the
    // committed point the beat names (storing nothing). A backup that acked nothing is
    // dropped from the set as quiet and replaced (host-set-check.ts), and the rows would
    // then come from outside the set.
    // It also grants the region's first claim, as an honest host would: a first claim needs
    // every host it names (epoch-cert.ts `chainRoot`), and a host that sent it nothing is
    // left out of the next, so the set would hold no attacker's node.
    if (o.member) {
      p.wire.replicas.events.on('frame', ({ from, fromHex, msg }) => {
        if (msg.rx !== r.rx || msg.rz !== r.rz) return;
        if (msg.t === 'HEARTBEAT') p.wire.replicas.send(from, { t: 'ACK', rx: r.rx, rz: r.rz, e: msg.e, to: msg.s, b: msg.b });
        if (msg.t !== 'CLAIM' || !settingUp) return;
        const terms = claimTerms({ e: msg.e, from, fromHex, hosts: msg.hosts, known: msg.known, rebase: msg.rebase, pend: msg.pend });
        void signGrant(sim.keyring.signer(p.dht.selfId), key, terms).then((sig) => p.wire.replicas.send(from, { t: 'GRANT', rx: r.rx, rz: r.rz, e: msg.e, ok: true, promised: msg.e, sig }));
      });
    }
  }
  const { primary, cert } = await visit(r);
  settingUp = false;
  const worldKey = await new RegionKeys(`${sim.world}-other`, simKeyHash).key(r);
  return { sim, atk, r, key, real: cert, other, otherRegion: a.r, worldKey, player, primary, sender: atk.nodes[1] ?? rogue };
}

/**
 * Counts, per peer listened to, the frames heard on the replicas and players wires from the ids
 * in `fromHex`, by frame type: whether a row's frame reached its target. Peers that join later
 * (a fresh subscriber) are listened to with `listen`.
 */
export function tallyFramesFrom(fromHex: ReadonlySet<string>): { listen: (p: SimPeer) => void; heardOf: (p: SimPeer, t: string) => number } {
  const heard = new Map<SimPeer, Map<string, number>>();
  const listen = (p: SimPeer) => {
    const tally = new Map<string, number>();
    heard.set(p, tally);
    const on = ({ fromHex: from, msg }: { fromHex: string; msg: { t: string } }) => void (fromHex.has(from) && tally.set(msg.t, (tally.get(msg.t) ?? 0) + 1));
    p.wire.replicas.events.on('frame', on);
    p.wire.players.events.on('frame', on);
  };
  return { listen, heardOf: (p, t) => heard.get(p)?.get(t) ?? 0 };
}

/** Plays `o`'s rows and judges the world (see the file's head). */
export async function runAdversary(o: AdversaryOptions): Promise<AdversaryResult> {
  const s = await scene(o);
  const { sim, atk, r } = s;
  const liveRanks = atk.nodes.map((p) => rankOf(sim, p, s.key) + 1);
  const all = rows().filter(o.only ?? (() => true));
  const honest = () => sim.live().filter((p) => !atk.owns(p));
  // What reached whom from the attacker's nodes, by frame type (per peer).
  const atkHex = new Set(atk.nodes.map((p) => p.hex));
  const { listen, heardOf } = tallyFramesFrom(atkHex);
  for (const p of honest()) listen(p);
  // The primary, sampled from the first row on.
  const t0 = sim.clock.now();
  let lastSeen = t0, noPrimaryMs = 0;
  const holdingAttackers = new Set<SimPeer>();
  const stopSampling = every(sim.clock, 100, () => {
    const now = sim.clock.now();
    if (sim.primariesOf(r).some((p) => !atk.owns(p))) lastSeen = now;
    noPrimaryMs = Math.max(noPrimaryMs, now - lastSeen);
    for (const p of honest()) {
      const c = p.host.regionState(r)?.cert;
      if (c && atk.nodes.some((a) => idEquals(c.primary, a.dht.selfId))) holdingAttackers.add(p);
    }
  });
  const epochOf = (p: SimPeer) => Math.max(p.host.regionState(r)?.promised ?? 0, p.host.regionState(r)?.cert?.e ?? 0);
  const edits: { x: number; y: number; z: number; id: number }[] = [];
  let tried = 0;
  const results: RowResult[] = [];
  /** Honest hosts the idle rows were played at (they may learn a forged chain below the cap: rule 3). */
  const learnt = new Set<SimPeer>();
  const arrivals: (() => void)[] = [];
  const plantedAll: { res: RowResult; entries: Entry[] }[] = [];
  let fresh: SimPeer | undefined;
  // The fresh subscriber's own row: the attacker answers its SUBSCRIBE (the rows' index past the table's).
  const joinFresh = async () => {
    const idx = rows().length;
    const p = await freshSubscriber(s, listen, plantedOf(r, idx));
    const c = counters(p);
    const res: RowResult = {
      name: 'SNAPSHOT answering SUBSCRIBE -> fresh, minted', t: 'SNAPSHOT', role: 'fresh', chain: 'minted', delivered: heardOf(p, 'SNAPSHOT') > 0, skipped: false, member: false,
      counted: c.client_uncertified + c.client_stale, shown: 0, stored: 0, pending: p.client.stats.pendingShown, epoch: 0,
    };
    results.push(res);
    plantedAll.push({ res, entries: plantedOf(r, idx)(1, 1) });
    return p;
  };
  if (o.grants) {
    const idx = rows().length + 1;
    const res: RowResult = {
      name: 'GRANT answering CLAIM -> claimant, member', t: 'GRANT', role: 'primary', chain: 'replayed', delivered: false, skipped: false, member: true,
      counted: 0, shown: 0, stored: 0, pending: 0, epoch: 0, silent: 'a granter of the set is asked for its state: nothing to refuse',
    };
    results.push(res);
    plantedAll.push({ res, entries: plantedOf(r, idx)(1, 1) });
    for (const a of atk.nodes.slice(1)) {
      a.wire.replicas.events.on('frame', ({ from, fromHex, msg }) => {
        if (msg.t !== 'CLAIM' || regionName(msg) !== regionName(r)) return;
        res.delivered = true;
        const terms = claimTerms({ e: msg.e, from, fromHex, hosts: msg.hosts, known: msg.known, rebase: msg.rebase, pend: msg.pend });
        const entries = plantedOf(r, idx)(msg.known?.e ?? 1, 500);
        void signGrant(sim.keyring.signer(a.dht.selfId), s.key, terms).then((sig) =>
          a.wire.replicas.send(from, { t: 'GRANT', ...region(s), e: msg.e, ok: true, promised: msg.e, entries: encodeEntries(entries), sig }));
      });
    }
  }
  if (o.refuses && o.member) {
    const chain = o.refuses;
    const res: RowResult = {
      name: `GRANT refusing CLAIM -> claimant, member, ${chain}`, t: 'GRANT', role: 'backup', chain, delivered: false, skipped: false, member: true,
      counted: 0, shown: 0, stored: 0, pending: 0, epoch: 0, silent: 'a refusal naming a certificate the claimant cannot take is no news (claim-round.ts `namedNothing`), counted as no refusal',
    };
    results.push(res);
    for (const a of atk.nodes.slice(1)) {
      a.wire.replicas.events.on('frame', ({ from, msg }) => {
        if (msg.t !== 'CLAIM' || regionName(msg) !== regionName(r)) return;
        res.delivered = true;
        void certOf(s, chain).then((cert) => a.wire.replicas.send(from, { t: 'GRANT', ...region(s), e: msg.e, ok: false, promised: cert.e, cert }));
      });
    }
  }
  if (o.answers && o.member) {
    const chain = o.answers, idx = rows().length + 2;
    const res: RowResult = {
      name: `SNAPSHOT answering SUBSCRIBE -> subscriber, member, ${chain}`, t: 'SNAPSHOT', role: 'subscriber', chain, delivered: false, skipped: false, member: true,
      counted: 0, shown: 0, stored: 0, pending: 0, epoch: 0,
    };
    results.push(res);
    plantedAll.push({ res, entries: plantedOf(r, idx)(1, 1) });
    s.sender.wire.players.events.on('frame', ({ from, msg }) => {
      if (msg.t !== 'SUBSCRIBE' || regionName(msg) !== regionName(r) || !idEquals(from, s.player.dht.selfId) || res.delivered) return;
      res.delivered = true;
      void certOf(s, chain).then((cert) => s.sender.wire.players.send(from, atk.snapshot(r, cert, plantedOf(r, idx)(cert.e, 1))));
    });
  }
  // Host and record rows first; then a fresh subscriber joins (reading the records put) and the player rows are played at both subscribers.
  const order = [...all.filter((x) => x.frame.wire !== 'players'), ...all.filter((x) => x.frame.wire === 'players')];
  const killAt = o.kill ? Math.floor(order.filter((x) => x.frame.wire === 'replicas').length / 2) : -1;
  for (let i = 0; i < order.length; i++) {
    const row = order[i]!;
    if (i === killAt) {
      const p = sim.primaryOf(r);
      if (p && p !== s.player) sim.kill(p.hex);
    }
    const idx = all.indexOf(row);
    if (row.frame.wire === 'players' && !fresh && o.fresh !== false) fresh = await joinFresh();
    // The attacker captures the region's newest certificate (every SNAPSHOT carries it): after a failover its rows play against that.
    const now = sim.primaryOf(r)?.host.regionState(r)?.cert;
    if (now && now.e > s.real.e && !atk.nodes.some((a) => idEquals(a.dht.selfId, now.primary))) s.real = now;
    const to = targets(s, row.role, fresh);
    if (row.role === 'idle') for (const p of to) learnt.add(p);
    const before = to.map(counters);
    const pendingBefore = to.map((p) => p.client.stats.pendingShown);
    const sentBefore = to.map((p) => heardOf(p, row.frame.t));
    // A location record fits the DHT's 1 KiB with a certificate of RECORD_HOSTS hosts at most.
    const cert = await certOf(s, row.chain, row.frame.wire === 'dht' ? RECORD_HOSTS : MAX_CERT_HOSTS);
    const planted = plantedOf(r, idx), floor = floorOf(r, idx);
    const res: RowResult = { name: row.name, t: row.frame.t, role: row.role, chain: row.chain, delivered: false, skipped: to.length === 0, member: s.real.hosts.some((h) => idEquals(h, s.sender.dht.selfId)), counted: 0, shown: 0, stored: 0, pending: 0, epoch: 0, ...(row.silent ? { silent: row.silent } : {}) };
    const marks: Entry[] = [...planted(1, 1), ...floor(1)];
    if (row.frame.wire === 'dht') {
      res.delivered = await putRecord(s, row, cert, planted);
    } else {
      const msg = await row.frame.make({ s, cert, links: await linksOf(s, row.chain), planted, floor, chain: row.chain });
      // Linked first, as an attacker dials whom it attacks (a routed frame may take a dead hop after a kill).
      for (const p of to) if (!s.sender.dht.linked(p.hex)) await sim.settle(s.sender.dht.connect(p.dht.selfId, 'adversary').catch(() => {}), 5000);
      if (msg) for (const p of to) (row.frame.wire === 'replicas' ? s.sender.wire.replicas : s.sender.wire.players).send(p.dht.selfId, msg as never);
    }
    // Until it reached every target (a routed frame after a kill may take a while), then the row's time.
    const arrived = () => to.every((p, k) => (heardOf(p, row.frame.t)) > sentBefore[k]!);
    if (row.frame.wire !== 'dht' && to.length > 0) await sim.clock.runUntil(arrived, 3000);
    // A host-to-host frame about a region its target does not host is dropped as stray (hosting-service.ts).
    const counts: readonly Counter[] = row.frame.wire === 'replicas' ? [...row.frame.counts, 'strayFrames'] : row.frame.counts;
    const counted = () => to.reduce((n, p, k) => n + counts.reduce((m, c) => m + counters(p)[c] - before[k]![c], 0), 0);
    // A refusal may wait on a fresh lookup toward the key (cert-checker.ts), slow past a dead
    // node after a kill: a refusal the row expects gets up to a second more to land.
    if (row.frame.wire !== 'dht' && to.length > 0 && !row.silent && !res.member) await sim.clock.runUntil(() => counted() > 0, 1000);
    await sim.run(ROW_MS);
    // Judged at the end: a routed frame may land after the row's time (its counters then show in a later row's).
    if (row.frame.wire !== 'dht') arrivals.push(() => void (res.delivered = to.length > 0 && to.every((p, k) => (heardOf(p, row.frame.t)) > sentBefore[k]!)));
    res.pending = to.reduce((n, p, k) => n + p.client.stats.pendingShown - pendingBefore[k]!, 0);
    res.counted = counted();
    res.epoch = Math.max(0, ...to.map(epochOf));
    results.push(res);
    plantedAll.push({ res, entries: marks });
    if ((i + 1) % EDIT_EVERY === 0) {
      tried++;
      const e = await honestEdit(sim, s.player, r, tried);
      if (e) edits.push(e);
    }
  }
  if (o.fresh !== false) fresh ??= await joinFresh();
  const enlisted = o.enlist ? await enlist(s, [...learnt][0], epochOf, o.enlist === 'restarted') : undefined;
  await sim.run(2000);
  stopSampling();
  for (const judge of arrivals) judge();
  // Judge: planted blocks anywhere honest (by key and block: stamps differ by frame).
  const views = honest().map((p) => ({ shown: p.client.state(r), stored: p.host.regionState(r)?.state }));
  for (const { res, entries } of plantedAll) {
    for (const v of views) {
      res.shown += count(v.shown, entries);
      res.stored += count(v.stored, entries);
    }
  }
  const hostsNow = honest().filter((p) => s.real.hosts.some((h) => idEquals(h, p.dht.selfId)) || p === sim.primaryOf(r));
  const follows = hostsNow.filter((p) => {
    const c = p.host.regionState(r)?.cert;
    return !!c && atk.nodes.some((a) => idEquals(c.primary, a.dht.selfId));
  });
  const adopted = follows.length;
  const subscribers = [s.player, fresh].filter((p) => !!p);
  const primaryNow = sim.primaryOf(r);
  const everywhere = (states: (RegionState | undefined)[]) => edits.filter((e) => states.every((st) => blockAt(st, e) === e.id)).length;
  const honestStored = everywhere([primaryNow?.host.regionState(r)?.state]);
  const honestShown = everywhere(subscribers.map((p) => p.client.state(r)));
  const freshSub = fresh?.client.attachment(r);
  const result: AdversaryResult = {
    rows: results,
    adopted,
    noPrimaryMs,
    maxEpoch: Math.max(...hostsNow.map(epochOf)),
    startEpoch: s.real.e,
    maxEpochAnywhere: Math.max(...honest().map(epochOf)),
    honestEdits: tried,
    honestConfirmed: edits.length,
    honestStored,
    honestShown,
    doublePrimaries: sim.doublePrimaries().length,
    freshAttachedHonest: !fresh || (!!freshSub && !atkHex.has(freshSub.primary)),
    playerFollows: !!primaryNow && s.player.client.attachment(r)?.primary === primaryNow.hex,
    liveRanks,
    heldAttackers: holdingAttackers.size,
    ...(enlisted ? { enlisted } : {}),
  };
  sim.stopAll();
  return result;
}

/** The primary takes `idle` (restarted from its store first, with `restarted`) into its set in place of a backup; whether `idle` then follows it (3 s), and the epoch it holds. */
async function enlist(s: Scene, was: SimPeer | undefined, epochOf: (p: SimPeer) => number, restarted: boolean): Promise<{ follows: boolean; epoch: number; keptLearnt: boolean }> {
  let idle = was;
  if (idle && restarted) {
    s.sim.kill(idle.hex);
    await s.sim.run(500);
    idle = await restart(s.sim, idle.dht.selfId);
    // Rejoined: its view of who is near the key fills again (it judges the learnt chain's hosts far only then).
    await s.sim.run(5000);
  }
  // What it learnt is stored as learnt: it reads it back so.
  const keptLearnt = !!idle?.host.regionState(s.r)?.el.learnt;
  const primary = s.sim.primaryOf(s.r);
  const region = primary?.host.regionState(s.r);
  if (!idle || !primary || !region) return { follows: false, epoch: 0, keptLearnt };
  const backup = region.hosts.find((h) => !idEquals(h, primary.dht.selfId) && !idEquals(h, idle.dht.selfId))!;
  region.reconfigure([primary.dht.selfId, backup, idle.dht.selfId], 'adversary kit: enlist the idle rows\' host');
  const follows = () => idle!.host.regionState(s.r)?.role === 'backup' && s.sim.primaryOf(s.r)?.hex === idle!.host.regionState(s.r)?.primaryHex;
  await s.sim.clock.runUntil(follows, 3000);
  return { follows: follows(), epoch: epochOf(idle), keptLearnt };
}

/** The block at an honest edit's place in `st`. */
export function blockAt(st: RegionState | undefined, e: { x: number; y: number; z: number }): number | undefined {
  return st?.get(entryKey(columnIndex(chunkOf(e.x), chunkOf(e.z)), localOf(e.x), e.y, localOf(e.z)))?.id;
}

/**
 * A fresh play-only subscriber, joined after the host and record rows: it looks the primary
 * up through the DHT records the attacker put, and its first lookup of the key is answered
 * by the attacker alone (an eclipse of one lookup), so its first SUBSCRIBE goes to the
 * attacker, which answers with a SNAPSHOT under its own certificate.
 */
async function freshSubscriber(s: Scene, listen: (p: SimPeer) => void, planted: (e: number, s0: number) => Entry[]): Promise<SimPeer> {
  const p = await s.sim.add(undefined, { playOnly: true });
  listen(p);
  // Minted with the rogue as primary: it answers the SUBSCRIBE, and a subscriber takes a
  // SNAPSHOT only from the primary its certificate names (with near ids the rows' sender is
  // one of them: a certificate naming it would be refused for its sender, testing nothing).
  const cert = await certOf({ ...s, sender: s.atk.node }, 'minted');
  s.atk.serve(s.r, cert, planted(cert.e, 1));
  eclipseOnce(p, s.key, s.atk.node);
  p.client.subscribe(s.r).catch(() => {});
  await s.sim.clock.runUntil(() => !!p.client.attachment(s.r), 10_000);
  return p;
}

/** Puts the row's record (location or edit log of planted blocks) under its chain through the attacker's node; false if the put threw. */
export async function putRecord(s: Scene, row: Row, cert: EpochCert, planted: (e: number, s0: number) => Entry[]): Promise<boolean> {
  // Signed by the certificate's primary: the attacker's key when it minted it, else the
  // honest primary's own key as it would sign in that region or world (a captured record).
  const signer: Signer = s.sim.keyring.signer(cert.primary);
  // Cross-region and cross-world records are signed over their own key and stored under ours.
  const signKey = row.chain === 'cross-region' ? await new RegionKeys(s.sim.world, simKeyHash).key(s.otherRegion) : row.chain === 'cross-world' ? s.worldKey : s.key;
  const dht = { put: (ns: Parameters<SimPeer['dht']['put']>[0], k: NodeId, v: Uint8Array, opt?: Parameters<SimPeer['dht']['put']>[3]) => s.atk.node.dht.put(ns, idEquals(k, signKey) ? s.key : k, v, opt), get: s.atk.node.dht.get.bind(s.atk.node.dht) };
  try {
    const auth = { signer, cert };
    if (row.frame.t === 'LOCATION') await s.sim.settle(putLocation(dht, signKey, auth, 1));
    else await s.sim.settle(putEdits(dht, signKey, auth, { e: cert.e, s: PLANTED_PER_ROW }, planted(cert.e, 1), simKeyHash));
    return true;
  } catch {
    return false;
  }
}

/** Names of rows whose planted blocks an honest peer showed or stored (`member`: only rows sent from inside the host set, or only from outside). */
export function breaches(res: AdversaryResult, member?: boolean): string[] {
  return res.rows.filter((x) => x.shown + x.stored + x.pending > 0 && (member === undefined || x.member === member)).map((x) => `${x.name}: shown ${x.shown}, stored ${x.stored}, pending ${x.pending}`);
}

/** Rows that never reached a live target (kill runs may find no primary during the failover). */
export function undelivered(res: AdversaryResult, o: AdversaryOptions): RowResult[] {
  return res.rows.filter((x) => !x.delivered && !(o.kill && x.skipped));
}

/**
 * Rows that reached their target and moved none of the counters they name, leaving out the
 * `silent` ones (their reason given), those sent from inside the host set (a host's frames
 * are its to send, no refusal), and, with ids near the key, what the near keys granted and a
 * reader holding no anchored certificate took by rule 2 (docs/TRUST.md (a)): records at a
 * holder holding none yet, and a top certificate an idle host then held (taken, not refused).
 */
export function uncountedRows(res: AdversaryResult, o: AdversaryOptions): RowResult[] {
  const nearAnchored = (x: RowResult) =>
    !!o.near && (((x.t === 'LOCATION' || x.t === 'EDITS') && (x.chain === 'minted' || x.chain === 'top' || x.chain === 'linked')) || (x.role === 'idle' && x.chain === 'top' && x.epoch === MAX_EPOCH));
  return res.rows.filter((x) => x.delivered && !x.silent && !x.member && !nearAnchored(x) && x.counted === 0);
}

/** Epochs an attacker could use up: the most an honest host of the region moved past the start, and whether anything reached the learn cap. */
export function epochsExhausted(res: AdversaryResult): boolean {
  return res.maxEpoch - res.startEpoch > MAX_EPOCH_JUMP || res.maxEpochAnywhere >= LEARN_EPOCH_CAP;
}
