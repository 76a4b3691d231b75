// Hostile DHT nodes for the adversarial simulation. A hostile node is a
// real DhtNode (it joins, holds links, answers heartbeats: nothing tells it from an honest
// one) whose transport rewrites what it sends:
// - eclipse: every NODES or VALUE it answers names only its accomplices, the hostile nodes
//   closest to the target (the crew knows each other);
// - routed messages it forwards for others are dropped (`dropShare`) or sent down a random
//   other link (`misrouteShare`, a misroute);
// - every VALUE it answers carries a bad record: one forged (a version far above the
//   owner's, signed by no owner) or, where the crew saw one, an old record the owner
//   signed and has since replaced (a replay);
// and whose own value store takes anything (`acceptAnyRecord`), so the crew can STORE
// forged records through the ordinary put (`floodForged`: each such put goes to the k
// nodes closest to the key, which must refuse it).
// Only the sending side is touched; the node's own reading of the network stays honest.
import { Emitter } from '../core/emitter';
import { idToHex, type NodeId } from '../core/node-id';
import type { Random } from '../core/seeded-random';
import type { DhtNode, DhtOptions } from '../dht/dht-node';
import { dhtCodec, type DhtMessage, type Namespace } from '../dht/messages';
import { encodeRoute, isRouteFrame, readRoute, type RouteEnvelope } from '../dht/route-frame';
import type { Link, LinkEvents } from '../net/link';
import type { SignalBlob, SignalChannel, Transport, TransportEvents } from '../net/transport';
import type { NodeVariant } from './sim-cluster';
import { acceptAnyRecord } from './sim-records';

/** Requests a hostile node remembers, to know what a reply it sends is an answer to. */
const ASKED_KEPT = 2048;
/** What a forged record claims: a version no honest owner reaches. */
const FORGED_VERSION = 0xfffffff0;

export interface HostileOptions {
  /** Share of the routed messages it forwards for others that it drops. */
  dropShare: number;
  /** Share of the rest it sends down a random other link. */
  misrouteShare: number;
}

export interface HostileCounts {
  /** NODES/VALUE answers whose nodes were replaced by accomplices. */
  eclipsed: number;
  /** VALUE answers carrying a forged record / a replayed old one. */
  forgedAnswers: number;
  replayedAnswers: number;
  dropped: number;
  misrouted: number;
  /** Forged records put (each STOREd at up to k nodes). */
  forgedPuts: number;
}

/** The attackers, who know each other and share what they saw. */
export class HostileCrew {
  readonly members = new Map<string, NodeId>();
  readonly counts: HostileCounts = { eclipsed: 0, forgedAnswers: 0, replayedAnswers: 0, dropped: 0, misrouted: 0, forgedPuts: 0 };
  /** Old (since replaced) records the owners signed, by key: what a replay serves. */
  readonly stale = new Map<string, Uint8Array>();
  /** Off: the crew behaves (to build a network first, then turn on the attack). */
  active = true;

  constructor(
    readonly opts: HostileOptions,
    private readonly rand: Random,
  ) {}

  /** The variant a hostile node runs as (SimCluster's `variant`). */
  variant(id: NodeId, ruled: Namespace[]): NodeVariant {
    this.members.set(idToHex(id), id);
    const records: DhtOptions['records'] = {};
    for (const ns of ruled) records[ns] = acceptAnyRecord;
    return { dht: { records }, wrap: (t) => new HostileTransport(t, this) };
  }

  isHostile(hex: string): boolean {
    return this.members.has(hex);
  }

  /** The n accomplices closest to target, leaving out `except`. */
  closest(target: NodeId, n: number, except: string[]): NodeId[] {
    // The first 6 bytes of the XOR distance order 2,000 ids well enough (ties are rare).
    const dist = (id: NodeId) => {
      let d = 0;
      for (let i = 0; i < 6; i++) d = d * 256 + (id[i]! ^ target[i]!);
      return d;
    };
    const picked: { id: NodeId; d: number }[] = [];
    for (const [hex, id] of this.members) if (!except.includes(hex)) picked.push({ id, d: dist(id) });
    return picked
      .sort((a, b) => a.d - b.d)
      .slice(0, n)
      .map((x) => x.id);
  }

