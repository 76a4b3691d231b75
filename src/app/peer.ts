// Wires one peer: identity -> WebRTC transport -> relay bootstrap -> DHT node. DOM-free
// (WebSocket and the clock are injectable), so the same wiring runs in a tab and in Node.
// The relay is a doorway: a tab dials its first peers through it and stays registered
// so newcomers can find it; every later link is signaled over the overlay. A dropped relay
// connection (the relay restarted, a network change) is re-opened with backoff, so the
// tab stays findable and the DHT can still reach dropped contacts through it.
import { realClock, type Clock } from '../core/clock';
import type { Identity } from '../core/identity';
import { idToHex, type NodeId } from '../core/node-id';
import { AppChannels } from '../dht/app-channels';
import { createDhtNode, type DhtNode, type DhtOptions } from '../dht/dht-node';
import { feedSignals, type Bootstrap } from '../net/bootstrap';
import { connectRelay, type WebSocketCtor } from '../net/relay-bootstrap';
import type { SignalBlob, SignalChannel } from '../net/transport';
import { WebRtcTransport } from '../net/webrtc-transport';
import { recordRules } from './record-rules';

export const PEER_DEFAULTS = {
  /** Peers asked of the relay when there is no invite. */
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
  ) {}

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
    const invited = cfg.invitePeers ?? [];
    const peers = invited.length ? invited : ((await relay?.randomPeers(PEER_DEFAULTS.bootstrapPeers)) ?? []);
    const slot = new RelaySlot();
    const dht = createDhtNode({ selfId: cfg.identity.id, signer: cfg.identity, transport, clock, bootstrap: { peers, signals: slot }, options: dhtOptions(cfg) });
    const peer = new Peer(cfg.identity, transport, dht, slot, cfg, clock);
    if (relay) peer.useRelay(relay, unfeed);
    else peer.retryRelay();
    peer.lastError = lastError;
    globalThis.performance?.mark?.('vp:peers-listed');
    try {
      await dht.start();
      globalThis.performance?.mark?.('vp:dht-started');
      peer.status = dht.linkInfo().length > 0 ? 'online' : 'alone';
    } catch (err) {
      // Nobody reachable (every listed peer gone): start alone; newcomers will dial us.
      peer.lastError = err as Error;
      const alone = createDhtNode({ selfId: cfg.identity.id, signer: cfg.identity, transport, clock, bootstrap: { peers: [], signals: slot }, options: dhtOptions(cfg) });
      await alone.start();
      (peer as { dht: DhtNode }).dht = alone;
      peer.status = 'alone';
    }
    peer.channels = new AppChannels(peer.dht);
    peer.dht.events.on('link-open', () => { peer.status = 'online'; });
    peer.dht.events.on('link-close', () => { if (peer.dht.linkInfo().length === 0) peer.status = 'alone'; });
    return peer;
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
    this.clock.clearTimeout(this.retryTimer);
    this.dht.stop();
    const relay = this.slot.current;
    this.slot.current = null;
    relay?.close();
    this.transport.close();
  }
}
