// Wires one peer: identity -> WebRTC transport -> relay bootstrap -> DHT node. DOM-free
// (WebSocket and the clock are injectable), so the same wiring runs in a tab and in Node.
// The relay is a doorway: a tab dials its first peers through it and stays registered
// so newcomers can find it; every later link is signaled over the overlay. A dropped relay
// connection (the relay restarted, a network change) is re-opened with backoff, so the
// tab stays findable and the DHT can still reach dropped contacts through it.
// Nobody is left alone for long: an invite whose inviter the relay does not know (the
// inviter left) falls back at once to the relay's live peers, and a peer with no link keeps
// asking the relay for peers with backoff (peer-finder.ts) until it joins someone.
import { realClock, type Clock } from '../core/clock';
import type { Identity } from '../core/identity';
import { idToHex, type NodeId } from '../core/node-id';
import { AppChannels } from '../dht/app-channels';
import { createDhtNode, type DhtNode, type DhtOptions } from '../dht/dht-node';
import { feedSignals, type Bootstrap } from '../net/bootstrap';
import { connectRelay, type WebSocketCtor } from '../net/relay-bootstrap';
import type { SignalBlob, SignalChannel } from '../net/transport';
import { WebRtcTransport } from '../net/webrtc-transport';
import { PeerFinder } from './peer-finder';
import { recordRules } from './record-rules';

export const PEER_DEFAULTS = {
  /** Peers asked of the relay when there is no invite (or its peers are gone), and by each search of a lone peer. */
  bootstrapPeers: 4,
  /** First wait before re-opening a dropped relay connection; doubles up to the max. */
  relayRetryMs: 1000,
  relayRetryMaxMs: 30_000,
  /** A relay connection must stay up this long before the retry wait starts over (one that drops at once backs off). */
  relayStableMs: 10_000,
};

/**
 * The relay behind one stable SignalChannel: the DHT keeps this object for its relay
 * dials (dropped contacts, partition healing) while the connection underneath is replaced.
 */
class RelaySlot implements SignalChannel {
  current: Bootstrap | null = null;
  sendSignal(to: NodeId, blob: SignalBlob): void {
    this.current?.sendSignal(to, blob);
  }
}

export interface PeerConfig {
  identity: Identity;
  /** ws:// URL of the relay; null: no relay (invite peers only, or alone). */
  relayUrl: string | null;
  /** Node ids to dial first (an invite's inviter). */
  invitePeers?: NodeId[];
  iceServers?: RTCIceServer[];
  clock?: Clock;
  dht?: Partial<DhtOptions>;
  WebSocket?: WebSocketCtor;
}

/**
 * A tab signs every routed message it originates with its identity and accepts only
 * signed ones whose key hashes to the claimed source (src/dht/route-auth.ts): a forwarder
 * cannot speak for another node (say, a region host). Direct links are proven by the
 * link handshake already.
 */
function dhtOptions(cfg: PeerConfig): Partial<DhtOptions> {
  return { requireSignedRoutes: true, ...cfg.dht, records: recordRules(cfg.dht?.records) };
}

export type PeerStatus = 'starting' | 'alone' | 'online' | 'failed';

export class Peer {
  status: PeerStatus = 'starting';
  /** Application protocols over the DHT's messages (diag, host, player). */
  channels!: AppChannels;
  lastError: Error | undefined;

  /** Times the relay connection was re-opened after a drop. */
  relayReconnects = 0;
  /** Looks for peers while this one has no link. */
  readonly finder: PeerFinder;
  private stopped = false;
  private retryTimer: unknown;
  private retryMs = PEER_DEFAULTS.relayRetryMs;

  private constructor(
    readonly identity: Identity,
    readonly transport: WebRtcTransport,
    readonly dht: DhtNode,
    private readonly slot: RelaySlot,
    private readonly cfg: PeerConfig,
    private readonly clock: Clock,
  ) {
    this.finder = new PeerFinder({ clock, lonely: () => !this.stopped && this.dht.linkInfo().length === 0, search: () => this.search() });
  }

  private get relay(): Bootstrap | null {
    return this.slot.current;
  }

  /** Uses a (re)opened relay connection, and re-opens it whenever it drops. */
  private useRelay(relay: Bootstrap, unfeed = feedSignals(relay, this.transport)): void {
    this.slot.current = relay;
    const opened = this.clock.now();
    relay.events.on('close', () => {
      unfeed();
      if (this.slot.current === relay) this.slot.current = null;
      if (this.clock.now() - opened >= PEER_DEFAULTS.relayStableMs) this.retryMs = PEER_DEFAULTS.relayRetryMs;
      else this.retryMs = Math.min(PEER_DEFAULTS.relayRetryMaxMs, this.retryMs * 2);
      this.retryRelay();
    });
  }

  private retryRelay(): void {
    if (this.stopped || !this.cfg.relayUrl) return;
    this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = this.clock.setTimeout(() => {
      connectRelay({ url: this.cfg.relayUrl!, selfId: this.identity.id, WebSocket: this.cfg.WebSocket }).then(
        (relay) => {
          if (this.stopped) return relay.close();
          this.relayReconnects++;
          this.useRelay(relay);
          this.finder.poke(); // alone, the relay is where peers are found
        },
        (err: Error) => {
          this.lastError = err;
          this.retryMs = Math.min(PEER_DEFAULTS.relayRetryMaxMs, this.retryMs * 2);
          this.retryRelay();
        },
      );
    }, this.retryMs * (0.75 + Math.random() * 0.5));
  }

