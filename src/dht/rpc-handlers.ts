// What a node does with each message for it, direct or routed (already decoded and
// schema-checked by link-set.ts or overlay-router.ts): answer requests back the way they
// came (a routed request's reverse path), match replies to our own requests, and hand
// SIGNAL and DATA on. Nothing here throws at a peer's words: what cannot be used is
// dropped and counted.
import type { Clock } from '../core/clock';
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import type { SignalBlob } from '../net/transport';
import type { DhtOptions } from './dht-options';
import type { DhtMessage, Reply } from './messages';
import type { Origin } from './overlay-router';
import type { RoutingTable } from './routing-table';
import type { DhtStats, StoreRefusal } from './stats';
import type { AcceptOutcome } from './values';
import { ValueStore } from './value-store';

export interface RpcHandlerDeps {
  clock: Clock;
  opts: Pick<DhtOptions, 'k' | 'secondReplyRoute' | 'rpcTimeoutMs' | 'readOnly'>;
  stats: DhtStats;
  table: RoutingTable;
  store: ValueStore;
  /** Sends a message to a node, direct or routed through `via` (dht-node.ts `sendTo`). */
  send(id: NodeId, hex: string, msg: DhtMessage, via?: readonly NodeId[]): boolean;
  /** A remote STORE, checked as a holder (values.ts `accept`). */
  accept(msg: Extract<DhtMessage, { t: 'STORE' }>, fromHex: string): Promise<AcceptOutcome>;
  /** Settles our request the reply answers; false if none (rpc.ts `resolve`). */
  resolve(fromHex: string, reply: Reply): boolean;
  /** A SIGNAL (overlay-signaling.ts). */
  signal(blob: SignalBlob, from: Origin): void;
  /** An application payload (the 'message' event). */
  data(from: NodeId, body: Uint8Array): void;
}

/** Routed requests remembered (by asker and question) to tell a repeat (see `handle`). */
const ASKS_KEPT = 512;

export class RpcHandlers {
  private running = false;
  /** When each recent routed question was last asked, oldest first. */
  private readonly asks = new Map<string, number>();

  constructor(private readonly deps: RpcHandlerDeps) {}

  /**
   * Whether a routed request repeats one the same node asked within the RPC timeout: our
   * answer to it was likely lost (lookup.ts retries a query that went unanswered), perhaps
   * on the reverse path, which crosses every forwarder the request crossed. Such an answer
   * (or, with 'always', every answer to a routed request) also goes by plain routing, a
   * route of its own; the asker takes whichever comes first (the other is an unexpected
   * reply there). So does, from the first ask, our answer to a FIND_NODE for our own id:
   * the one answer that lookup is for (the target answering is what finds it), one extra
   * routed message per lookup.
   */
  private secondRoute(msg: DhtMessage, from: Origin, now: number): boolean {
    const mode = this.deps.opts.secondReplyRoute;
    if (mode === 'never' || from.via.length < 2) return false;
    if (mode === 'always' || (msg.t === 'FIND_NODE' && idEquals(msg.target, this.deps.table.selfId))) return true;
    const what = msg.t === 'FIND_NODE' ? idToHex(msg.target) : msg.t === 'FIND_VALUE' || msg.t === 'STORE' ? `${msg.ns}:${idToHex(msg.key)}` : '';
    const key = `${from.hex}:${msg.t}:${what}`;
    const last = this.asks.get(key);
    this.asks.delete(key);
    this.asks.set(key, now);
    if (this.asks.size > ASKS_KEPT) this.asks.delete(this.asks.keys().next().value!);
    return last !== undefined && now - last < this.deps.opts.rpcTimeoutMs;
  }

  start(): void {
    this.running = true;
  }

  /** Messages are ignored from now on (requests go unanswered). */
  stop(): void {
    this.running = false;
  }

  /**
   * Handles one message. False when it was dropped here, counted (an unexpected reply, a
   * routed CLOSING) or we are stopped: such a frame must change nothing else either
   * (dht-node.ts reads a sender's read-only flag only from frames that were not). A STORE's
   * refusal comes after its rule check: true here whatever the outcome.
   */
  handle(msg: DhtMessage, from: Origin): boolean {
    if (!this.running) return false;
    const { deps } = this;
    const now = deps.clock.now();
    const twice = msg.t === 'PING' || msg.t === 'FIND_NODE' || msg.t === 'FIND_VALUE' || msg.t === 'STORE' ? this.secondRoute(msg, from, now) : false;
    const reply = (m: DhtMessage) => {
      deps.send(from.id, from.hex, m, from.via);
      if (twice) deps.send(from.id, from.hex, m, []);
    };
    switch (msg.t) {
      case 'PING':
        reply({ t: 'PONG', r: msg.r });
        return true;
      case 'FIND_NODE':
        reply({ t: 'NODES', r: msg.r, nodes: deps.table.closest(msg.target, deps.opts.k, from.hex).map((c) => c.id) });
        return true;
      case 'FIND_VALUE': {
        // A holder names the closest nodes too: the reader goes on to other holders.
        const held = deps.store.get(msg.ns, idToHex(msg.key), now);
        const nodes = deps.table.closest(msg.key, deps.opts.k, from.hex).map((c) => c.id);
        if (held) reply({ t: 'VALUE', r: msg.r, rec: ValueStore.toRecord(held, now), nodes });
        else reply({ t: 'VALUE', r: msg.r, nodes });
        return true;
      }
      case 'STORE':
        // A read-only node holds nobody's values (a STORE reaches it only from a node that
        // had not yet heard it is read-only).
        if (deps.opts.readOnly) {
          deps.stats.storesRejected++;
          deps.stats.storeRefused.readOnly++;
          reply({ t: 'STORED', r: msg.r, ok: false });
          return false;
        }
        // The rule may be async (signatures): the answer follows the check. Never throws.
        void deps
          .accept(msg, from.hex)
          .catch((): StoreRefusal => 'invalid')
          .then((outcome) => {
            const ok = outcome === 'stored' || outcome === 'refreshed';
            if (ok) deps.stats.storesAccepted++;
            else {
              deps.stats.storesRejected++;
              deps.stats.storeRefused[outcome]++;
            }
            reply({ t: 'STORED', r: msg.r, ok });
          });
        return true;
      case 'PONG':
      case 'NODES':
      case 'VALUE':
      case 'STORED':
        if (deps.resolve(from.hex, msg)) return true;
        deps.stats.dropped.unexpected++;
        return false;
      case 'SIGNAL':
        deps.signal(msg.blob, from);
        return true;
      case 'DATA':
        deps.data(from.id, msg.body);
        return true;
      case 'CLOSING':
        // Only meaningful on a link (LinkSet consumes it there); routed, it is a forgery.
        deps.stats.dropped.unexpected++;
        return false;
    }
  }
}
