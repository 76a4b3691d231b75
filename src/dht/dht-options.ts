// Every option of a DHT node and its default, in one documented object (docs/STYLE.md), and
// how a node reaches its first peers. Each part (join.ts, liveness.ts, ...) reads the
// options it needs through a Pick of `DhtOptions`.
import { ID_WORK_BITS } from '../core/id-work';
import type { NodeId } from '../core/node-id';
import type { SignalChannel } from '../net/transport';
import { LINK_LIMIT_DEFAULTS } from './link-set';
import { LINK_BUDGET_DEFAULTS } from './link-budget';
import type { Namespace } from './messages';
import type { RecordRules } from './record-rules';

/** Every option and its default. */
export const DHT_DEFAULTS = {
  /** Bucket size and replication factor. */
  k: 20,
  /** The link budget: links held, dialled, per bucket, pinned and read-only (link-budget.ts). */
  ...LINK_BUDGET_DEFAULTS,
  /**
   * A read-only node (read-only-peers.ts; BEP 43): it flags every frame it sends, so others
   * keep it out of their tables, their answers and their routes; it refuses STOREs. It
   * still looks up, gets, puts its own records and links directly. A play-only peer.
   */
  readOnly: false as boolean,
  /**
   * A full node that hosts no regions (a `?hosting=off` tab): it flags every frame it sends
   * (`nh`, messages.ts) so region hosts keep it out of their host sets; it stays everyone's
   * contact, holder and router.
   */
  noHost: false as boolean,
  /** RPC reply timeout (direct or routed). */
  rpcTimeoutMs: 4000,
  /** A lookup query unanswered this long no longer holds a parallel slot (lookup.ts). */
  lookupStallMs: 1000,
  /**
   * A lookup candidate (not the target) silent this long after its first query, two stalls
   * (its first route and one retry by another), and at least 4 times the lookup's slowest
   * answer, no longer holds the lookup's end (lookup.ts `giveUpMs`). Nodes name a contact
   * that left until they find it dead (up to the heartbeat timeout), so every lookup in a
   * world some tabs had just left waited out the RPC timeout on them: a newcomer's join
   * among them took 4 s longer, 8 s when several had left (docs/BENCHMARKS.md "Tabs",
   * `tab_rejoin_ms`). Lookups then ask the nodes given up lately without waiting for them
   * (silent-candidates.ts, for `heartbeatTimeoutMs`). Off when not
   * under `rpcTimeoutMs` (the retry window ends a silent candidate then anyway): the large
   * and hosting simulations' timings (2 s, 0.6 s) keep their lookups as they were measured.
   */
  lookupGiveUpMs: 2000,
  /** Consecutive RPC failures before a contact leaves the table. */
  maxFails: 2,
  /** A full bucket's oldest contact heard from within this long is kept without a ping. */
  evictionPingFreshMs: 60_000,
  /** A link silent this long gets a PING. */
  heartbeatMs: 5000,
  /** A link silent this long is closed and its peer dropped from the table. */
  heartbeatTimeoutMs: 15_000,
  /**
   * How often links and contacts are checked against the two limits above. A check that
   * runs only once per heartbeat lets a dead peer outlive the timeout by up to a heartbeat.
   */
  failureCheckMs: 1000,
  /**
   * Contacts without a live link that have been silent long enough get a routed PING,
   * stalest first, at most this many per heartbeatMs; one that does not answer leaves the
   * table. Without it a dead contact we only knew through lookups would stay listed until a
   * lookup happened to ask it. "Long enough" is heartbeatTimeoutMs - rpcTimeoutMs -
   * failureCheckMs, so that the probe's answer (or its timeout) comes by the time the
   * contact has been silent for heartbeatTimeoutMs: a dead one leaves every table within the
   * heartbeat timeout, linked or not (while the stale contacts fit in this budget).
   */
  staleProbesPerHeartbeat: 2,
  /** Link budget check period. */
  maintainMs: 5000,
  /** No redial of a peer for this long after a failed dial or a link it closed. */
  dialBackoffMs: 30_000,
  /** Buckets without a lookup for this long are refreshed. */
  refreshMs: 15 * 60_000,
  /**
   * Empty buckets above our lowest non-empty one are refreshed this often: a node that
   * joined a small network learns of the far halves that filled in since (and greedy
   * routing needs a link in every non-empty bucket).
   */
  emptyRefreshMs: 60_000,
  /**
   * One contact dropped as dead is dialled through the relay this often (dormant-contacts.ts):
   * how soon a node cut off from the rest finds it again once the network heals. Shorter heals
   * faster: at 5 s (below the hosts' 10 s rebase wait) the safety simulation forked 5 times
   * instead of 165 with rebase on, but 8 Chromium tabs on 2 cores then failed over slower
   * (failover_crash p50 2,130 ms, max 18,405, half the confirmed edits, against 1,686 / 1,835
   * at 60 s; docs/BENCHMARKS.md), so the default stays at 60 s.
   */
  dormantProbeMs: 60_000,
  /**
   * After the join lookup, refresh buckets farther than the closest neighbour: 'all' of
   * them (Kademlia), only those still 'empty' (cheaper), or 'none'. 'probe': each empty
   * bucket gets one FIND_NODE (to the contact closest to a random id in it) instead of a
   * whole lookup: ~1 RPC rather than ~20 per bucket (the simulator's choice); what it
   * misses, the periodic empty-bucket refresh finds.
   */
  joinRefresh: 'all' as 'all' | 'empty' | 'probe' | 'none',
  /** Holders closest to a key (by their own tables) that hand its value to a newcomer. */
  handoverHolders: 2,
  /**
   * Owner rules by namespace (record-rules.ts): each STOREd and each read value is checked
   * by its namespace's rule, whose version orders values. Namespaces left out get the
   * default rule (size cap, version = seq, equal seq replaces, `unruledMaxTtlMs`).
   */
  records: {} as RecordRules,
  /** Longest a holder keeps a value of a namespace without a rule after its last STORE. */
  unruledMaxTtlMs: 3600_000,
  /**
   * A STORE is taken only by a node with fewer than storeNearFactor * k known contacts
   * closer to the key than itself (`storeRefused.notNear`): honest STOREs go to the k
   * closest a lookup found, and the slack absorbs churn and table differences. 0 = off.
   * Factor 1 ("among the k closest it knows") was tried: under churn, tables still holding
   * dead contacts refused honest region records, and the hosting churn test failed (89% of
   * edits confirmed in one run, under its 90% bar; in another a subscriber missed a
   * confirmed edit); both pass at 2. The store's byte and per-publisher caps
   * (value-store.ts) bound what the slack can cost.
   */
  storeNearFactor: 2,
  /**
   * A get collects this many valid values (the local one counts) from the lookup and
   * returns the highest version; fewer when the lookup ends first, or GET_WAIT_ROUNDS
   * lookup rounds, at most GET_WAIT_MS, after its first value (lookups.ts).
   */
  getAnswers: 3,
  /**
   * Disjoint lookup paths of a value read in a namespace of `disjointReads` (owned
   * records): S/Kademlia's defence against hostile nodes that answer with only each
   * other or withhold values (lookup.ts). 1 = one path. Measured in the adversarial
   * simulator (src/testing/adversarial-sim.ts, docs/BENCHMARKS.md).
   */
  valuePaths: 3,
  /**
   * The namespaces read by `valuePaths` disjoint paths (each must have an owner rule):
   * player records and region location records ('chunk': who is primary, read on every
   * subscribe; a replayed older one points players at a past primary). Edit logs ('edits')
   * keep one path: a primary reads them only when it holds no state. Location records in the
   * adversarial simulation (1,000 nodes, 20% hostile replaying epoch 1's record):
   * newest record read 0.58 with one path, 0.80 with three, at 4.2x the lookup RPCs (7.9 ->
   * 32.8) (src/dht/dht-adversarial.test.ts).
   */
  disjointReads: ['player', 'chunk'] as Namespace[],
  /** Disjoint paths of a FIND_NODE lookup (findNode, put's search for the k closest, joins, refresh). */
  nodePaths: 1,
  /** Default lifetime of a put value. */
  valueTtlMs: 3600_000,
  /** The publisher re-puts its values this often. */
  republishMs: 20 * 60_000,
  /** Holders re-store values they have not seen refreshed for this long. */
  replicateMs: 10 * 60_000,
  /** Value expiry / republish / replicate sweep period. */
  valueSweepMs: 60_000,
  /**
   * Routed messages are forwarded by one of the links that make the same progress (the same
   * bucket toward the destination), drawn by the message's id, instead of always the
   * closest: a retry then takes another route into the destination's neighbourhood
   * (router.ts spreadHop).
   */
  spreadRoutes: true,
  /**
   * A reply to a routed request goes back by its reverse path and, for a request the same
   * node asked again within the RPC timeout or a FIND_NODE for our own id ('repeat'; or for
   * every routed request: 'always'; 'never'), by plain routing too (rpc-handlers.ts).
   */
  secondReplyRoute: 'repeat' as 'never' | 'repeat' | 'always',
  /**
   * A link we handed a request and whose peer has sent us nothing for this long since is
   * passed over as a hop and PINGed at once (closed if the PING goes unanswered): a peer
   * that died silently swallows every route through it until the heartbeat timeout
   * (overlay-router.ts `unanswered`). 0 = off. At 1,000 ms, 20% hostile: FIND_NODE at
   * 10,000 nodes 0.989 -> 0.994, during churn 0.941 -> 0.978 (2,000 nodes: 0.992 -> 0.996),
   * +13% link messages per lookup; reads unchanged within their spread between seeds
   * (player records by three paths 0.895 on against 0.887 off over six seeds, 1,800 reads
   * each: docs/BENCHMARKS.md "Adversarial DHT"), as the CI test (dht-adversarial.test.ts)
   * samples enough reads to tell.
   */
  unansweredHopMs: 1000,
  /** Wall-clock ms since the epoch, for routed message timestamps (injected in tests). */
  wallNow: (): number => Date.now(),
  /**
   * Drop routed messages for us that carry no source signature (`dropped.unsigned`). The
   * browser peer sets it (and passes its identity as `signer`); the simulator's nodes have
   * random ids and no keypairs, so their messages go unsigned and are taken as they come:
   * 10,000 simulated nodes cannot afford a signature per routed message, and the routing
   * is the same either way (route-auth.test.ts runs signed nodes).
   */
  requireSignedRoutes: false,
  /**
   * Work a peer's id must show (core/id-work.ts, S/Kademlia's static puzzle): an id showing
   * less gets no link, no place in the table, no route through us and no place in a lookup
   * (id-gate.ts; counted in `stats.idWorkRefused`). The simulators choose their ids and run
   * with 0 (src/testing/sim-world.ts); a tab's and the headless peer's ids are minted to it.
   */
  idWorkBits: ID_WORK_BITS,
  /** Per-link limits: undecodable frames, frame and byte rates (link-set.ts). */
  ...LINK_LIMIT_DEFAULTS,
  /** Randomness (refresh targets, link choice, request ids); inject a seeded one to replay. */
  random: Math.random as () => number,
};

export type DhtOptions = typeof DHT_DEFAULTS;

export interface DhtBootstrap {
  /** Peers to dial first (from an invite or the relay's list). */
  peers: NodeId[];
  /** How to reach them before we have any link (the relay). */
  signals: SignalChannel;
}
