// The stateless signaling relay: the doorway for a tab that has no link yet. It keeps
// nothing but the live sockets (id -> socket): no disk, no history, no accounts. The rules
// (id proof, caps, what each frame does) are relay-core.ts; this file is the WebSocket
// plumbing: upgrades, the per-address socket cap at the door, heartbeats.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { RELAY_DEFAULTS, RelayCore, type RelayClient, type RelaySocket, type RelayStats } from './relay-core';
import { makeIceGrant, type TurnConfig } from './turn-credentials';

export { RELAY_DEFAULTS, type RelayStats } from './relay-core';

export type RelayOptions = Partial<typeof RELAY_DEFAULTS> & {
  now?: () => number;
  /**
   * Take the client's address from the first X-Forwarded-For entry (behind a reverse proxy
   * you run; anyone can write that header, so never without one). Default false: the TCP peer.
   */
  trustProxy?: boolean;
  /** STUN/TURN servers handed to each registered id, TURN with credentials minted from coturn's secret. */
  turn?: TurnConfig;
};

export interface Relay {
  readonly stats: RelayStats;
  /** Hands an HTTP upgrade request (already matched to the relay's path) to the relay. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
}

function addressOf(req: IncomingMessage, trustProxy: boolean): string {
  const fwd = trustProxy ? String(req.headers['x-forwarded-for'] ?? '').split(',')[0]?.trim() : '';
  return fwd || req.socket.remoteAddress || 'unknown';
}

function asRelaySocket(ws: WebSocket): RelaySocket {
  return {
    get open() {
      return ws.readyState === ws.OPEN;
    },
    send: (text) => ws.send(text),
    close: (code, reason) => ws.close(code, reason),
  };
}

export function createRelay(options: RelayOptions = {}): Relay {
  const o = { ...RELAY_DEFAULTS, ...options };
  const turn = options.turn;
  // Credentials expire by wall-clock time (coturn compares unix seconds), whatever `now` drives the buckets.
  const core = new RelayCore(o, options.now, turn ? (id) => makeIceGrant(turn, id, Date.now()) : undefined);
  // maxPayload above our cap so that a moderately oversized frame gets a polite error;
  // far beyond it, ws closes the socket itself (1009).
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxMessageBytes * 4, clientTracking: false });
  const sockets = new Map<RelayClient, WebSocket>();

  const onConnection = (ws: WebSocket, address: string) => {
    const c = core.connect(asRelaySocket(ws), address);
    sockets.set(c, ws);
    const registerTimer = setTimeout(() => {
      if (c.id === undefined) ws.close(1008, 'register first');
    }, o.registerTimeoutMs);
    ws.on('message', (data: RawData, isBinary) => {
      const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
      const text = isBinary ? undefined : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8');
      try {
        // A bug here must not take the relay down; the socket goes, the process stays.
        const done = core.message(c, text, size);
        if (done) done.catch(() => ws.terminate());
      } catch {
        ws.terminate();
      }
    });
    ws.on('pong', () => (c.alive = true));
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      clearTimeout(registerTimer);
      sockets.delete(c);
      core.disconnect(c);
    });
  };

  const heartbeat = setInterval(() => {
    for (const [c, ws] of sockets) {
      if (!c.alive) {
        ws.terminate();
        continue;
      }
      c.alive = false;
      try {
        ws.ping();
      } catch {
        ws.terminate();
      }
    }
  }, o.heartbeatMs);
  heartbeat.unref?.();

  return {
    stats: core.stats,
    handleUpgrade(req, socket, head) {
      socket.on('error', () => socket.destroy());
      const address = addressOf(req, options.trustProxy ?? false);
      const refusal = core.admits(address);
      if (refusal) {
        wss.handleUpgrade(req, socket, head, (ws) => {
          ws.on('error', () => ws.terminate());
          core.refuse(asRelaySocket(ws), refusal);
        });
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, address));
    },
    close() {
      clearInterval(heartbeat);
      for (const ws of sockets.values()) ws.terminate();
      return new Promise((resolve) => wss.close(() => resolve()));
    },
  };
}
