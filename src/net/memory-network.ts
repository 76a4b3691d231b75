// The in-memory network the simulator and tests run the real DHT on. Every node gets a
// MemoryTransport (the Transport interface). Dialing really exchanges signal blobs
// through the SignalChannel it is given (the memory relay from `relay(id)`, or the DHT
// overlay), so overlay signaling is exercised; the connection then appears at once.
//
// Faults, all seeded and driven by the injected clock:
// - latency: each link draws a base one-way latency in [latencyMs*(1-s), latencyMs*(1+s)),
//   s = latencySpread (default 0.5: [latencyMs/2, 3*latencyMs/2); 0: every link latencyMs);
//   each message adds uniform jitter in [0, jitterMs). Delays are whole milliseconds.
// - loss: a link is reliable and ordered, so a lost packet costs a retransmission, not a
//   message: each message is "lost" with probability `loss`, each time adding `rtoMs`.
// - partitions: nodes in different groups cannot reach each other; messages between them
//   vanish, and links across are closed after `partitionCloseMs` (ICE failure).
// - churn: `kill(id)` ends a node: its links close at the remote ends after one latency,
//   or never with { silent: true } (only heartbeats notice); `addNode(id)` can bring the
//   same id back later.
// - networks: each node is of one network (network-id.ts: its world's); a dial across two
//   is refused as the WebRTC handshake refuses it (OTHER_NETWORK, counted in `otherNetwork`).
import type { Clock } from '../core/clock';
import { Emitter } from '../core/emitter';
import { idToHex, type NodeId } from '../core/node-id';
import { seededRandom, type Random } from '../core/seeded-random';
import { ICE_FAILED, REMOTE_VANISHED } from './close-reasons';
import { NOT_OUR_NETWORK } from './link-handshake';
import { UNNAMED_NETWORK } from './network-id';
import { MemoryLink, type LinkMedium } from './memory-link';
import { DialError, type SignalBlob, type SignalChannel, type Transport, type TransportEvents } from './transport';

export interface MemoryNetworkOptions {
  clock: Clock;
  /** PRNG seed for latencies, jitter and loss. Default 1. */
  seed?: number;
  /** Mean base one-way latency in ms. Default 20. */
  latencyMs?: number;
  /** A link's base latency lies within this fraction of latencyMs either side (uniform). Default 0.5. */
  latencySpread?: number;
  /** Per-message jitter range in ms. Default 5. */
  jitterMs?: number;
  /** Probability a message needs a retransmission (repeated geometrically). Default 0. */
  loss?: number;
  /** Retransmission delay added per loss. Default 200. */
  rtoMs?: number;
  /** A dial without answer fails after this long. Default 10000. */
  dialTimeoutMs?: number;
  /** Links per node a "browser" allows (Chrome refuses ~500 RTCPeerConnections). Default 500. */
  maxLinksPerNode?: number;
  /** Delay before links across a new partition close. Default 5000. */
  partitionCloseMs?: number;
}

export interface MemoryNetworkStats {
  dials: number;
  linksOpened: number;
  messages: number;
  bytes: number;
  dropped: number;
  signals: number;
  /** Dials refused because the two ends are of different networks. */
  otherNetwork: number;
}

interface Offer {
  mem: 'offer' | 'answer' | 'reject';
  dial: number;
  /** An offer's network (none: the unnamed one). */
  net?: string;
  /** A reject's reason: 'network', the two ends are of different networks. */
  why?: string;
}

function asOffer(blob: SignalBlob): Offer | null {
  const { mem, dial, net, why } = blob;
  if ((mem === 'offer' || mem === 'answer' || mem === 'reject') && typeof dial === 'number') {
    return { mem, dial, ...(typeof net === 'string' ? { net } : {}), ...(typeof why === 'string' ? { why } : {}) };
  }
  return null;
}

export class MemoryNetwork implements LinkMedium {
  readonly clock: Clock;
  readonly stats: MemoryNetworkStats = { dials: 0, linksOpened: 0, messages: 0, bytes: 0, dropped: 0, signals: 0, otherNetwork: 0 };
  private readonly rand: Random;
  private readonly nodes = new Map<string, MemoryTransport>();
  private groups = new Map<string, number>();
  /** "from>to" (hex) -> until when that direction is held back (`hold`). */
  private readonly held = new Map<string, number>();
  /** Nodes whose frames are handled at their thread's next turn (`setTurns`), by hex. */
  private readonly turns = new Map<string, (t: number) => number>();
  readonly opts: Required<Omit<MemoryNetworkOptions, 'clock' | 'seed'>>;

  constructor(options: MemoryNetworkOptions) {
    this.clock = options.clock;
    this.rand = seededRandom(options.seed ?? 1);
    this.opts = {
      latencyMs: options.latencyMs ?? 20,
      latencySpread: options.latencySpread ?? 0.5,
      jitterMs: options.jitterMs ?? 5,
      loss: options.loss ?? 0,
      rtoMs: options.rtoMs ?? 200,
      dialTimeoutMs: options.dialTimeoutMs ?? 10_000,
      maxLinksPerNode: options.maxLinksPerNode ?? 500,
      partitionCloseMs: options.partitionCloseMs ?? 5000,
    };
  }

