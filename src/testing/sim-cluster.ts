// Many real DHT nodes on one in-memory network and one virtual clock: the harness of the
// simulated tests and of bench/sim.ts. Deterministic per seed.
import { idToHex, randomId, sortByDistance, type NodeId } from '../core/node-id';
import type { DhtNode, DhtOptions } from '../dht/dht-node';
import type { Transport } from '../net/transport';
import { SimWorld, type SimWorldOptions } from './sim-world';

/** How one node differs from the rest (a hostile one: hostile-dht.ts). */
export interface NodeVariant {
  dht?: Partial<DhtOptions>;
  wrap?: (t: Transport) => Transport;
}

export interface SimClusterOptions extends SimWorldOptions {
  dht?: Partial<DhtOptions>;
  /** Decides, per new node, whether it differs from the rest (undefined: an ordinary node). */
  variant?: (id: NodeId) => NodeVariant | undefined;
  /**
   * Random joined nodes a newcomer bootstraps off (default 1). The app asks the relay for
   * 4 (bootstrap/peer.ts `bootstrapPeers`); among hostile nodes the count matters: a newcomer
   * whose only bootstrap lies hears of liars alone (src/dht/README.md "Hostile nodes").
   */
  bootstrapPeers?: number;
}

/**
 * Options the large simulations (bench/sim.ts, adversarial-sim.ts) run nodes with: real defaults except slower upkeep timers and a
 * cheaper join. Upkeep traffic grows with nodes x simulated time and was most of a
 * 10,000-node run's messages, while lookups, puts and gets are what is measured:
 * - heartbeat 60 s / timeout 180 s (app: 5 s / 15 s): kills are silent (a crashed tab
 *   closes nothing), so dead links are found by RPC timeouts and these heartbeats;
 * - one stale-contact probe per heartbeat (app: 2), bucket refresh hourly (app: 15 min,
 *   Kademlia's value), empty-bucket refresh every 5 min (app: 1 min);
 * - RPC timeout 2 s, lookup stall 0.6 s (app: 4 s, 1 s): a routed RPC's round trip is
 *   ~0.2 s at 10,000 nodes on this network;
 * - joinRefresh 'probe': one FIND_NODE per empty bucket after the join lookup;
 * - republish / re-replication hourly (below).
 */
export const LARGE_SIM_DHT: Partial<DhtOptions> = {
  joinRefresh: 'probe',
  heartbeatMs: 60_000,
  heartbeatTimeoutMs: 180_000,
  failureCheckMs: 60_000,
  staleProbesPerHeartbeat: 1,
  refreshMs: 3600_000,
  emptyRefreshMs: 300_000,
  rpcTimeoutMs: 2000,
  lookupStallMs: 600,
  // Republish and re-replication hourly (app: 20 and 10 min): a long run would otherwise
  // end in every holder re-storing every value at once.
  republishMs: 3600_000,
  replicateMs: 3600_000,
};

export class SimCluster extends SimWorld {
  /** Live nodes by hex id, in join order. */
  readonly nodes = new Map<string, DhtNode>();
  /** Clock time each live node finished joining. */
  readonly joinedAt = new Map<string, number>();
  private readonly dht: Partial<DhtOptions>;
  private readonly variant: SimClusterOptions['variant'];
  private readonly bootstrapPeers: number;
  /** Nodes whose join failed (they are removed and replaced). */
  joinFailures = 0;

  constructor(opts: SimClusterOptions = {}) {
    // Growing thousands of nodes takes long in virtual time: settle waits up to 10 minutes.
    super(opts, 600_000);
    this.dht = opts.dht ?? {};
    this.variant = opts.variant;
    this.bootstrapPeers = Math.max(1, opts.bootstrapPeers ?? 1);
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Creates a node (not started). */
  private make(id: NodeId, bootstrap: NodeId[]): DhtNode {
    const v = this.variant?.(id);
    const node = this.makeDht(id, bootstrap, { ...this.dht, ...v?.dht }, v?.wrap);
    this.nodes.set(node.selfHex, node);
    return node;
  }

  /**
   * One newcomer, joining off random joined nodes (`bootstrapPeers`), without running the clock: for joins
   * that happen while something else is measured. Resolves true when joined, false when the
   * join failed (counted, and the node removed). `id`: the newcomer's (default: drawn).
   */
  joinOne(id?: NodeId): Promise<boolean> {
    const joined = [...this.joinedAt.keys()];
    const picked = new Set<string>();
    // Distinct nodes; with one, one draw as ever (other simulations replay unchanged).
    for (let i = 0; i < this.bootstrapPeers && picked.size < joined.length; i++) {
      let hex = joined[Math.floor(this.rand() * joined.length)]!;
      while (picked.has(hex)) hex = joined[Math.floor(this.rand() * joined.length)]!;
      picked.add(hex);
    }
    const boot = [...picked].map((hex) => this.nodes.get(hex)!.selfId);
    const node = this.make(id ?? randomId(this.rand), boot);
    return node.start().then(
      () => {
        this.joinedAt.set(node.selfHex, this.clock.now());
        return true;
      },
      () => {
        this.joinFailures++;
        this.kill(node.selfHex);
        return false;
      },
    );
  }

  /** Adds n nodes, joining in batches (each bootstraps off a random already-joined node). */
  async grow(n: number, opts: { maxBatch?: number; onBatch?: (size: number) => void } = {}): Promise<void> {
    const maxBatch = opts.maxBatch ?? 250;
    let left = n;
    while (left > 0) {
      const batch = Math.min(left, maxBatch, Math.max(1, this.joinedAt.size));
      const starts: Promise<void>[] = [];
      for (let i = 0; i < batch; i++) starts.push(this.joinOne().then((ok) => void (ok || left++)));
      await this.settle(Promise.all(starts));
      left -= batch;
      opts.onBatch?.(this.nodes.size);
    }
  }

  /** Ends a node: abruptly by default (a crashed tab), `polite` as a closed tab (sim-world.ts). */
  kill(hex: string, opts: { polite?: boolean } = {}): void {
    const node = this.nodes.get(hex);
    if (!node) return;
    this.endDht(node, opts.polite ?? false);
    this.nodes.delete(hex);
    this.joinedAt.delete(hex);
  }

  /** A random live, joined node. */
  pick(): DhtNode {
    const keys = [...this.joinedAt.keys()];
    return this.nodes.get(keys[Math.floor(this.rand() * keys.length)]!)!;
  }

  /** The true k closest live nodes to target (brute force), leaving out `except`. */
  trueClosest(target: NodeId, k: number, except?: string): string[] {
    const ids = [...this.nodes.values()].filter((n) => n.selfHex !== except).map((n) => n.selfId);
    return sortByDistance(ids, (x) => x, target)
      .slice(0, k)
      .map(idToHex);
  }

  stopAll(): void {
    for (const hex of [...this.nodes.keys()]) this.kill(hex);
  }
}
