// Bootstrap through the project's relay (signaling/relay.ts; the protocol both use is
// relay-protocol.ts). Every relay frame is schema-checked; bad ones are counted and dropped.
// Registration proves the id: the relay's challenge is signed with the identity's key.
// A relay may answer the registration with ICE servers (TURN credentials good for `ttl`
// seconds); the adapter keeps the grant and asks for a fresh one at half its lifetime, so a
// tab open for days dials with live credentials. A grant that fails its schema is dropped
// and counted; the registration stands. A relay that stays silent is probed, and a probe
// left unanswered closes the connection, so a socket that died with its network (nobody
// told) is reopened within seconds, not when TCP gives up.
import * as v from 'valibot';
import { Emitter } from '../core/emitter';
import type { Identity } from '../core/identity';
import { hexToId, idToHex, type NodeId } from '../core/node-id';
import { BootstrapError, type Bootstrap, type BootstrapEvents } from './bootstrap';
import { toB64 } from '../core/base64';
import { UNNAMED_NETWORK } from './network-id';
import { IceGrantSchema, MAX_PEERS, registerProof, RelayMessageSchema, type ClientMessage, type IceGrant } from './relay-protocol';
import type { SignalBlob } from './transport';

/** A peers request unanswered after this resolves to []. */
const REQUEST_TIMEOUT_MS = 5_000;
/** A grant is renewed after this fraction of its ttl (credentials stay good for the rest). */
const ICE_RENEW_AT = 0.5;

export const RELAY_BOOTSTRAP_DEFAULTS = {
  /** Connect + register must finish within this. */
  connectTimeoutMs: 10_000,
  /**
   * A relay heard nothing from for this long is pinged (a relay that says it answers pings;
   * an older one is asked for one peer id). A socket whose network went away (a laptop's
   * Wi-Fi off and on, a router that restarted and forgot its mappings) is not known to be
   * closed until TCP gives up, minutes later; and after a flush of the router's mappings the
   * relay's frames to us die there until we send on the socket ourselves (the relay cannot
   * find us: only our own packet maps the socket again). Until then the tab cannot be
   * signaled: a newcomer's offer to it waits or is lost. 15 s of that made a newcomer wait
   * 7-10 s for an answer, or never link (bench/lab: the UDP-blocked home's step). So the
   * socket is pinged after 4 s of silence: a flush is repaired (or the socket found dead)
   * within 4-5.3 s plus a round trip. Far below any NAT's mapping timeout (TCP: >= 2 h 4 min
   * by RFC 5382, some carrier NATs 5-10 min; UDP: >= 2 min by RFC 4787, 30 s seen), which
   * any interval under a minute outlives: the interval is set by how soon a lost mapping
   * must be noticed, not by keeping it. Its cost, about one WebRTC consent check's (every
   * link does one every ~5 s, RFC 7675): a 15-byte frame and its 15-byte answer per tab every
   * ~4.7 s of silence, ~12 us of the tab's CPU each; at the relay, 429 pings a second for its
   * 2,000 sockets took 6.4% of a core against 0.9% for the same sockets idle, ~130 us a ping
   * on a loaded machine (bench/relay-ping.ts).
   */
  keepaliveMs: 4_000,
  /** No frame from the relay this long after a probe: the connection is taken for dead and closed (the doorway reopener opens a new one). */
  probeTimeoutMs: 4_000,
};

/** The minimal WebSocket this adapter needs (the browser's, or `ws` in Node). */
export interface WebSocketLike {
  readonly readyState: number;
  binaryType?: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code?: number; reason?: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}
export type WebSocketCtor = new (url: string) => WebSocketLike;

export interface RelayBootstrapOptions {
  /** ws:// or wss:// URL of the relay, e.g. ws://127.0.0.1:8080/relay. */
  url: string;
  /** The id to register and the key it hashes from (the relay's challenge is signed with it). */
  identity: Pick<Identity, 'id' | 'alg' | 'publicKey' | 'sign'>;
  /**
   * The network (net/network-id.ts: the world) whose room to register in: the relay lists
   * and signals only that room's peers. Default: the unnamed network's room.
   */
  network?: string;
  /** Default: globalThis.WebSocket. */
  WebSocket?: WebSocketCtor;
  connectTimeoutMs?: number;
  /** RELAY_BOOTSTRAP_DEFAULTS.keepaliveMs and probeTimeoutMs (Infinity: no keepalive). */
  keepaliveMs?: number;
  probeTimeoutMs?: number;
}

/** Sends one client frame (typed, so only frames the relay's schema knows). */
function send(ws: WebSocketLike, m: ClientMessage): void {
  ws.send(JSON.stringify(m));
}

