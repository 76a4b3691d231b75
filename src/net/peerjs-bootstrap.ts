// Bootstrap through a PeerJS broker (a `peer` server), for deployments with static
// hosting only. We use the PeerJS client only for its broker connection: our signal
// blobs ride on its signaling socket as OFFER messages whose payload type is
// 'vp-signal' (the PeerServer relays OFFER/ANSWER/CANDIDATE to `dst` and adds `src`;
// the PeerJS client ignores an OFFER of an unknown payload type). The WebRTC link
// itself is still made by our own transport. Listing peers needs the server's
// `allow_discovery` (GET <path><key>/peers); without it randomPeers gives [].
//
// Browser only: peerjs decides at import time whether the runtime "supports WebRTC"
// from webrtc-adapter's browser detection, which reports "Not a supported browser" in
// Node even with a RTCPeerConnection polyfill, so `new Peer()` fails there with
// `browser-incompatible`. Tested in Chromium (e2e/net-webrtc.test.ts).
import * as v from 'valibot';
import { Emitter } from '../core/emitter';
import { hexToId, idToHex, type NodeId } from '../core/node-id';
import { BootstrapError, type Bootstrap, type BootstrapEvents } from './bootstrap';
import type { SignalBlob } from './transport';

export const PEERJS_BOOTSTRAP_DEFAULTS = {
  path: '/',
  key: 'peerjs',
  connectTimeoutMs: 10_000,
};

export interface PeerJsBootstrapOptions {
  selfId: NodeId;
  host: string;
  port: number;
  /** Server mount path (the `path` given to PeerServer), default '/'. */
  path?: string;
  key?: string;
  /** Default: true when the page is https. */
  secure?: boolean;
  connectTimeoutMs?: number;
  /** The peerjs module's Peer class (default: dynamically imported, so it is its own chunk). */
  Peer?: PeerCtor;
}

interface PeerSocketLike {
  send(data: unknown): void;
  on(event: 'message', fn: (msg: unknown) => void): unknown;
}
interface PeerLike {
  readonly socket: PeerSocketLike;
  on(event: 'open', fn: (id: string) => void): unknown;
  on(event: 'error', fn: (err: { type?: string; message?: string }) => void): unknown;
  on(event: 'disconnected' | 'close', fn: () => void): unknown;
  destroy(): void;
}
export type PeerCtor = new (id: string, options: Record<string, unknown>) => PeerLike;

const Hex40 = v.pipe(v.string(), v.regex(/^[0-9a-f]{40}$/));
const IncomingSchema = v.object({
  type: v.literal('OFFER'),
  src: Hex40,
  payload: v.object({ type: v.literal('vp-signal'), blob: v.record(v.string(), v.unknown()) }),
});
const ExpireSchema = v.object({ type: v.literal('EXPIRE'), src: Hex40 });

class PeerJsBootstrap implements Bootstrap {
  readonly events = new Emitter<BootstrapEvents>();
  readonly stats = { signalsOut: 0, signalsIn: 0, badFrames: 0 };
  private closed = false;

  constructor(readonly selfId: NodeId, private readonly peer: PeerLike, private readonly peersUrl: string) {
    peer.socket.on('message', (m) => this.onMessage(m));
    peer.on('disconnected', () => this.onClose('broker connection lost'));
    peer.on('close', () => this.onClose('peer destroyed'));
  }

  sendSignal(to: NodeId, blob: SignalBlob): void {
    if (this.closed) return;
    this.stats.signalsOut++;
    this.peer.socket.send({ type: 'OFFER', dst: idToHex(to), payload: { type: 'vp-signal', connectionId: 'vp-signal', blob } });
  }

  async randomPeers(n: number): Promise<NodeId[]> {
    if (this.closed) return [];
    try {
      const res = await fetch(this.peersUrl);
      if (!res.ok) return [];
      const ids = v.safeParse(v.array(v.string()), await res.json());
      if (!ids.success) return [];
      const self = idToHex(this.selfId);
      const live = ids.output.filter((id) => /^[0-9a-f]{40}$/.test(id) && id !== self);
      for (let i = live.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [live[i], live[j]] = [live[j]!, live[i]!];
      }
      return live.slice(0, Math.max(0, n)).map(hexToId);
    } catch {
      return [];
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.peer.destroy();
    this.events.removeAll();
  }

  private onMessage(m: unknown): void {
    const t = (m as { type?: unknown } | null)?.type;
    if (t === 'OFFER') {
      const p = v.safeParse(IncomingSchema, m);
      // An OFFER of PeerJS's own kind is not ours: not an error.
      if (!p.success) {
        if ((m as { payload?: { type?: unknown } }).payload?.type === 'vp-signal') this.stats.badFrames++;
        return;
      }
      this.stats.signalsIn++;
      this.events.emit('signal', { from: hexToId(p.output.src), blob: p.output.payload.blob });
    } else if (t === 'EXPIRE') {
      // The server could not deliver our message to that id in time.
      const p = v.safeParse(ExpireSchema, m);
      if (p.success) this.events.emit('undeliverable', { to: hexToId(p.output.src) });
    }
  }

  private onClose(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.events.emit('close', { reason });
    this.events.removeAll();
    this.peer.destroy();
  }
}

/** Connects to a PeerJS broker under our node id; rejects with BootstrapError. */
export async function connectPeerJs(opts: PeerJsBootstrapOptions): Promise<Bootstrap> {
  const o = { ...PEERJS_BOOTSTRAP_DEFAULTS, ...opts };
  const Peer = opts.Peer ?? ((await import('peerjs')).Peer as unknown as PeerCtor);
  const secure = o.secure ?? (globalThis as { location?: { protocol?: string } }).location?.protocol === 'https:';
  const path = o.path.endsWith('/') ? o.path : `${o.path}/`;
  const peersUrl = `${secure ? 'https' : 'http'}://${o.host}:${o.port}${path}${o.key}/peers`;
  const selfHex = idToHex(o.selfId);
  return new Promise((resolve, reject) => {
    let settled = false;
    let peer: PeerLike;
    try {
      peer = new Peer(selfHex, {
        host: o.host, port: o.port, path, key: o.key, secure,
        // No public STUN by default; the broker is only for signaling our own transport.
        config: { iceServers: [] },
        debug: 0,
      });
    } catch (e) {
      reject(new BootstrapError(`peerjs: ${(e as Error).message}`));
      return;
    }
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      peer.destroy();
      reject(new BootstrapError('PeerJS broker did not answer in time'));
    }, o.connectTimeoutMs);
    peer.on('open', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(new PeerJsBootstrap(o.selfId, peer, peersUrl));
    });
    peer.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      peer.destroy();
      reject(new BootstrapError(`peerjs ${err.type ?? 'error'}: ${err.message ?? ''}`));
    });
  });
}