  /** Adds (or revives) a node, of `network` (default the unnamed one), and returns its transport. */
  addNode(id: NodeId, opts: { network?: string } = {}): MemoryTransport {
    const hex = idToHex(id);
    const old = this.nodes.get(hex);
    if (old?.alive) throw new Error(`node ${hex.slice(0, 8)} is already on the network`);
    const t = new MemoryTransport(this, id, opts.network ?? UNNAMED_NETWORK);
    this.nodes.set(hex, t);
    return t;
  }

  transport(id: NodeId): MemoryTransport | undefined {
    const t = this.nodes.get(idToHex(id));
    return t?.alive ? t : undefined;
  }

  isAlive(id: NodeId): boolean {
    return this.nodes.get(idToHex(id))?.alive ?? false;
  }

  /** Ends a node (churn). Its links close at the remote ends, or silently vanish. */
  kill(id: NodeId, opts: { silent?: boolean } = {}): void {
    const t = this.nodes.get(idToHex(id));
    if (!t || !t.alive) return;
    t.die(opts.silent ?? false);
  }

  /** Nodes in different groups cannot reach each other; nodes in no group reach everyone. */
  partition(groups: NodeId[][]): void {
    this.groups = new Map();
    groups.forEach((g, i) => g.forEach((id) => this.groups.set(idToHex(id), i)));
    this.clock.setTimeout(() => {
      for (const t of this.nodes.values()) t.closeUnreachable();
    }, this.opts.partitionCloseMs);
  }

  heal(): void {
    this.groups = new Map();
  }

  /**
   * Messages `from` sends `to` until `until` arrive no earlier than then, in order, and
   * nothing closes: a tab slow towards one peer (its frames queued behind a stall), not a
   * dead or cut-off one.
   */
  hold(from: NodeId, to: NodeId, until: number): void {
    this.held.set(`${idToHex(from)}>${idToHex(to)}`, until);
  }

  /**
   * Frames that reach `id` are handled at `turnOf(t)` instead of at `t` (a starved tab's
   * main thread: testing/starved-clock.ts StarvedTurns); undefined: at once again.
   */
  setTurns(id: NodeId, turnOf: ((t: number) => number) | undefined): void {
    if (turnOf) this.turns.set(idToHex(id), turnOf);
    else this.turns.delete(idToHex(id));
  }

  turnOf(to: NodeId, t: number): number {
    if (this.turns.size === 0) return t;
    return this.turns.get(idToHex(to))?.(t) ?? t;
  }

  heldUntil(a: NodeId, b: NodeId): number {
    if (this.held.size === 0) return -Infinity;
    const k = `${idToHex(a)}>${idToHex(b)}`;
    const until = this.held.get(k);
    if (until === undefined) return -Infinity;
    if (until > this.clock.now()) return until;
    this.held.delete(k);
    return -Infinity;
  }

  reachable(a: NodeId, b: NodeId): boolean {
    if (this.groups.size === 0) return true;
    const ga = this.groups.get(idToHex(a));
    const gb = this.groups.get(idToHex(b));
    return ga === undefined || gb === undefined || ga === gb;
  }

  delay(base: number): number {
    let d = base + this.rand() * this.opts.jitterMs;
    while (this.opts.loss > 0 && this.rand() < this.opts.loss) d += this.opts.rtoMs;
    return Math.max(1, Math.round(d));
  }

  count(bytes: number): void {
    this.stats.messages++;
    this.stats.bytes += bytes;
  }

  countDrop(): void {
    this.stats.dropped++;
  }

  /** A SignalChannel like the bootstrap relay's: delivers blobs straight to the named node. */
  relay(from: NodeId): SignalChannel {
    return {
      sendSignal: (to, blob) => {
        this.stats.signals++;
        this.clock.setTimeout(() => {
          const t = this.transport(to);
          if (t && this.isAlive(from) && this.reachable(from, to)) t.handleSignal(from, blob, this.relay(to));
        }, this.delay(this.opts.latencyMs));
      },
    };
  }

  /** Draws a link's base one-way latency. */
  linkLatency(): number {
    const l = this.opts.latencyMs, s = this.opts.latencySpread;
    // At s = 0.5 this is l / 2 + rand * l exactly (the same draws as before the option).
    return Math.max(1, Math.round(l * (1 - s) + this.rand() * 2 * s * l));
  }

