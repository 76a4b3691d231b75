// Wires one peer: identity -> WebRTC transport -> relay bootstrap -> DHT node. DOM-free
// (WebSocket and the clock are injectable), so the same wiring runs in a tab and in Node.
// The relay is a doorway: a tab dials its first peers through it and stays registered
// so newcomers can find it; every later link is signaled over the overlay.
import { realClock, type Clock } from '../core/clock';
import type { Identity } from '../core/identity';
import { idToHex, type NodeId } from '../core/node-id';
import { AppChannels } from '../dht/app-channels';
import { createDhtNode, type DhtNode, type DhtOptions } from '../dht/dht-node';
import { feedSignals, type Bootstrap } from '../net/bootstrap';
import { connectRelay, type WebSocketCtor } from '../net/relay-bootstrap';
import { WebRtcTransport } from '../net/webrtc-transport';

export const PEER_DEFAULTS = {
  /** Peers asked of the relay when there is no invite. */
  bootstrapPeers: 4,
};

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

export type PeerStatus = 'starting' | 'alone' | 'online' | 'failed';

export class Peer {
  status: PeerStatus = 'starting';
  /** Application protocols over the DHT's messages (diag, host, player). */
  channels!: AppChannels;
  lastError: Error | undefined;

  private constructor(
    readonly identity: Identity,
    readonly transport: WebRtcTransport,
    readonly dht: DhtNode,
    private relay: Bootstrap | null,
  ) {}

  get id(): string {
    return idToHex(this.identity.id);
  }

  static async start(cfg: PeerConfig): Promise<Peer> {
    const clock = cfg.clock ?? realClock;
    const transport = new WebRtcTransport({ identity: cfg.identity, iceServers: cfg.iceServers ?? [], clock });
    let relay: Bootstrap | null = null;
    let lastError: Error | undefined;
    if (cfg.relayUrl) {
      try {
        relay = await connectRelay({ url: cfg.relayUrl, selfId: cfg.identity.id, WebSocket: cfg.WebSocket });
        feedSignals(relay, transport);
        globalThis.performance?.mark?.('vp:relay');
      } catch (err) {
        lastError = err as Error; // no relay: still usable through an invite, or alone
      }
    }
    const invited = cfg.invitePeers ?? [];
    const peers = invited.length ? invited : ((await relay?.randomPeers(PEER_DEFAULTS.bootstrapPeers)) ?? []);
    const signals = relay ?? { sendSignal() {} };
    const dht = createDhtNode({ selfId: cfg.identity.id, transport, clock, bootstrap: { peers, signals }, options: cfg.dht });
    const peer = new Peer(cfg.identity, transport, dht, relay);
    peer.lastError = lastError;
    globalThis.performance?.mark?.('vp:peers-listed');
    try {
      await dht.start();
      globalThis.performance?.mark?.('vp:dht-started');
      peer.status = dht.linkInfo().length > 0 ? 'online' : 'alone';
    } catch (err) {
      // Nobody reachable (every listed peer gone): start alone; newcomers will dial us.
      peer.lastError = err as Error;
      const alone = createDhtNode({ selfId: cfg.identity.id, transport, clock, options: cfg.dht });
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

  stop(): void {
    this.dht.stop();
    this.relay?.close();
    this.relay = null;
    this.transport.close();
  }
}
