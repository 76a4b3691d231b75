// window.voxel.net: the peer network for tests and diagnostics. Keys are strings hashed
// to 160-bit DHT keys; values and messages are strings (UTF-8) for convenience.
import { nodeIdDerivations } from '../core/key-ids';
import { hexToId, idFromSha256, idToHex } from '../core/node-id';
import { NAMESPACES, type Namespace } from '../dht/messages';
import type { Peer } from '../bootstrap/peer';
import { isProbeFrame, RttProbe } from '../bootstrap/rtt-probe';
import { handshakeDerivations } from '../net/link-handshake';
import { LINK_FRAME_TOTALS } from '../net/webrtc-link';
import type { LinkPath } from '../net/link-path';

export interface NetLink {
  id: string;
  rttMs: number | null;
  outbound: boolean;
}

export interface NetApi {
  id(): string;
  status(): string;
  links(): NetLink[];
  /** Node ids (hex) in the routing table. */
  contacts(): string[];
  put(ns: string, key: string, value: string): Promise<{ stored: number }>;
  get(ns: string, key: string): Promise<string | undefined>;
  /** Routes a message to any node id; false when there is no first hop. */
  send(nodeId: string, msg: string): boolean;
  /** Messages received so far (oldest first, at most 1000); `at` is epoch ms (timeOrigin + now, sub-ms). */
  received(): { from: string; msg: string; at: number }[];
  /** Opens a direct link, signaled over the overlay. */
  connect(nodeId: string): Promise<void>;
  /** k closest node ids to a key (hex), from an iterative lookup. */
  lookup(targetHex: string): Promise<string[]>;
  /** The DHT's counters, with `nodeIdDerive_{keys,ms,hits}`: node keys this tab matched to their ids (one scrypt each, core/key-ids.ts), the ms spent, and checks answered from memory. */
  stats(): Record<string, number>;
  /** The relay connection: open now, times re-opened after a drop, and the ids it lists (diagnostics). */
  relay(): Promise<{ online: boolean; reconnects: number; listed: string[] }>;
  /** How each live link is carried (its selected ICE candidate pair, net/link-path.ts), by node id; null while it has none. */
  paths(): Promise<Record<string, LinkPath | null>>;
  /** The last LINK_EVENTS links opened and closed (`at`: epoch ms; `reason`: why it closed, net/close-reasons.ts), oldest first. */
  linkEvents(): LinkEvent[];
}

export interface LinkEvent { at: number; id: string; open: boolean; outbound?: boolean; reason?: string }

/** Link events window.voxel.net keeps (a network change closes and opens a few per peer). */
const LINK_EVENTS = 64;

const MAX_RECEIVED = 1000;

function namespace(ns: string): Namespace {
  if (!(NAMESPACES as readonly string[]).includes(ns)) throw new TypeError(`unknown namespace ${ns}; one of ${NAMESPACES.join(', ')}`);
  return ns as Namespace;
}

export function createNetApi(peer: Peer): NetApi {
  const received: { from: string; msg: string; at: number }[] = [];
  const dec = new TextDecoder();
  const enc = new TextEncoder();
  const diag = peer.channels.open('diag');
  // Round trips of the live links (the dashboard shows them); its frames share this channel.
  const probe = new RttProbe({ channel: diag, clock: peer.clock, links: () => peer.dht.linkInfo() });
  const linkEvents: LinkEvent[] = [];
  const logLink = (e: LinkEvent) => {
    linkEvents.push(e);
    if (linkEvents.length > LINK_EVENTS) linkEvents.shift();
  };
  const at = () => performance.timeOrigin + performance.now();
  peer.dht.events.on('link-open', ({ id, outbound }) => logLink({ at: at(), id: idToHex(id), open: true, outbound }));
  peer.dht.events.on('link-close', ({ id, reason }) => logLink({ at: at(), id: idToHex(id), open: false, reason }));
  diag.events.on('message', ({ from, body }) => {
    if (isProbeFrame(body)) return;
    received.push({ from: idToHex(from), msg: dec.decode(body), at: performance.timeOrigin + performance.now() });
    if (received.length > MAX_RECEIVED) received.shift();
  });
  return {
    id: () => peer.id,
    status: () => peer.status,
    links: () => peer.dht.linkInfo().map((l) => ({ id: l.hex, rttMs: probe.rttMs(l.hex) ?? l.rttMs, outbound: l.outbound })),
    contacts: () => peer.dht.contacts().map(idToHex),
    put: async (ns, key, value) => peer.dht.put(namespace(ns), await idFromSha256(key), enc.encode(value)),
    get: async (ns, key) => {
      const got = await peer.dht.get(namespace(ns), await idFromSha256(key));
      return got && dec.decode(got.value);
    },
    send: (to, msg) => diag.send(hexToId(to), enc.encode(msg)),
    received: () => received.slice(),
    connect: (to) => peer.dht.connect(hexToId(to)),
    lookup: async (t) => (await peer.dht.findNode(hexToId(t))).closest.map((c) => idToHex(c.id)),
    stats: () => ({ ...flatten(peer.dht.stats as unknown as Record<string, unknown>), ...flatten(probe.stats, 'rttProbe_'), ...flatten(LINK_FRAME_TOTALS, 'link_'), ...flatten({ sent: peer.channels.sent, received: peer.channels.received, earlyDropped: peer.channels.earlyDropped }, 'channel_'), ...flatten(nodeIdDerivations, 'nodeIdDerive_'), ...flatten(handshakeDerivations.stats, 'handshakeDerive_'), ...flatten(peer.transport.stats as unknown as Record<string, unknown>, 'transport_') }),
    relay: async () => ({ online: peer.relayOnline, reconnects: peer.relayReconnects, listed: await peer.relayPeers(16) }),
    paths: async () => Object.fromEntries([...await peer.transport.linkPaths()].map(([id, { path }]) => [id, path ?? null])),
    linkEvents: () => linkEvents.slice(),
  };
}

/** { dropped: { ttl: 1 } } -> { dropped_ttl: 1 }: one flat object of counters. */
function flatten(o: Record<string, unknown>, prefix = '', out: Record<string, number> = {}): Record<string, number> {
  for (const [k, v] of Object.entries(o)) {
    if (typeof v === 'number') out[prefix + k] = v;
    else if (v && typeof v === 'object') flatten(v as Record<string, unknown>, `${prefix}${k}_`, out);
  }
  return out;
}