  /** Creates the two ends of a link between live, reachable nodes (or null). */
  connect(a: MemoryTransport, b: MemoryTransport): [MemoryLink, MemoryLink] | null {
    if (!a.alive || !b.alive || !this.reachable(a.selfId, b.selfId)) return null;
    if (a.linkCount >= this.opts.maxLinksPerNode || b.linkCount >= this.opts.maxLinksPerNode) return null;
    const latency = this.linkLatency();
    const la = new MemoryLink(a.selfId, b.selfId, this, latency);
    const lb = new MemoryLink(b.selfId, a.selfId, this, latency);
    la.peer = lb;
    lb.peer = la;
    a.track(la);
    b.track(lb);
    this.stats.linksOpened++;
    return [la, lb];
  }
}

interface PendingDial {
  remote: NodeId;
  resolve: (l: MemoryLink) => void;
  reject: (e: Error) => void;
  timer: unknown;
}

export class MemoryTransport implements Transport {
  readonly events = new Emitter<TransportEvents>();
  /** Dials this node started (the simulator reports them). */
  dials = 0;
  /** Connections refused because the far end is of another network (either end counts its own). */
  otherNetwork = 0;
  alive = true;
  private nextDial = 1;
  private readonly pending = new Map<number, PendingDial>();
  private readonly links = new Set<MemoryLink>();

  constructor(
    private readonly net: MemoryNetwork,
    readonly selfId: NodeId,
    readonly network: string,
  ) {}

  get linkCount(): number {
    return this.links.size;
  }

  /** Open links of this node (for the simulator's links-per-node figure). */
  openLinks(): MemoryLink[] {
    return [...this.links].filter((l) => l.open);
  }

  dial(remoteId: NodeId, signals: SignalChannel): Promise<MemoryLink> {
    this.dials++;
    this.net.stats.dials++;
    if (!this.alive) return Promise.reject(new DialError('transport closed'));
    const dial = this.nextDial++;
    return new Promise<MemoryLink>((resolve, reject) => {
      const timer = this.net.clock.setTimeout(() => {
        this.pending.delete(dial);
        reject(new DialError(`dial to ${idToHex(remoteId).slice(0, 8)} timed out`));
      }, this.net.opts.dialTimeoutMs);
      this.pending.set(dial, { remote: remoteId, resolve, reject, timer });
      signals.sendSignal(remoteId, { mem: 'offer', dial, ...(this.network !== UNNAMED_NETWORK ? { net: this.network } : {}) });
    });
  }

  handleSignal(from: NodeId, blob: SignalBlob, signals: SignalChannel): void {
    if (!this.alive) return;
    const s = asOffer(blob);
    if (!s) return; // not ours: a transport validates what it reads, and ignores junk
    if (s.mem === 'offer') {
      if ((s.net ?? UNNAMED_NETWORK) !== this.network) {
        // As the WebRTC handshake does, on both ends: the dialer counts it when told.
        this.otherNetwork++;
        this.net.stats.otherNetwork++;
        signals.sendSignal(from, { mem: 'reject', dial: s.dial, why: 'network' });
        return;
      }
      const full = this.links.size >= this.net.opts.maxLinksPerNode;
      signals.sendSignal(from, { mem: full ? 'reject' : 'answer', dial: s.dial });
      return;
    }
    const p = this.pending.get(s.dial);
    if (!p || idToHex(p.remote) !== idToHex(from)) return;
    this.pending.delete(s.dial);
    this.net.clock.clearTimeout(p.timer);
    if (s.mem === 'reject' && s.why === 'network') {
      this.otherNetwork++;
      return p.reject(new DialError(`handshake failed: ${NOT_OUR_NETWORK}`));
    }
    if (s.mem === 'reject') return p.reject(new DialError('remote refused the link'));
    const remote = this.net.transport(from);
    const pair = remote ? this.net.connect(this, remote) : null;
    if (!pair || !remote) return p.reject(new DialError('remote unreachable'));
    const [mine, theirs] = pair;
    // The answerer's channel opens one latency later, before any of our messages arrive.
    this.net.clock.setTimeout(() => {
      if (theirs.open && remote.alive) remote.events.emit('link', theirs);
    }, mine.latency);
    p.resolve(mine);
  }

  track(link: MemoryLink): void {
    this.links.add(link);
    link.events.on('close', () => this.links.delete(link));
  }

  closeUnreachable(): void {
    for (const l of [...this.links]) {
      if (!this.net.reachable(l.localId, l.remoteId)) {
        l.remoteClosed(ICE_FAILED);
        l.peer.remoteClosed(ICE_FAILED);
      }
    }
  }

  /** Called by MemoryNetwork.kill. */
  die(silent: boolean): void {
    this.alive = false;
    for (const p of this.pending.values()) {
      this.net.clock.clearTimeout(p.timer);
      p.reject(new DialError('transport closed'));
    }
    this.pending.clear();
    for (const l of [...this.links]) {
      l.vanish();
      if (!silent) {
        const peer = l.peer;
        this.net.clock.setTimeout(() => peer.remoteClosed(REMOTE_VANISHED), l.latency);
      }
    }
    this.links.clear();
    this.events.removeAll();
  }

  close(): void {
    this.net.kill(this.selfId);
  }
}
