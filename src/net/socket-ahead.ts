// A relay's WebSocket opened before the page knows who it is. A new tab's node id takes a
// second or so to mint (app/node-id-minter.ts), and only then can it register at the relay
// (relay-bootstrap.ts signs the relay's challenge with its key); opened ahead, the
// connection (DNS, TCP, TLS, the upgrade) is made meanwhile, and the relay's first frame
// (its challenge) is held here until the registration is ready to answer it. The socket
// goes to the first connection made to its URL while it is open; every later one (a
// reconnect) and one to another URL gets a socket of its own. One nobody takes is closed
// by `dispose` (the relay closes it anyway once its register wait runs out).
import type { WebSocketCtor, WebSocketLike } from './relay-bootstrap';

type Held = { kind: 'open' | 'error'; ev: unknown } | { kind: 'message'; ev: { data: unknown } } | { kind: 'close'; ev: { code?: number; reason?: string } };

export interface SocketAhead {
  /** The constructor to connect with (relay-bootstrap.ts `WebSocket`): its first socket to the URL is the one opened ahead. */
  readonly WebSocket: WebSocketCtor;
  /** Whether the socket opened ahead was handed out. */
  readonly taken: boolean;
  /** Closes the socket opened ahead if nobody took it. Idempotent. */
  dispose(): void;
}

/**
 * The socket opened ahead as it is handed out: the events that came before its new owner set
 * its handlers are passed on in order at the end of the task that took it (the owner sets
 * them right after it constructs the socket: relay-bootstrap.ts), the later ones as they come.
 */
class HeldSocket implements WebSocketLike {
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code?: number; reason?: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  private held: Held[] | null;

  constructor(private readonly ws: WebSocketLike, held: Held[]) {
    this.held = held;
    ws.onopen = (ev) => this.take({ kind: 'open', ev });
    ws.onmessage = (ev) => this.take({ kind: 'message', ev });
    ws.onclose = (ev) => this.take({ kind: 'close', ev });
    ws.onerror = (ev) => this.take({ kind: 'error', ev });
    queueMicrotask(() => {
      const past = this.held ?? [];
      this.held = null;
      for (const h of past) this.pass(h);
    });
  }

  get readyState(): number {
    return this.ws.readyState;
  }

  send(data: string): void {
    this.ws.send(data);
  }

  close(code?: number, reason?: string): void {
    this.ws.close(code, reason);
  }

  private take(h: Held): void {
    if (this.held) this.held.push(h);
    else this.pass(h);
  }

  private pass(h: Held): void {
    if (h.kind === 'message') this.onmessage?.(h.ev);
    else if (h.kind === 'close') this.onclose?.(h.ev);
    else if (h.kind === 'open') this.onopen?.(h.ev);
    else this.onerror?.(h.ev);
  }
}

/** Opens a WebSocket to `url` now (with `Ctor`), for the first connection to it made later through the returned `WebSocket`. */
export function openAhead(url: string, Ctor: WebSocketCtor): SocketAhead {
  let early: WebSocketLike | undefined;
  const held: Held[] = [];
  let ended = false;
  let taken = false;
  try {
    early = new Ctor(url);
    early.onopen = (ev) => void held.push({ kind: 'open', ev });
    early.onmessage = (ev) => void held.push({ kind: 'message', ev });
    early.onerror = (ev) => void held.push({ kind: 'error', ev });
    early.onclose = (ev) => {
      ended = true;
      held.push({ kind: 'close', ev });
    };
  } catch {
    early = undefined; // a bad URL: the connection made later fails with the reason
  }
  const take = (u: string): WebSocketLike | undefined => {
    // A socket that already failed or closed is no use: the connection gets a fresh one.
    if (!early || u !== url || ended || held.some((h) => h.kind === 'error')) return undefined;
    const ws = early;
    early = undefined;
    taken = true;
    return new HeldSocket(ws, held.splice(0));
  };
  // Called with `new`: a constructor that returns an object gives that object.
  const Ahead = function (u: string) {
    return take(u) ?? new Ctor(u);
  } as unknown as WebSocketCtor;
  return {
    WebSocket: Ahead,
    get taken() {
      return taken;
    },
    dispose() {
      const ws = early;
      early = undefined;
      if (!ws || ended) return;
      try {
        ws.close(1000, 'unused');
      } catch {
        /* already closing */
      }
    },
  };
}