  /** A record for key that no owner signed, claiming a version above any honest one. */
  forged(): Uint8Array {
    const v = new Uint8Array(4 + 8 + 64);
    new DataView(v.buffer).setUint32(0, FORGED_VERSION);
    for (let i = 4; i < v.length; i++) v[i] = Math.floor(this.rand() * 256);
    return v;
  }

  /** Each hostile node puts `perNode` forged records under random keys of `keys` (the STORE flood). */
  async floodForged(nodes: DhtNode[], ns: Namespace, keys: NodeId[], perNode: number): Promise<void> {
    const puts: Promise<unknown>[] = [];
    for (const n of nodes) {
      if (!this.isHostile(n.selfHex) || !n.isRunning) continue;
      for (let i = 0; i < perNode; i++) {
        const key = keys[Math.floor(this.rand() * keys.length)]!;
        this.counts.forgedPuts++;
        puts.push(n.put(ns, key, this.forged()).catch(() => {}));
      }
    }
    await Promise.all(puts);
  }

  drawDrop(): 'drop' | 'misroute' | 'pass' {
    const x = this.rand();
    if (x < this.opts.dropShare) return 'drop';
    return x < this.opts.dropShare + (1 - this.opts.dropShare) * this.opts.misrouteShare ? 'misroute' : 'pass';
  }

  coin(): boolean {
    return this.rand() < 0.5;
  }

  /** A member that died: no longer named as an accomplice. */
  leave(hex: string): void {
    this.members.delete(hex);
  }

  pickOther<T>(xs: T[], not: T): T | undefined {
    const others = xs.filter((x) => x !== not);
    return others[Math.floor(this.rand() * others.length)];
  }
}

interface Asked {
  target: NodeId;
}

/** A hostile node's transport: its links lie for it (see the file comment). */
class HostileTransport implements Transport {
  readonly events = new Emitter<TransportEvents>();
  readonly selfId: NodeId;
  readonly selfHex: string;
  readonly links = new Set<HostileLink>();
  /** Requests for us, by `requesterHex:r`, oldest first. */
  readonly asked = new Map<string, Asked>();

  constructor(
    private readonly inner: Transport,
    readonly crew: HostileCrew,
  ) {
    this.selfId = inner.selfId;
    this.selfHex = idToHex(inner.selfId);
    inner.events.on('link', (l) => this.events.emit('link', this.wrap(l)));
  }

  dial(remoteId: NodeId, signals: SignalChannel): Promise<Link> {
    return this.inner.dial(remoteId, signals).then((l) => this.wrap(l));
  }

  handleSignal(from: NodeId, blob: SignalBlob, signals: SignalChannel): void {
    this.inner.handleSignal(from, blob, signals);
  }

  close(): void {
    this.inner.close();
  }

  private wrap(l: Link): HostileLink {
    const h = new HostileLink(l, this);
    this.links.add(h);
    l.events.on('close', () => this.links.delete(h));
    return h;
  }

  /** Notes a FIND_NODE / FIND_VALUE for us (direct, or routed with us as destination). */
  heard(frame: Uint8Array, remote: NodeId): void {
    let from = remote;
    let body = frame;
    try {
      if (isRouteFrame(frame)) {
        const env = readRoute(frame);
        if (idToHex(env.dst) !== this.selfHex) return;
        from = env.src;
        body = env.body;
      }
      const msg = dhtCodec.decode(body);
      if (msg.t === 'FIND_NODE') this.remember(`${idToHex(from)}:${msg.r}`, { target: msg.target });
      else if (msg.t === 'FIND_VALUE') this.remember(`${idToHex(from)}:${msg.r}`, { target: msg.key });
    } catch {
      // junk: the node's own checks count it
    }
  }

