// A peer with no browser (Node): the same composition as a hosting tab (Peer.start, then
// startNetSession's HostingService), so it joins a world through its doorways, hosts the
// regions closest to its node id as primary or backup, and keeps the world alive while no
// tab is open. What a tab keeps in IndexedDB it keeps in a LevelDB in its data dir
// (store/level-store.ts): its node identity (the same node id after a restart) and its
// hosted regions. WebRTC is node-datachannel (under simple-peer's webrtc-polyfill), the
// relay's WebSocket the `ws` package. Hosting ticks from the real clock (Node timers are
// not throttled). The dashboard's figures (host-figures.ts) are sampled every 2 s, with how
// each link is carried (host, srflx, relay: read from node-datachannel's stats, as a tab reads
// its browser's).
// Entry point with options: headless-main.ts (`npm run peer`).
import { WebSocket } from 'ws';
import { realClock, type Clock } from '../core/clock';
import { clockTicker, type Ticker } from '../core/ticker';
import { RemotePlayers } from '../play/remote-player-smoother';
import { LevelStore } from '../store/level-store';
import { MemoryTentativeStore } from '../store/tentative-store';
import type { IcePolicy } from '../net/ice-servers';
import { generateIdentity, type Identity } from '../core/identity';
import { pageDoorways, parsePageConfig } from './config';
import { nodeDatachannelIceServers } from '../bootstrap/headless-ice';
import { sampleHostFigures, type HostFigures } from './host-figures';
import type { WebRtcTransport } from '../net/webrtc-transport';
import { HostHistory } from '../ui/host-history';
import { createHostingApi, type HostingApi } from './hosting-api';
import { createNetApi, type NetApi } from './net-api';
import { startNetSession, type NetSession } from './net-session';
import { Peer, type JoinStage } from '../bootstrap/peer';
import { recordRules } from '../play/dht-record-rules';
import type { WorkerTickerStats } from './worker-ticker';
import { networkId } from '../net/network-id';
import { storeScope } from '../store/store-scope';

export const HEADLESS_DEFAULTS = {
  /** The relay of `npm start` on this machine. */
  relay: 'ws://127.0.0.1:8080/relay',
  /** Dashboard figures are sampled this often (as host.html does). */
  sampleMs: 2000,
};

export interface HeadlessOptions {
  world: string;
  /** Default: the world name (as in a page without `seed=`). */
  seed?: string;
  /** ws(s):// URL of the relay, or null for none (then only peers that dial it find it). */
  relay?: string | null;
  /** Directory of the peer's database (created if missing). */
  dataDir: string;
  /** Local address WebRTC binds to (node-datachannel's bindAddress), e.g. 127.0.0.1 on loopback only. Default: every interface. */
  bindAddress?: string;
  /** STUN/TURN servers (default none: host candidates only, enough on a LAN or one machine); the relay may grant more. */
  iceServers?: RTCIceServer[];
  /** 'relay': TURN relays only (peers never see this machine's address). */
  icePolicy?: IcePolicy;
  /** The node identity (default: the one kept in dataDir, minted and kept there the first time). */
  identity?: Identity;
  /**
   * The player identity its session signs player records and messages with (default: a fresh
   * one of this run). Not the node key: a player id is SHA-256 of its key, a node id its scrypt.
   */
  player?: Identity;
  clock?: Clock;
  onStage?: (stage: JoinStage, detail: string) => void;
}

type LinkPaths = Awaited<ReturnType<WebRtcTransport['linkPaths']>>;

export interface HeadlessPeer {
  readonly peer: Peer;
  readonly net: NetSession;
  readonly hosting: HostingApi;
  readonly netApi: NetApi;
  readonly world: string;
  /** The latest dashboard figures (sampled every sampleMs). */
  figures(): HostFigures;
  stop(): Promise<void>;
}

/** The clock's ticker, counting its ticks (the dashboard's ticker figures). */
function countingTicker(clock: Clock): Ticker & { stats: WorkerTickerStats } {
  const base = clockTicker(clock);
  const stats: WorkerTickerStats = { ticks: 0, errors: 0, fallback: false };
  return {
    stats,
    start: (hz, fn) => base.start(hz, () => {
      stats.ticks++;
      fn();
    }),
  };
}

export async function startHeadlessPeer(o: HeadlessOptions): Promise<HeadlessPeer> {
  const clock = o.clock ?? realClock;
  const relay = o.relay === undefined ? HEADLESS_DEFAULTS.relay : (o.relay ?? 'none');
  // The page's own parser, so a world name, seed and relay mean what they mean in a link.
  const cfg = parsePageConfig(`http://headless.invalid/#${new URLSearchParams({ world: o.world, seed: o.seed ?? o.world, relay })}`);
  if (cfg.world !== o.world) throw new Error(`not a world name: ${o.world} (letters, digits, . _ -; at most 64)`);
  if (relay !== 'none' && cfg.relayUrl !== relay) throw new Error(`not a relay URL: ${relay} (ws:// or wss://)`);
  const store = await LevelStore.open(o.dataDir);
  try {
    const identity = o.identity ?? await store.nodeIdentity();
    const peer = await Peer.start({
      identity,
      // The world's network, from the same world and seed as a page's link names it.
      network: networkId(cfg.world, cfg.seed),
      records: recordRules(),
      doorways: pageDoorways(cfg),
      clock,
      WebSocket: WebSocket as unknown as NonNullable<Parameters<typeof Peer.start>[0]['WebSocket']>,
      rtcConfig: { ...(o.bindAddress ? { bindAddress: o.bindAddress } : {}), ...(o.icePolicy === 'relay' ? { iceTransportPolicy: 'relay' } : {}) },
      ...(o.iceServers ? { iceServers: o.iceServers } : {}),
      iceServersForRtc: nodeDatachannelIceServers,
      ...(o.onStage ? { onStage: o.onStage } : {}),
    });
    const ticker = countingTicker(clock);
    const net = await startNetSession(peer, cfg, clock, ticker, { host: store.hostStore(storeScope(cfg.world, cfg.seed), peer.id), tentative: new MemoryTentativeStore(), player: o.player ?? await generateIdentity() });
    await net.started;
    const hosting = createHostingApi(net, new RemotePlayers(), clock, ticker);
    const netApi = createNetApi(peer);
    const history = new HostHistory();
    const started = clock.now();
    const sample = (paths?: LinkPaths) => sampleHostFigures({ world: cfg.world, peer, hosting, net: netApi, history, clock, started, ...(paths ? { paths } : {}) });
    let last = sample();
    let stopped = false;
    let timer = clock.setTimeout(function again() {
      // The paths come from each link's stats (a promise); the sample waits for them, as host.html's does.
      void peer.transport.linkPaths().then((paths) => paths, () => undefined).then((paths) => {
        if (!stopped) last = sample(paths);
      });
      timer = clock.setTimeout(again, HEADLESS_DEFAULTS.sampleMs);
    }, HEADLESS_DEFAULTS.sampleMs);
    return {
      peer, net, hosting, netApi, world: cfg.world,
      figures: () => last,
      async stop() {
        stopped = true;
        clock.clearTimeout(timer);
        net.stop();
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}
