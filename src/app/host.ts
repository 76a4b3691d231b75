// host.html: a tab that only hosts. It joins the world as a peer and serves the regions
// closest to its node id (as every player tab does), without the 3D world or a player, and
// shows what it does. Leave it open, even in the background, to keep the world alive.
// window.voxel here has `net` and `hosting` only (for tests and tools).
import { RemotePlayers } from '../play/remote-player-smoother';
import { HostDashboard } from '../ui/host-dashboard';
import { inviteLink, parsePageConfig } from './config';
import { createHostingApi, type HostingApi } from './hosting-api';
import { createNetApi, type NetApi } from './net-api';
import { joinPeer, startNetSession } from './net-session';
import { TabClock } from './tab-clock';
import { WorkerTicker } from './worker-ticker';

declare global {
  interface Window {
    voxelHost?: { net: NetApi; hosting: HostingApi; ready: boolean };
  }
}

async function main(): Promise<void> {
  const cfg = parsePageConfig(location.href);
  const ticker = new WorkerTicker();
  const clock = new TabClock(ticker);
  const board = new HostDashboard(document.getElementById('dashboard')!);
  const started = clock.now();
  const status = document.getElementById('status')!;
  status.textContent = 'Joining the peer network…';
  const peer = await joinPeer(cfg, clock);
  const net = await startNetSession(peer, cfg, clock, ticker);
  const hosting = createHostingApi(net, new RemotePlayers(), clock, ticker);
  window.voxelHost = { net: createNetApi(peer), hosting, ready: true };
  status.textContent = '';
  const invite = inviteLink(new URL('./', location.href).href, cfg, peer.id);
  document.getElementById('play')?.setAttribute('href', invite);
  const refresh = () => {
    const roles = hosting.roles();
    board.render({
      world: cfg.world,
      nodeId: peer.id,
      status: peer.status,
      links: peer.dht.linkInfo().map((l) => ({ hex: l.hex, rttMs: l.rttMs })),
      primary: roles.primary,
      backup: roles.backup,
      tickHz: hosting.tickHz(),
      uptimeMs: clock.now() - started,
      stats: hosting.stats(),
      invite,
      ...(peer.status === 'alone' && peer.lastError ? { problem: `No other peer reachable yet (${peer.lastError.message}); hosting alone until one joins.` } : {}),
    });
  };
  refresh();
  clock.setTimeout(function again() {
    refresh();
    clock.setTimeout(again, 1000);
  }, 1000);
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
