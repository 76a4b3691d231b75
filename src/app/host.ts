// host.html: a tab that only hosts. It joins the world as a peer and serves the regions
// closest to its node id (as every player tab does), without the 3D world or a player, and
// shows what it does. Leave it open, even in the background, to keep the world alive: its
// timers and figures run on the worker-driven clock, so hiding it changes nothing.
// It asks the browser to keep its storage (navigator.storage.persist()) and shows the answer.
// window.voxelHost here has `net` and `hosting` only (for tests and tools).
import { RemotePlayers } from '../play/remote-player-smoother';
import { HostDashboard } from '../ui/host-dashboard';
import { parsePageConfig } from './config';
import { sampleHostFigures } from './host-figures';
import { HostHistory } from '../ui/host-history';
import { createHostingApi, type HostingApi } from './hosting-api';
import { createNetApi, type NetApi } from './net-api';
import { inviteLinkFor, startNetSession } from './net-session';
import { deployDefaults } from './join-start';
import { joinPeer } from './page-join';
import { TabClock } from '../core/tab-clock';
import { documentVisibility } from '../ui/page-visibility';
import { WorkerTicker } from './worker-ticker';

declare global {
  interface Window {
    voxelHost?: { net: NetApi; hosting: HostingApi; ready: boolean };
  }
}

const SAMPLE_MS = 2000;
const CAP_KEY = 'vp-host-storage-cap-mb';
const DEFAULT_CAP_MB = 500;

/** What the browser says of this site's storage (it may say nothing). */
async function storageFigures(): Promise<{ usage: number | undefined; quota: number | undefined }> {
  const estimate = await navigator.storage?.estimate?.().catch(() => undefined);
  return { usage: estimate?.usage, quota: estimate?.quota };
}

async function main(): Promise<void> {
  const cfg = parsePageConfig(location.href, deployDefaults());
  const ticker = new WorkerTicker();
  const clock = new TabClock(ticker, performance, documentVisibility());
  let capMb = Number(localStorage.getItem(CAP_KEY)) || DEFAULT_CAP_MB;
  const board = new HostDashboard(document.getElementById('dashboard')!, {
    chooseWorld: (world) => {
      // Another world at the same doorways: a relay keeps worlds apart (a room per network).
      const next = new URLSearchParams({ world, seed: world });
      const was = new URLSearchParams(location.hash.replace(/^#/, ''));
      for (const k of ['relay', 'peerjs']) if (was.get(k)) next.set(k, was.get(k)!);
      location.hash = next.toString();
      location.reload();
    },
    setStorageCap: (mb) => {
      capMb = mb;
      localStorage.setItem(CAP_KEY, String(mb));
    },
  });
  // Asked once; a browser may grant it at once (an installed or much-used site) or refuse.
  let persisted: boolean | undefined;
  void (navigator.storage?.persist?.() ?? Promise.resolve(false)).then((p) => (persisted = p), () => (persisted = false));
  const started = clock.now();
  const status = document.getElementById('status')!;
  status.textContent = 'Joining the peer network…';
  const peer = await joinPeer(cfg, clock);
  const net = await startNetSession(peer, cfg, clock, ticker);
  await net.started;
  const hosting = createHostingApi(net, new RemotePlayers(), clock, ticker);
  const netApi = createNetApi(peer);
  window.voxelHost = { net: netApi, hosting, ready: true };
  status.textContent = '';
  const pageUrl = new URL('./', location.href).href;
  let invite = await inviteLinkFor(peer, cfg, pageUrl);
  document.getElementById('play')?.setAttribute('href', invite);
  const history = new HostHistory();
  let storage = await storageFigures();
  // How the links are carried is read from their connections' stats (asynchronous), then drawn.
  const refresh = () => void peer.transport.linkPaths().then((paths) => board.render({
    ...sampleHostFigures({ world: cfg.world, peer, hosting, net: netApi, history, clock, started, paths }),
    storage: { ...storage, persisted, capMb },
    invite,
  }));
  refresh();
  let n = 0;
  clock.setTimeout(function again() {
    refresh();
    // Storage and the invite's contacts change slowly: every 30 s is enough.
    if (++n % 15 === 0) {
      void storageFigures().then((f) => (storage = f));
      void inviteLinkFor(peer, cfg, pageUrl).then((l) => { invite = l; document.getElementById('play')?.setAttribute('href', l); });
    }
    clock.setTimeout(again, SAMPLE_MS);
  }, SAMPLE_MS);
  // Closing a host hands its regions on (no edit is lost), but say so before it happens.
  addEventListener('beforeunload', (ev) => {
    if (hosting.roles().primary.length > 0) ev.preventDefault();
  });
  addEventListener('pagehide', () => net.stop());
}

main().catch((err: unknown) => {
  const status = document.getElementById('status');
  if (status) {
    status.textContent = `Could not start hosting: ${(err as Error).message}`;
    status.className = 'failed';
  }
  console.error(err);
});
