// The relay's rules, apart from the WebSocket plumbing (relay.ts): who may register which
// id, who may send how much, what each frame does. Pure but for WebCrypto (the id proof),
// so tests and the fuzzer drive it directly with stand-in sockets.
//
// An id is proven, never asserted: every socket gets a fresh challenge nonce and registers
// by signing it with the node key its id is derived from (relay-protocol.ts, core/key-ids.ts). So nobody can squat
// another's id, and a proven owner whose old socket still looks alive (a tab that crashed
// and reloaded before the heartbeat noticed) takes the id back at once: the old socket is
// closed. Every frame is size-capped, rate-limited per socket and per address, and
// schema-checked; bad input gets an error frame, a socket that keeps misbehaving is
// closed, and no input can throw out of a handler.
//
// Worlds are kept apart: a socket registers into its network's room (the network id,
// net/network-id.ts, a hash of its world's name and seed, so the relay never learns either),
// and 'peers' and 'signal' reach only its own room. A newcomer's first contacts are thus of
// its own world, and one relay serves any number of worlds. A room exists only while a
// registered socket is in it, so rooms are bounded by maxSockets as sockets are. A client
// that names no network (one from before rooms) is in the unnamed network's room, with its
// like: it still meets old clients of every world there, as before, but never a new one,
// whose handshake would refuse it anyway (net/link-handshake.ts).
import * as v from 'valibot';
import { verifySignature } from '../src/core/identity';
import { publicKeyMatchesId } from '../src/core/key-ids';
import { hexToId } from '../src/core/node-id';
import { TokenBucket } from '../src/core/token-bucket';
import { fromB64, toB64 } from '../src/core/base64';
import { CHALLENGE_BYTES, ClientMessageSchema, MAX_PEERS, registerProof, UNNAMED_NETWORK, type IceGrant, type RelayErrorCode, type RelayMessage } from '../src/net/relay-protocol';

export const RELAY_DEFAULTS = {
  /** Largest client frame in bytes (an SDP offer is 1-6 KiB). */
  maxMessageBytes: 16 * 1024,
  /** Token bucket: burst size and refill per second, per socket. */
  burst: 40,
  ratePerSecond: 20,
  /** Token bucket over all sockets of one address (tabs behind one NAT share it). */
  addressBurst: 200,
  addressRatePerSecond: 100,
  maxSockets: 2000,
  /** Sockets from one address at once (a household or a classroom behind one NAT). */
  maxSocketsPerAddress: 32,
  /** Errors (bad frames, limit breaks) before the relay closes the socket. */
  maxStrikes: 10,
  /** Unregistered sockets are closed after this. */
  registerTimeoutMs: 10_000,
  /** WebSocket ping interval; a socket that missed a whole interval is dropped. */
  heartbeatMs: 30_000,
  /** Answer to "peers" when n is not given. */
  defaultPeers: 8,
};

export type RelayConfig = typeof RELAY_DEFAULTS;

/** What the core needs of a socket. */
export interface RelaySocket {
  readonly open: boolean;
  send(text: string): void;
  close(code: number, reason: string): void;
}

export interface RelayStats {
  sockets: number;
  registered: number;
  accepted: number;
  rejectedFull: number;
  /** Sockets refused because their address holds maxSocketsPerAddress already. */
  rejectedAddressFull: number;
  messagesIn: number;
  bytesIn: number;
  signalsRelayed: number;
  peersAnswered: number;
  /** Keepalive pings answered (each client's every few seconds of silence: relay-bootstrap.ts). */
  pingsAnswered: number;
  /** ICE grants sent (at registration and on request), each with fresh TURN credentials. */
  iceGrants: number;
  /** Live sockets closed because their id's owner registered again on a new one. */
  replaced: number;
  /** Rooms (networks) with a registered socket now. */
  rooms: number;
  errorsSent: number;
  closedForAbuse: number;
  errors: Partial<Record<RelayErrorCode, number>>;
}

export interface RelayClient {
  readonly socket: RelaySocket;
  readonly address: string;
  readonly nonce: string;
  id?: string;
  /** Its room: the network it registered in (UNNAMED_NETWORK until it registers, or if it named none). */
  net: string;
  /** A register is being checked (signature verification is async). */
  proving: boolean;
  bucket: TokenBucket;
  strikes: number;
  alive: boolean;
}

