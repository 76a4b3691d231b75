// The stateless signaling relay: the doorway for a tab that has no link yet. It keeps
// nothing but the live sockets (id -> socket): no disk, no history, no accounts. Every
// frame is size-capped, rate-limited (token bucket per socket) and schema-checked;
// bad input gets an error frame, a socket that keeps misbehaving is closed, and no
// input can throw out of a handler.
//
// Ids are not authenticated here: a socket could claim someone else's id, but it cannot
// finish a WebRTC link under it (the link handshake checks the key behind the id); the
// first live claimant keeps an id ("id-taken" for later ones).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import * as v from 'valibot';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { TokenBucket } from '../src/core/token-bucket';
import { ClientMessageSchema, MAX_PEERS, type RelayErrorCode, type RelayMessage } from '../src/net/relay-protocol';

export const RELAY_DEFAULTS = {
  /** Largest client frame in bytes (an SDP offer is 1-6 KiB). */
  maxMessageBytes: 16 * 1024,
  /** Token bucket: burst size and refill per second, per socket. */
  burst: 40,
  ratePerSecond: 20,
  maxSockets: 2000,
  /** Errors (bad frames, limit breaks) before the relay closes the socket. */
  maxStrikes: 10,
  /** Unregistered sockets are closed after this. */
  registerTimeoutMs: 10_000,
  /** WebSocket ping interval; a socket that missed a whole interval is dropped. */
  heartbeatMs: 30_000,
  /** Answer to "peers" when n is not given. */
  defaultPeers: 8,
};

export type RelayOptions = Partial<typeof RELAY_DEFAULTS> & { now?: () => number };

export interface RelayStats {
  sockets: number;
  registered: number;
  accepted: number;
  rejectedFull: number;
  messagesIn: number;
  bytesIn: number;
  signalsRelayed: number;
  peersAnswered: number;
  errorsSent: number;
  closedForAbuse: number;
  errors: Partial<Record<RelayErrorCode, number>>;
}

interface Client {
  ws: WebSocket;
  id?: string;
  bucket: TokenBucket;
  strikes: number;
  alive: boolean;
  registerTimer?: ReturnType<typeof setTimeout>;
}