  private remember(key: string, a: Asked): void {
    this.asked.set(key, a);
    if (this.asked.size > ASKED_KEPT) this.asked.delete(this.asked.keys().next().value!);
  }

  /** What actually goes out for `frame` on `link`: the frame, a lie, another link, or nothing. */
  outgoing(frame: Uint8Array, link: HostileLink): { frame: Uint8Array; via: HostileLink } | undefined {
    if (!this.crew.active) return { frame, via: link };
    try {
      if (!isRouteFrame(frame)) {
        const lie = this.lie(dhtCodec.decode(frame), link.remoteId);
        return { frame: lie ? dhtCodec.encode(lie).slice() : frame, via: link };
      }
      const env = readRoute(frame);
      if (idToHex(env.src) !== this.selfHex) return this.forward(frame, link);
      const lie = this.lie(dhtCodec.decode(env.body), env.dst);
      return { frame: lie ? this.reenvelope(env, dhtCodec.encode(lie)) : frame, via: link };
    } catch {
      return { frame, via: link };
    }
  }

  private forward(frame: Uint8Array, link: HostileLink): { frame: Uint8Array; via: HostileLink } | undefined {
    const what = this.crew.drawDrop();
    if (what === 'drop') {
      this.crew.counts.dropped++;
      return undefined;
    }
    if (what === 'misroute') {
      const other = this.crew.pickOther([...this.links].filter((l) => l.open), link);
      if (other) {
        this.crew.counts.misrouted++;
        return { frame, via: other };
      }
    }
    return { frame, via: link };
  }

  private reenvelope(env: RouteEnvelope, body: Uint8Array): Uint8Array {
    // Simulated nodes sign nothing (src/dht/README.md); a signing attacker would sign its lie.
    return encodeRoute({ ...env, body: body.slice() }).slice();
  }

  /** The lying version of a reply of ours to `to`, or undefined to send it as it is. */
  private lie(msg: DhtMessage, to: NodeId): DhtMessage | undefined {
    if (msg.t !== 'NODES' && msg.t !== 'VALUE') return undefined;
    const toHex = idToHex(to);
    const asked = this.asked.get(`${toHex}:${msg.r}`);
    if (!asked) return undefined;
    const { crew } = this;
    crew.counts.eclipsed++;
    const nodes = crew.closest(asked.target, msg.nodes.length || 20, [this.selfHex, toHex]);
    if (msg.t === 'NODES') return { t: 'NODES', r: msg.r, nodes };
    const stale = crew.stale.get(idToHex(asked.target));
    const replay = stale !== undefined && crew.coin();
    if (replay) crew.counts.replayedAnswers++;
    else crew.counts.forgedAnswers++;
    const v = replay ? stale : crew.forged();
    return { t: 'VALUE', r: msg.r, nodes, rec: { v, pub: this.selfId, seq: msg.rec?.seq ?? 1, ttl: msg.rec?.ttl ?? 3600_000 } };
  }
}

/** A link whose sends go through its node's lies; everything else is the real link. */
class HostileLink implements Link {
  readonly remoteId: NodeId;
  readonly events: Emitter<LinkEvents>;

  constructor(
    private readonly inner: Link,
    private readonly owner: HostileTransport,
  ) {
    this.remoteId = inner.remoteId;
    this.events = inner.events;
    // Registered before the node's own listener: the request is noted before it is answered.
    inner.events.on('message', (frame) => owner.heard(frame, inner.remoteId));
  }

  get open(): boolean {
    return this.inner.open;
  }

  get bufferedAmount(): number {
    return this.inner.bufferedAmount;
  }

  send(data: Uint8Array): void {
    const out = this.owner.outgoing(data, this);
    if (!out) return;
    if (out.via === this) this.inner.send(out.frame);
    else out.via.sendRaw(out.frame);
  }

  /** Sends as it is (a misrouted frame arriving on this link). */
  sendRaw(data: Uint8Array): void {
    if (this.inner.open) this.inner.send(data);
  }

  close(reason?: string): void {
    this.inner.close(reason);
  }
}