export function newRelayStats(): RelayStats {
  return {
    sockets: 0, registered: 0, accepted: 0, rejectedFull: 0, rejectedAddressFull: 0, messagesIn: 0, bytesIn: 0,
    signalsRelayed: 0, peersAnswered: 0, pingsAnswered: 0, iceGrants: 0, replaced: 0, rooms: 0, errorsSent: 0, closedForAbuse: 0, errors: {},
  };
}

export class RelayCore {
  readonly stats = newRelayStats();
  readonly clients = new Set<RelayClient>();
  readonly byId = new Map<string, RelayClient>();
  /** Network id -> the registered ids in its room (an id is in at most one). */
  private readonly rooms = new Map<string, Set<string>>();
  private readonly perAddress = new Map<string, { sockets: number; bucket: TokenBucket }>();

  /**
   * `ice`: the ICE servers for a proven id (turn-credentials.ts makeIceGrant), sent with
   * `registered` and on a client's 'ice' request; none: the relay hands out no servers.
   */
  constructor(
    readonly o: RelayConfig,
    private readonly now: () => number = () => Date.now(),
    private readonly ice?: (id: string) => IceGrant,
  ) {}

  /** Whether a new socket from `address` may be opened (else say why with `refusal`). */
  admits(address: string): RelayErrorCode | null {
    if (this.clients.size >= this.o.maxSockets) return 'full';
    if ((this.perAddress.get(address)?.sockets ?? 0) >= this.o.maxSocketsPerAddress) return 'address-full';
    return null;
  }

  /** A refused socket is told why, then closed (a browser WebSocket cannot read an HTTP 503). */
  refuse(socket: RelaySocket, code: RelayErrorCode): void {
    if (code === 'full') this.stats.rejectedFull++;
    else this.stats.rejectedAddressFull++;
    socket.send(JSON.stringify({ type: 'error', code, message: code === 'full' ? 'relay full, try later' : 'too many sockets from your address' } satisfies RelayMessage));
    socket.close(1013, code === 'full' ? 'relay full' : 'address full');
  }

  /** A new socket: it gets its challenge. */
  connect(socket: RelaySocket, address: string): RelayClient {
    const nonce = toB64(crypto.getRandomValues(new Uint8Array(CHALLENGE_BYTES)));
    const c: RelayClient = { socket, address, nonce, net: UNNAMED_NETWORK, proving: false, bucket: new TokenBucket(this.o.ratePerSecond, this.o.burst, this.now()), strikes: 0, alive: true };
    this.clients.add(c);
    let a = this.perAddress.get(address);
    if (!a) this.perAddress.set(address, (a = { sockets: 0, bucket: new TokenBucket(this.o.addressRatePerSecond, this.o.addressBurst, this.now()) }));
    a.sockets++;
    this.stats.sockets = this.clients.size;
    this.stats.accepted++;
    this.send(c, { type: 'challenge', nonce });
    return c;
  }

  disconnect(c: RelayClient): void {
    if (!this.clients.delete(c)) return;
    if (c.id !== undefined && this.byId.get(c.id) === c) this.unregister(c);
    const a = this.perAddress.get(c.address);
    if (a && --a.sockets <= 0) this.perAddress.delete(c.address);
    this.stats.sockets = this.clients.size;
    this.stats.registered = this.byId.size;
  }