export interface Relay {
  readonly stats: RelayStats;
  /** Hands an HTTP upgrade request (already matched to the relay's path) to the relay. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
}

export function createRelay(options: RelayOptions = {}): Relay {
  const o = { ...RELAY_DEFAULTS, ...options };
  const now = options.now ?? (() => Date.now());
  // maxPayload above our cap so that a moderately oversized frame gets a polite error;
  // far beyond it, ws closes the socket itself (1009).
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxMessageBytes * 4, clientTracking: false });
  const clients = new Set<Client>();
  const byId = new Map<string, Client>();
  const stats: RelayStats = {
    sockets: 0, registered: 0, accepted: 0, rejectedFull: 0, messagesIn: 0, bytesIn: 0,
    signalsRelayed: 0, peersAnswered: 0, errorsSent: 0, closedForAbuse: 0, errors: {},
  };

  const send = (c: Client, msg: RelayMessage) => {
    if (c.ws.readyState === c.ws.OPEN) c.ws.send(JSON.stringify(msg));
  };

  const fail = (c: Client, code: RelayErrorCode, message: string, extra: { to?: string; strike?: boolean } = {}) => {
    stats.errorsSent++;
    stats.errors[code] = (stats.errors[code] ?? 0) + 1;
    send(c, { type: 'error', code, message, ...(extra.to ? { to: extra.to } : {}) });
    if (extra.strike !== false && ++c.strikes >= o.maxStrikes) {
      stats.closedForAbuse++;
      c.ws.close(1008, 'too many errors');
    }
  };

  const takeToken = (c: Client): boolean => c.bucket.take(1, now());

  const randomPeers = (self: string | undefined, n: number): string[] => {
    const ids = [...byId.keys()].filter((id) => id !== self);
    const k = Math.min(n, ids.length);
    for (let i = 0; i < k; i++) {
      const j = i + Math.floor(Math.random() * (ids.length - i));
      [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    }
    return ids.slice(0, k);
  };

  const onMessage = (c: Client, data: RawData, isBinary: boolean) => {
    const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
    stats.messagesIn++;
    stats.bytesIn += size;
    if (!takeToken(c)) return fail(c, 'rate-limited', 'slow down');
    if (size > o.maxMessageBytes) return fail(c, 'too-large', `frame over ${o.maxMessageBytes} bytes`);
    if (isBinary) return fail(c, 'bad-json', 'text frames only');
    let json: unknown;
    try {
      json = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'));
    } catch {
      return fail(c, 'bad-json', 'not JSON');
    }
    const parsed = v.safeParse(ClientMessageSchema, json);
    if (!parsed.success) return fail(c, 'bad-message', parsed.issues[0]?.message.slice(0, 200) ?? 'invalid');
    const msg = parsed.output;
    switch (msg.type) {
      case 'register': {
        if (c.id !== undefined) return fail(c, 'already-registered', 'one id per socket');
        if (byId.has(msg.id)) return fail(c, 'id-taken', 'id in use by a live socket');
        c.id = msg.id;
        byId.set(msg.id, c);
        stats.registered = byId.size;
        clearTimeout(c.registerTimer);
        return send(c, { type: 'registered', id: msg.id });
      }
      case 'signal': {
        if (c.id === undefined) return fail(c, 'not-registered', 'register first');
        const target = byId.get(msg.to);
        // Not a strike: peers vanish all the time, the sender cannot know.
        if (!target) return fail(c, 'unknown-peer', 'no live socket with that id', { to: msg.to, strike: false });
        stats.signalsRelayed++;
        return send(target, { type: 'signal', from: c.id, blob: msg.blob });
      }
      case 'peers':
        stats.peersAnswered++;
        return send(c, { type: 'peers', ids: randomPeers(c.id, Math.min(msg.n ?? o.defaultPeers, MAX_PEERS)) });
    }
  };

  const onConnection = (ws: WebSocket) => {
    const c: Client = { ws, bucket: new TokenBucket(o.ratePerSecond, o.burst, now()), strikes: 0, alive: true };
    clients.add(c);
    stats.sockets = clients.size;
    stats.accepted++;
    c.registerTimer = setTimeout(() => {
      if (c.id === undefined) ws.close(1008, 'register first');
    }, o.registerTimeoutMs);
    ws.on('message', (data, isBinary) => {
      try {
        onMessage(c, data, isBinary);
      } catch {
        // A bug here must not take the relay down; the socket goes, the process stays.
        ws.terminate();
      }
    });
    ws.on('pong', () => (c.alive = true));
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      clearTimeout(c.registerTimer);
      clients.delete(c);
      if (c.id !== undefined && byId.get(c.id) === c) byId.delete(c.id);
      stats.sockets = clients.size;
      stats.registered = byId.size;
    });
  };

  const heartbeat = setInterval(() => {
    for (const c of clients) {
      if (!c.alive) {
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      try {
        c.ws.ping();
      } catch {
        c.ws.terminate();
      }
    }
  }, o.heartbeatMs);
  heartbeat.unref?.();

  return {
    stats,
    handleUpgrade(req, socket, head) {
      socket.on('error', () => socket.destroy());
      if (clients.size >= o.maxSockets) {
        // Accept just to say why (a browser WebSocket cannot read an HTTP 503), then close.
        stats.rejectedFull++;
        wss.handleUpgrade(req, socket, head, (ws) => {
          ws.on('error', () => ws.terminate());
          ws.send(JSON.stringify({ type: 'error', code: 'full', message: 'relay full, try later' } satisfies RelayMessage));
          ws.close(1013, 'relay full');
        });
        return;
      }
      wss.handleUpgrade(req, socket, head, onConnection);
    },
    close() {
      clearInterval(heartbeat);
      for (const c of clients) c.ws.terminate();
      return new Promise((resolve) => wss.close(() => resolve()));
    },
  };
}