  get id(): string {
    return idToHex(this.identity.id);
  }

  static async start(cfg: PeerConfig): Promise<Peer> {
    const clock = cfg.clock ?? realClock;
    const transport = new WebRtcTransport({ identity: cfg.identity, iceServers: cfg.iceServers ?? [], clock });
    let relay: Bootstrap | null = null;
    let unfeed: (() => void) | undefined;
    let lastError: Error | undefined;
    if (cfg.relayUrl) {
      try {
        relay = await connectRelay({ url: cfg.relayUrl, selfId: cfg.identity.id, WebSocket: cfg.WebSocket });
        unfeed = feedSignals(relay, transport); // at once: a newcomer may dial us while we list peers
        globalThis.performance?.mark?.('vp:relay');
      } catch (err) {
        lastError = err as Error; // no relay: still usable through an invite, or alone
      }
    }
    const slot = new RelaySlot();
    const node = (peers: NodeId[]) => createDhtNode({ selfId: cfg.identity.id, signer: cfg.identity, transport, clock, bootstrap: { peers, signals: slot }, options: dhtOptions(cfg) });
    const fromRelay = async () => (await relay?.randomPeers(PEER_DEFAULTS.bootstrapPeers)) ?? [];
    const invited = cfg.invitePeers ?? [];
    const first = invited.length ? invited : await fromRelay();
    const peer = new Peer(cfg.identity, transport, node(first), slot, cfg, clock);
    if (relay) peer.useRelay(relay, unfeed);
    else peer.retryRelay();
    peer.lastError = lastError;
    globalThis.performance?.mark?.('vp:peers-listed');
    let joined = await peer.join(first);
    if (!joined && invited.length && relay) {
      // The inviter is gone (or unreachable): the relay's live peers instead, at once.
      const listed = await fromRelay();
      if (listed.length) {
        (peer as { dht: DhtNode }).dht = node(listed);
        joined = await peer.join(listed);
      }
    }
    if (joined) {
      globalThis.performance?.mark?.('vp:dht-started');
      peer.status = peer.dht.linkInfo().length > 0 ? 'online' : 'alone';
    } else {
      // Nobody reachable: start alone; newcomers will dial us, and we keep looking.
      const alone = node([]);
      await alone.start();
      (peer as { dht: DhtNode }).dht = alone;
      peer.status = 'alone';
    }
    peer.channels = new AppChannels(peer.dht);
    peer.dht.events.on('link-open', () => {
      if (peer.status === 'alone') {
        // Out of being alone (a search or a newcomer linked us): look ourselves up, as a
        // join does, so the table fills from the new peer's view of the world.
        void peer.dht.findNode(peer.dht.selfId).catch(() => {});
      }
      peer.status = 'online';
    });
    peer.dht.events.on('link-close', () => {
      if (peer.dht.linkInfo().length > 0) return;
      peer.status = 'alone';
      peer.finder.poke();
    });
    if (peer.status === 'alone') peer.finder.poke();
    return peer;
  }

  /**
   * Starts the DHT node made for `peers`. False if none of them could be reached: a failed
   * join, or, without waiting for the dials to time out, the relay saying it knows none
   * of them (they left).
   */
  private async join(peers: NodeId[]): Promise<boolean> {
    if (peers.length === 0) return false;
    const dht = this.dht;
    const relay = this.relay;
    let offUnknown = () => {};
    const unknown = new Promise<'gone'>((resolve) => {
      if (!relay) return;
      const left = new Set(peers.map(idToHex));
      offUnknown = relay.events.on('undeliverable', ({ to }) => {
        left.delete(idToHex(to));
        if (left.size === 0) resolve('gone');
      });
    });
    const started = dht.start().then(() => 'joined' as const);
    try {
      if ((await Promise.race([started, unknown])) === 'joined') return true;
      started.catch(() => {}); // it fails later, once its dials time out
      dht.stop();
      this.lastError = new Error('no bootstrap peer is known to the relay');
      return false;
    } catch (err) {
      this.lastError = err as Error;
      return false;
    } finally {
      offUnknown();
    }
  }

  /**
   * One search of a lone peer: the relay's live peers become contacts, which the DHT dials
   * through the relay (as it does its known contacts while it has no link).
   */
  private async search(): Promise<void> {
    const relay = this.relay;
    if (!relay) throw new Error('no relay to ask for peers');
    for (const id of await relay.randomPeers(PEER_DEFAULTS.bootstrapPeers)) this.dht.addContact(id);
  }

  /** Node ids of the relay's live sockets (diagnostics; [] without a relay). */
  async relayPeers(n = 8): Promise<string[]> {
    return ((await this.relay?.randomPeers(n)) ?? []).map(idToHex);
  }

  /** Whether the relay connection is open now. */
  get relayOnline(): boolean {
    return this.relay !== null;
  }

  stop(): void {
    this.stopped = true;
    this.finder.stop();
    this.clock.clearTimeout(this.retryTimer);
    this.dht.stop();
    const relay = this.slot.current;
    this.slot.current = null;
    relay?.close();
    this.transport.close();
  }
}