  /** One frame from a socket: `text` is undefined for a binary frame. Never throws for the frame's sake. */
  message(c: RelayClient, text: string | undefined, size: number): void | Promise<void> {
    this.stats.messagesIn++;
    this.stats.bytesIn += size;
    const now = this.now();
    if (!c.bucket.take(1, now) || !this.perAddress.get(c.address)?.bucket.take(1, now)) return this.fail(c, 'rate-limited', 'slow down');
    if (size > this.o.maxMessageBytes) return this.fail(c, 'too-large', `frame over ${this.o.maxMessageBytes} bytes`);
    if (text === undefined) return this.fail(c, 'bad-json', 'text frames only');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return this.fail(c, 'bad-json', 'not JSON');
    }
    const parsed = v.safeParse(ClientMessageSchema, json);
    if (!parsed.success) return this.fail(c, 'bad-message', parsed.issues[0]?.message.slice(0, 200) ?? 'invalid');
    const msg = parsed.output;
    switch (msg.type) {
      case 'register':
        if (c.id !== undefined || c.proving) return this.fail(c, 'already-registered', 'one id per socket');
        return this.register(c, msg);
      case 'signal': {
        if (c.id === undefined) return this.fail(c, 'not-registered', 'register first');
        const target = this.byId.get(msg.to);
        // Not a strike: peers vanish all the time, the sender cannot know. Another room's id
        // is as unknown as a gone one: nothing says which worlds are here.
        if (!target || target.net !== c.net) return this.fail(c, 'unknown-peer', 'no live socket with that id', { to: msg.to, strike: false });
        this.stats.signalsRelayed++;
        return this.send(target, { type: 'signal', from: c.id, blob: msg.blob });
      }
      case 'peers':
        this.stats.peersAnswered++;
        return this.send(c, { type: 'peers', ids: this.randomPeers(c.net, c.id, Math.min(msg.n ?? this.o.defaultPeers, MAX_PEERS)) });
      case 'ping':
        // The cheapest answer there is: a client's keepalive, sent every few seconds of silence.
        this.stats.pingsAnswered++;
        return this.send(c, { type: 'pong' });
      case 'ice':
        // Credentials only for a proven id: an anonymous socket gets no TURN relay.
        if (c.id === undefined) return this.fail(c, 'not-registered', 'register first');
        return this.send(c, { type: 'ice', ice: this.grant(c.id) ?? { iceServers: [] } });
    }
  }

  private async register(c: RelayClient, msg: Extract<v.InferOutput<typeof ClientMessageSchema>, { type: 'register' }>): Promise<void> {
    c.proving = true;
    let ok: boolean;
    try {
      const pk = fromB64(msg.pk);
      // A new key costs a scrypt: budgeted per address (core/derivation-budget.ts).
      ok = (await publicKeyMatchesId('node', pk, hexToId(msg.id), `relay:${c.address}`)) && (await verifySignature(msg.alg, pk, registerProof(c.nonce, msg.id), fromB64(msg.sig)));
    } catch {
      ok = false;
    }
    c.proving = false;
    if (!this.clients.has(c)) return; // closed while we checked
    if (!ok) return this.fail(c, 'bad-proof', 'the key does not stand for the id, or the signature over the challenge does not check');
    const stale = this.byId.get(msg.id);
    if (stale && stale !== c) {
      // The owner proved the id again on a new socket: the old one is a crashed tab's (or
      // the owner's own to replace). Either way the id's messages go to the new one now.
      this.stats.replaced++;
      this.unregister(stale);
      stale.id = undefined;
      stale.socket.close(4000, 'replaced by a newer socket of the same id');
    }
    c.id = msg.id;
    c.net = msg.net ?? UNNAMED_NETWORK;
    this.byId.set(msg.id, c);
    let room = this.rooms.get(c.net);
    if (!room) this.rooms.set(c.net, (room = new Set()));
    room.add(msg.id);
    this.stats.registered = this.byId.size;
    this.stats.rooms = this.rooms.size;
    const ice = this.grant(msg.id);
    this.send(c, { type: 'registered', id: msg.id, ...(msg.net !== undefined ? { net: msg.net } : {}), ...(ice ? { ice } : {}), ping: 1 });
  }

  /** Takes a registered client's id out of the directory and its room (an empty room goes). */
  private unregister(c: RelayClient): void {
    if (c.id === undefined) return;
    this.byId.delete(c.id);
    const room = this.rooms.get(c.net);
    room?.delete(c.id);
    if (room?.size === 0) this.rooms.delete(c.net);
    this.stats.registered = this.byId.size;
    this.stats.rooms = this.rooms.size;
  }

  private grant(id: string): IceGrant | undefined {
    if (!this.ice) return undefined;
    this.stats.iceGrants++;
    return this.ice(id);
  }

  send(c: RelayClient, msg: RelayMessage): void {
    if (c.socket.open) c.socket.send(JSON.stringify(msg));
  }

  private fail(c: RelayClient, code: RelayErrorCode, message: string, extra: { to?: string; strike?: boolean } = {}): void {
    this.stats.errorsSent++;
    this.stats.errors[code] = (this.stats.errors[code] ?? 0) + 1;
    this.send(c, { type: 'error', code, message, ...(extra.to ? { to: extra.to } : {}) });
    if (extra.strike !== false && ++c.strikes >= this.o.maxStrikes) {
      this.stats.closedForAbuse++;
      c.socket.close(1008, 'too many errors');
    }
  }

  private randomPeers(net: string, self: string | undefined, n: number): string[] {
    const ids = [...(this.rooms.get(net) ?? [])].filter((id) => id !== self);
    const k = Math.min(n, ids.length);
    for (let i = 0; i < k; i++) {
      const j = i + Math.floor(Math.random() * (ids.length - i));
      [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    }
    return ids.slice(0, k);
  }
}
