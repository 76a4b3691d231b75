// Many real DHT nodes on one in-memory network and one virtual clock: the harness of the
// simulated tests and of bench/sim.ts. Deterministic per seed.
import { idToHex, randomId, sortByDistance, type NodeId } from '../core/node-id';
import type { DhtNode, DhtOptions } from '../dht/dht-node';
import { SimWorld, type SimWorldOptions } from './sim-world';

export interface SimClusterOptions extends SimWorldOptions {
  dht?: Partial<DhtOptions>;
}

export class SimCluster extends SimWorld {
  /** Live nodes by hex id, in join order. */
  readonly nodes = new Map<string, DhtNode>();
  /** Clock time each live node finished joining. */
  readonly joinedAt = new Map<string, number>();
  private readonly dht: Partial<DhtOptions>;
  /** Nodes whose join failed (they are removed and replaced). */
  joinFailures = 0;

  constructor(opts: SimClusterOptions = {}) {
    // Growing thousands of nodes takes long in virtual time: settle waits up to 10 minutes.
    super(opts, 600_000);
    this.dht = opts.dht ?? {};
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Creates a node (not started). */
  private make(id: NodeId, bootstrap: NodeId[]): DhtNode {
    const node = this.makeDht(id, bootstrap, this.dht);
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