export interface RelayBootstrapStats {
  signalsOut: number;
  signalsIn: number;
  badFrames: number;
  /** badFrames by reason: not JSON, not a relay message (schema), one that has no place after registration, or an ICE grant out of bounds in `registered`. */
  badBy: { json: number; schema: number; unexpected: number; ice: number };
  errors: number;
  /** ICE grants taken (at registration and renewals). */
  iceGrants: number;
  /** Keepalive probes sent (after a silence, or asked by probe()), and connections closed for no answer to one. */
  probes: number;
  probeDeaths: number;
  /** Whether the relay said it answers pings (its probes are pings; else peers requests). */
  pings: boolean;
  /**
   * Whether the relay said it put us in our network's room. A relay from before rooms says
   * nothing and lists every world's peers: the handshake then refuses the other worlds'.
   */
  inRoom: boolean;
}

class RelayBootstrap implements Bootstrap {
  readonly events = new Emitter<BootstrapEvents>();
  readonly stats: RelayBootstrapStats = { signalsOut: 0, signalsIn: 0, badFrames: 0, badBy: { json: 0, schema: 0, unexpected: 0, ice: 0 }, errors: 0, iceGrants: 0, probes: 0, probeDeaths: 0, pings: false, inRoom: false };
  /** The relay's latest ICE grant, if it gives any. */
  ice: IceGrant | undefined;
  private readonly peerWaiters: Array<(ids: NodeId[]) => void> = [];
  private iceTimer: ReturnType<typeof setTimeout> | undefined;
  private keepTimer: ReturnType<typeof setInterval> | undefined;
  private probeTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the relay last sent us anything (performance.now()). */
  private heardAt = performance.now();
  private closed = false;

  constructor(
    readonly selfId: NodeId,
    private readonly ws: WebSocketLike,
    private readonly keepalive: { keepaliveMs: number; probeTimeoutMs: number },
  ) {}

  /** Starts the keepalive (after registration): a silent relay is probed, and closed if it stays silent. */
  keepAlive(): void {
    if (!Number.isFinite(this.keepalive.keepaliveMs)) return;
    // Checked at a third of the period: a silence is probed within 1.33x keepaliveMs.
    this.keepTimer = setInterval(() => {
      if (performance.now() - this.heardAt >= this.keepalive.keepaliveMs) this.probe();
    }, this.keepalive.keepaliveMs / 3);
    (this.keepTimer as { unref?: () => void }).unref?.();
  }

  /**
   * Asks the relay something now; no frame back within probeTimeoutMs closes the connection
   * (a `close` event, so the doorway reopener opens a new one). Called after a silence, and
   * when the page says the network is back (a socket opened before may be dead).
   */
  probe(): void {
    if (this.closed || this.probeTimer !== undefined || this.ws.readyState !== 1) return;
    const sentAt = performance.now();
    this.stats.probes++;
    if (this.stats.pings) send(this.ws, { type: 'ping' });
    else void this.randomPeers(1);
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      if (this.closed || this.heardAt >= sentAt) return;
      this.stats.probeDeaths++;
      try {
        this.ws.close(4000, 'keepalive unanswered');
      } catch {
        /* already closing */
      }
      this.onClose(`relay silent: no answer to a keepalive within ${this.keepalive.probeTimeoutMs} ms`);
    }, this.keepalive.probeTimeoutMs);
    (this.probeTimer as { unref?: () => void }).unref?.();
  }

  sendSignal(to: NodeId, blob: SignalBlob): void {
    if (this.closed || this.ws.readyState !== 1) return; // best effort (SignalChannel contract)
    this.stats.signalsOut++;
    send(this.ws, { type: 'signal', to: idToHex(to), blob });
  }

  randomPeers(n: number): Promise<NodeId[]> {
    if (this.closed || this.ws.readyState !== 1) return Promise.resolve([]);
    return new Promise((resolve) => {
      let done = false;
      const finish = (ids: NodeId[]) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(ids);
      };
      const timer = setTimeout(() => {
        const i = this.peerWaiters.indexOf(finish);
        if (i >= 0) this.peerWaiters.splice(i, 1);
        finish([]);
      }, REQUEST_TIMEOUT_MS);
      this.peerWaiters.push(finish);
      send(this.ws, { type: 'peers', n: Math.max(1, Math.min(MAX_PEERS, Math.floor(n))) });
    });
  }

  /** Takes a grant from the relay and schedules its renewal (a grant without ttl is for good). */
  takeIce(grant: IceGrant): void {
    this.ice = grant;
    this.stats.iceGrants++;
    clearTimeout(this.iceTimer);
    if (grant.ttl === undefined || this.closed) return;
    this.iceTimer = setTimeout(() => {
      if (!this.closed && this.ws.readyState === 1) send(this.ws, { type: 'ice' });
    }, grant.ttl * 1000 * ICE_RENEW_AT);
    // A Node process (the headless peer) must not stay up for a renewal alone.
    (this.iceTimer as { unref?: () => void }).unref?.();
  }

  /** A grant in `registered`, checked on its own: a bad one is dropped, the registration stands. */
  registeredIce(raw: unknown): void {
    if (raw === undefined) return;
    const g = v.safeParse(IceGrantSchema, raw);
    if (g.success) this.takeIce(g.output);
    else this.bad('ice');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopTimers();
    for (const w of this.peerWaiters.splice(0)) w([]);
    this.ws.close(1000, 'bye');
    this.events.removeAll();
  }

  /** Handles one frame after registration. */
  onFrame(data: unknown): void {
    this.heardAt = performance.now();
    let json: unknown;
    try {
      json = JSON.parse(String(data));
    } catch {
      return this.bad('json');
    }
    const parsed = v.safeParse(RelayMessageSchema, json);
    if (!parsed.success) return this.bad('schema');
    const m = parsed.output;
    switch (m.type) {
      case 'signal':
        this.stats.signalsIn++;
        this.events.emit('signal', { from: hexToId(m.from), blob: m.blob });
        return;
      case 'peers':
        this.peerWaiters.shift()?.(m.ids.map(hexToId));
        return;
      case 'ice':
        this.takeIce(m.ice);
        this.events.emit('ice', m.ice);
        return;
      case 'pong':
        return; // heard: that is all a keepalive asks
      case 'error':
        this.stats.errors++;
        if (m.code === 'unknown-peer' && m.to) this.events.emit('undeliverable', { to: hexToId(m.to) });
        return;
      case 'registered':
      case 'challenge':
        this.bad('unexpected');
    }
  }

  private stopTimers(): void {
    clearTimeout(this.iceTimer);
    clearInterval(this.keepTimer);
    clearTimeout(this.probeTimer);
  }

  private bad(why: keyof RelayBootstrapStats['badBy']): void {
    this.stats.badFrames++;
    this.stats.badBy[why]++;
  }

  onClose(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.stopTimers();
    for (const w of this.peerWaiters.splice(0)) w([]);
    this.events.emit('close', { reason });
    this.events.removeAll();
  }
}

