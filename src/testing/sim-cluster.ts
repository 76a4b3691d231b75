// Many real DHT nodes on one in-memory network and one virtual clock: the harness of the
// simulated tests and of bench/sim.ts. Deterministic per seed.
import { idToHex, randomId, sortByDistance, type NodeId } from '../core/node-id';
import { seededRandom, type Random } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { MemoryNetwork, type MemoryNetworkOptions } from '../net/memory-network';
import { createDhtNode, type DhtNode, type DhtOptions } from '../dht/dht-node';

export interface SimClusterOptions {
  seed?: number;
  net?: Omit<MemoryNetworkOptions, 'clock' | 'seed'>;
  dht?: Partial<DhtOptions>;
}

export class SimCluster {
  readonly clock = new VirtualClock();
  readonly net: MemoryNetwork;
  readonly rand: Random;
  /** Live nodes by hex id, in join order. */
  readonly nodes = new Map<string, DhtNode>();
  /** Clock time each live node finished joining. */
  readonly joinedAt = new Map<string, number>();
  private readonly dht: Partial<DhtOptions>;
  private nodeSeq = 0;
  /** Nodes whose join failed (they are removed and replaced). */
  joinFailures = 0;
  private readonly seed: number;

  constructor(opts: SimClusterOptions = {}) {
    this.seed = opts.seed ?? 1;
    this.rand = seededRandom(this.seed);
    this.net = new MemoryNetwork({ clock: this.clock, seed: this.seed + 1, ...opts.net });
    this.dht = opts.dht ?? {};
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Runs the virtual clock until `p` settles (or maxMs of virtual time pass: then rejects). */
  async settle<T>(p: Promise<T>, maxMs = 600_000): Promise<T> {
    let done = false;
    const q = p.finally(() => (done = true));
    q.catch(() => {});
    if (!(await this.clock.runUntil(() => done, maxMs))) throw new Error(`not settled within ${maxMs} virtual ms`);
    return q;
  }

  /** Creates a node (not started). */
  private make(id: NodeId, bootstrap: NodeId[]): DhtNode {
    const transport = this.net.addNode(id);
    const node = createDhtNode({
      selfId: id,
      transport,
      clock: this.clock,
      bootstrap: bootstrap.length > 0 ? { peers: bootstrap, signals: this.net.relay(id) } : undefined,
      options: { random: seededRandom(this.seed * 7919 + this.nodeSeq++), ...this.dht },
    });
    this.nodes.set(node.selfHex, node);
    return node;
  }

  /** Adds n nodes, joining in batches (each bootstraps off a random already-joined node). */
  async grow(n: number, opts: { maxBatch?: number; onBatch?: (size: number) => void } = {}): Promise<void> {
    const maxBatch = opts.maxBatch ?? 250;
    let left = n;
    while (left > 0) {
      const joined = [...this.joinedAt.keys()];
      const batch = Math.min(left, maxBatch, Math.max(1, joined.length));
      const starts: Promise<void>[] = [];
      for (let i = 0; i < batch; i++) {
        const boot = joined.length > 0 ? [this.nodes.get(joined[Math.floor(this.rand() * joined.length)]!)!.selfId] : [];
        const node = this.make(randomId(this.rand), boot);
        starts.push(
          node.start().then(
            () => void this.joinedAt.set(node.selfHex, this.clock.now()),
            () => {
              this.joinFailures++;
              this.kill(node.selfHex);
              left++;
            },
          ),
        );
      }
      await this.settle(Promise.all(starts));
      left -= batch;
      opts.onBatch?.(this.nodes.size);
    }
  }

  /**
   * Ends a node. By default abruptly (a crashed tab): its links vanish without closing at
   * the remote ends, so only failure checks notice. `polite`: they close after one latency.
   */
  kill(hex: string, opts: { polite?: boolean } = {}): void {
    const node = this.nodes.get(hex);
    if (!node) return;
    this.net.kill(node.selfId, { silent: !opts.polite });
    node.stop();
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
