// Test-only page script: puts the real WebRTC transport and a bootstrap adapter into a
// Chromium tab and exposes a small driver as window.vpNet for e2e/net-webrtc.test.ts.
import { generateNodeIdentity } from '../../src/core/identity';
import { hexToId, idToHex } from '../../src/core/node-id';
import { feedSignals, type Bootstrap } from '../../src/net/bootstrap';
import type { Link } from '../../src/net/link';
import { connectPeerJs } from '../../src/net/peerjs-bootstrap';
import { connectRelay } from '../../src/net/relay-bootstrap';
import { WebRtcTransport } from '../../src/net/webrtc-transport';

export type BootstrapConfig =
  | { kind: 'relay'; url: string }
  | { kind: 'peerjs'; host: string; port: number; path: string };

export interface Received { from: string; size: number; text: string; at: number }

export interface VpNet {
  start(cfg: BootstrapConfig): Promise<{ id: string; alg: string }>;
  peers(n: number): Promise<string[]>;
  /** Dials and returns the milliseconds from dial to an open, verified link. */
  dial(id: string): Promise<number>;
  linkIds(): string[];
  send(id: string, text: string): void;
  /** Sends n messages of `size` bytes as fast as backpressure allows; returns Date.now() at start. */
  blast(id: string, n: number, size: number): number;
  received(): Received[];
  countFrom(id: string): { n: number; bytes: number; last: number };
  close(id: string): void;
  closedLinks(): string[];
  stats(): unknown;
  shutdown(): void;
}

declare global {
  interface Window { vpNet: VpNet }
}

let transport: WebRtcTransport | undefined;
let bootstrap: Bootstrap | undefined;
const links = new Map<string, Link>();
const inbox: Received[] = [];
const counts = new Map<string, { n: number; bytes: number; last: number }>();
const closed: string[] = [];
const log = (s: string) => { document.getElementById('log')!.textContent += `\n${s}`; };

function adopt(link: Link): void {
  const id = idToHex(link.remoteId);
  links.set(id, link);
  link.events.on('message', (m) => {
    const c = counts.get(id) ?? { n: 0, bytes: 0, last: 0 };
    c.n++;
    c.bytes += m.length;
    c.last = Date.now();
    counts.set(id, c);
    if (m.length <= 1024 && m[0] !== 0) inbox.push({ from: id, size: m.length, text: new TextDecoder().decode(m), at: Date.now() });
  });
  link.events.on('close', ({ reason }) => {
    links.delete(id);
    closed.push(id);
    log(`closed ${id.slice(0, 8)}: ${reason}`);
  });
}

function linkTo(id: string): Link {
  const l = links.get(id);
  if (!l) throw new Error(`no link to ${id}`);
  return l;
}

window.vpNet = {
  async start(cfg) {
    // A node id that shows work (core/id-work.ts): the other page's transport checks it.
    const identity = await generateNodeIdentity();
    transport = new WebRtcTransport({ identity, iceServers: [] });
    transport.events.on('link', adopt);
    bootstrap = cfg.kind === 'relay'
      ? await connectRelay({ url: cfg.url, identity })
      : await connectPeerJs({ selfId: identity.id, host: cfg.host, port: cfg.port, path: cfg.path, secure: false });
    feedSignals(bootstrap, transport);
    log(`started ${idToHex(identity.id)} (${identity.alg}) via ${cfg.kind}`);
    return { id: idToHex(identity.id), alg: identity.alg };
  },
  async peers(n) {
    return (await bootstrap!.randomPeers(n)).map(idToHex);
  },
  async dial(id) {
    const t0 = performance.now();
    const link = await transport!.dial(hexToId(id), bootstrap!);
    adopt(link);
    return performance.now() - t0;
  },
  linkIds: () => [...links.keys()],
  send(id, text) {
    linkTo(id).send(new TextEncoder().encode(text));
  },
  blast(id, n, size) {
    const link = linkTo(id);
    const msg = new Uint8Array(size); // first byte 0: not logged in the inbox
    const start = Date.now();
    for (let i = 0; i < n; i++) link.send(msg);
    return start;
  },
  received: () => inbox.slice(),
  countFrom: (id) => counts.get(id) ?? { n: 0, bytes: 0, last: 0 },
  close(id) {
    linkTo(id).close('test closes it');
  },
  closedLinks: () => closed.slice(),
  stats: () => transport?.stats,
  shutdown() {
    transport?.close();
    bootstrap?.close();
  },
};