/** Connects to the relay and registers `selfId`; rejects with BootstrapError. */
export function connectRelay(opts: RelayBootstrapOptions): Promise<Bootstrap & { stats: RelayBootstrapStats }> {
  const Ctor = opts.WebSocket ?? (globalThis as { WebSocket?: WebSocketCtor }).WebSocket;
  if (!Ctor) return Promise.reject(new BootstrapError('no WebSocket implementation: pass opts.WebSocket'));
  const timeoutMs = opts.connectTimeoutMs ?? RELAY_BOOTSTRAP_DEFAULTS.connectTimeoutMs;
  const self = opts.identity;
  const selfHex = idToHex(self.id);
  return new Promise((resolve, reject) => {
    let ws: WebSocketLike;
    try {
      ws = new Ctor(opts.url);
    } catch (e) {
      reject(new BootstrapError(`cannot open ${opts.url}: ${(e as Error).message}`));
      return;
    }
    const b = new RelayBootstrap(self.id, ws, {
      keepaliveMs: opts.keepaliveMs ?? RELAY_BOOTSTRAP_DEFAULTS.keepaliveMs,
      probeTimeoutMs: opts.probeTimeoutMs ?? RELAY_BOOTSTRAP_DEFAULTS.probeTimeoutMs,
    });
    let registered = false;
    const fail = (why: string) => {
      if (registered) return;
      registered = true; // settle once
      clearTimeout(timer);
      try {
        ws.close();
      } catch {
        /* already closed */
      }
      reject(new BootstrapError(why));
    };
    const timer = setTimeout(() => fail('relay did not answer in time'), timeoutMs);
    ws.onopen = () => undefined; // the relay speaks first: its challenge
    const answer = async (nonce: string) => {
      try {
        const sig = await self.sign(registerProof(nonce, selfHex));
        const net = opts.network !== undefined && opts.network !== UNNAMED_NETWORK ? { net: opts.network } : {};
        if (!registered) send(ws, { type: 'register', id: selfHex, alg: self.alg, pk: toB64(self.publicKey), sig: toB64(sig), ...net });
      } catch (e) {
        fail(`cannot sign the relay's challenge: ${(e as Error).message}`);
      }
    };
    ws.onerror = () => fail(`cannot reach the relay at ${opts.url}`);
    ws.onclose = (ev) => {
      if (!registered) fail(`relay closed the connection (${ev.code ?? ''} ${ev.reason ?? ''})`);
      else b.onClose(`relay connection closed (${ev.code ?? ''})`);
    };
    ws.onmessage = (ev) => {
      if (registered) return b.onFrame(ev.data);
      let m: unknown;
      try {
        m = JSON.parse(String(ev.data));
      } catch {
        return fail('relay sent garbage');
      }
      const p = v.safeParse(RelayMessageSchema, m);
      if (p.success && p.output.type === 'challenge') {
        void answer(p.output.nonce);
      } else if (p.success && p.output.type === 'registered' && p.output.id === selfHex) {
        registered = true;
        clearTimeout(timer);
        b.registeredIce(p.output.ice);
        b.stats.inRoom = p.output.net !== undefined && p.output.net === opts.network;
        b.stats.pings = p.output.ping === 1;
        b.keepAlive();
        resolve(b);
      } else if (p.success && p.output.type === 'error') {
        fail(`relay refused registration: ${p.output.code}`);
      } else {
        fail('unexpected reply to register');
      }
    };
  });
}
