// What every simulation shares: one virtual clock, one in-memory network, seeded randomness,
// settle/run, the making of a DHT node and its death. The DHT simulation (sim-cluster.ts)
// and the hosting one (host-sim.ts) build on it, so a kill means the same in both.
// Deterministic per seed: the network draws from seed + 1, each node from its own stream.
import type { Clock } from '../core/clock';
import type { NodeId } from '../core/node-id';
import { seededRandom, type Random } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { createDhtNode, type DhtNode, type DhtOptions } from '../dht/dht-node';
import { MemoryNetwork, type MemoryNetworkOptions } from '../net/memory-network';
import type { Transport } from '../net/transport';

export interface SimWorldOptions {
  seed?: number;
  net?: Omit<MemoryNetworkOptions, 'clock' | 'seed'>;
}

export class SimWorld {
  readonly clock = new VirtualClock();
  readonly net: MemoryNetwork;
  /** The harness's own draws (which node to pick, bootstrap off, kill). */
  readonly rand: Random;
  readonly seed: number;
  /** Numbers handed out by nextSeq(), in order, so each node's randomness is its own. */
  private seq = 0;

  constructor(opts: SimWorldOptions, private readonly settleMs: number) {
    this.seed = opts.seed ?? 1;
    this.rand = seededRandom(this.seed);
    this.net = new MemoryNetwork({ clock: this.clock, seed: this.seed + 1, ...opts.net });
  }

  /** Runs the virtual clock until `p` settles (or maxMs of virtual time pass: then rejects). */
  async settle<T>(p: Promise<T>, maxMs = this.settleMs): Promise<T> {
    let done = false;
    const q = p.finally(() => (done = true));
    q.catch(() => {});
    if (!(await this.clock.runUntil(() => done, maxMs))) throw new Error(`not settled within ${maxMs} virtual ms`);
    return q;
  }

  /** Lets ms of virtual time pass. */
  run(ms: number): Promise<void> {
    return this.clock.advance(ms);
  }

  /** The next number of this run's sequence (seeds of per-node random streams). */
  protected nextSeq(): number {
    return this.seq++;
  }

  /**
   * A DHT node (not started) on the network, bootstrapping off `bootstrap` if any. `wrap`
   * puts something between the node and its transport (hostile-dht.ts: a lying node).
   * `network`: the node's (net/network-id.ts; default the unnamed one every node shares).
   * `clock`: the node's own (a starved tab's: testing/starved-clock.ts), default the simulation's.
   */
  protected makeDht(id: NodeId, bootstrap: NodeId[], options: Partial<DhtOptions>, wrap?: (t: Transport) => Transport, network?: string, clock: Clock = this.clock): DhtNode {
    const transport = this.net.addNode(id, network !== undefined ? { network } : {});
    return createDhtNode({
      selfId: id,
      transport: wrap ? wrap(transport) : transport,
      clock,
      bootstrap: bootstrap.length > 0 ? { peers: bootstrap, signals: this.net.relay(id) } : undefined,
      // Ids here are drawn by the simulation, not minted: they show no work (core/id-work.ts).
      options: { random: seededRandom(this.seed * 7919 + this.nextSeq()), idWorkBits: 0, ...options },
    });
  }

  /**
   * Ends a node. By default abruptly (a crashed tab): the network drops it first, so
   * nothing `shutdown` sends leaves it, and its links do not close at the remote ends (only
   * heartbeats and timeouts notice; frames already in flight still arrive). `polite`: a
   * closed tab, which shuts down first and whose links close at the remote ends after one
   * latency.
   */
  protected endDht(dht: DhtNode, polite: boolean, shutdown: () => void = () => {}): void {
    if (!polite) this.net.kill(dht.selfId, { silent: true });
    shutdown();
    if (polite) this.net.kill(dht.selfId, { silent: false });
    dht.stop();
  }
}
