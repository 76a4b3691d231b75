// Page entry of the player: wires the world model, its chunk source, the renderer, the
// input and the HUD, and publishes window.voxel.
import { WorldStore, type SavedPlayer } from '../store/world-store';
import { BlockEditor, EditRefused } from '../play/block-editor';
import { ChunkStreamer } from '../play/chunk-streamer';
import { wantedColumns } from '../play/chunk-ring';
import { LocalChunkSource } from '../play/local-chunk-source';
import { PlayerSession } from '../play/player-session';
import { WorldModel } from '../play/world-model';
import { AIR } from '../world/blocks';
import { SOLID } from '../world/blocks';
import { boxCollides } from '../play/physics';
import { liftClear, openGroundSpawn } from './spawn-point';
import { Hud } from '../ui/hud';
import { KeyboardMouseInput } from '../ui/keyboard-mouse-input';
import { StartScreen } from '../ui/start-screen';
import { InvitePanel } from '../ui/invite-panel';
import { IdentityPanel } from '../ui/identity-panel';
import { RemotePlayers } from '../play/remote-player-smoother';
import type { ChunkSource } from '../play/chunk-source';
import { NO_INPUT } from '../play/physics';
import { clampRenderDistance, DEFAULT_RENDER_DISTANCE, parsePageConfig } from './config';
import { createNetApi } from './net-api';
import { journalPlayer, newerPlayer, readJournal } from './player-journal';
import { deployDefaults, inviteLinkFor, inviteProblem, joinPeer, startNetSession, type NetSession } from './net-session';
import { explainStart, showStage } from './start-flow';
import type { Peer } from './peer';
import { TabClock } from './tab-clock';
import { WorkerTicker } from './worker-ticker';
import { createHostingApi } from './hosting-api';
import { createVoxelApi, type VoxelApi } from './voxel-api';
import { createView, type WorldView } from './world-view';

declare global {
  interface Window {
    voxel: VoxelApi;
  }
}

const SAVE_EVERY_MS = 2000;
/** Columns around the player that must be loaded before the loading screen lifts. */
const READY_RADIUS = 1;

async function main(): Promise<void> {
  const cfg = parsePageConfig(location.href, deployDefaults());
  // Hosting and the DHT keep time through the worker, so a hidden tab stays a good host.
  const ticker = new WorkerTicker();
  const clock = new TabClock(ticker);
  const loading = new StartScreen(document.getElementById('loading')!, cfg.world);
  const hud = new Hud(document.getElementById('hud')!);
  // A broken or altered invite is said at once (and not followed); the join goes on without it.
  const problem = cfg.net ? await inviteProblem(cfg) : undefined;
  if (problem) explainStart(loading, hud, cfg, { kind: problem.kind === 'malformed' ? 'invite-malformed' : 'invite-tampered', detail: problem.reason });
  // The network join runs alongside opening the local database.
  const joining = cfg.net ? joinPeer(cfg, clock, (stage, note) => showStage(loading, stage, note), problem) : null;
  loading.progress('Opening the world database…', 0.02);

  let store: WorldStore | null = null;
  try {
    store = await WorldStore.open(cfg.world);
  } catch (err) {
    hud.showMessage(`${(err as Error).message}`);
  }
  const saved = newerPlayer(await store?.loadPlayer().catch((err: Error) => { hud.showMessage(err.message); return undefined; }), readJournal(cfg.world));
  let renderDistance = cfg.renderDistance ?? clampRenderDistance((await store?.loadSetting<number>('renderDistance')) ?? DEFAULT_RENDER_DISTANCE);

  let peer: Peer | null = null;
  let net: NetSession | null = null;
  if (joining) {
    loading.progress('Joining the peer network…', 0.05);
    try {
      peer = await joining;
      if (peer.failure && !problem) explainStart(loading, hud, cfg, peer.failure);
      if (cfg.hosting) net = await startNetSession(peer, cfg, clock, ticker);
    } catch (err) {
      hud.showMessage(`Could not join the peer network, playing alone: ${(err as Error).message}`);
    }
  } else {
    loading.stage('doorway', 'skipped', 'offline (net=off)');
  }
  // With the network, chunks come from their hosts (this tab may be one); without it, from disk.
  const source: ChunkSource = net ? net.source : new LocalChunkSource(cfg.seed, store);
  const world = new WorldModel();
  const streamer = new ChunkStreamer(world, source);
  const fromDht = saved ? undefined : await net?.fetchPlayer();
  const spawn = saved ?? (fromDht && { ...fromDht, flying: false, selected: 0 }) ?? { ...openGroundSpawn(cfg.seed), yaw: 0, pitch: 0, flying: false, selected: 0 };
  const session = new PlayerSession(world, spawn.x, spawn.y, spawn.z);
  session.yaw = spawn.yaw;
  session.pitch = spawn.pitch;
  session.flying = spawn.flying;
  session.select(spawn.selected);
  const editor = new BlockEditor(world, source, () => session.body);

  const view: WorldView = await createView(document.getElementById('game')!, world, { headless: cfg.headless, renderDistance });

  // --- saving the player ---------------------------------------------------------------
  const snapshot = (): SavedPlayer => ({ x: session.body.x, y: session.body.y, z: session.body.z, yaw: session.yaw, pitch: session.pitch, flying: session.flying, selected: session.selected });
  let lastSaved = JSON.stringify(snapshot());
  const savePlayer = async (force = true) => {
    const s = snapshot();
    lastSaved = JSON.stringify(s);
    await store?.savePlayer({ ...s, savedAt: Date.now() });
    await net?.publishPlayer(s, force).catch(() => {}); // best effort: the local copy is the first resort
  };
  const saveIfMoved = () => {
    if (JSON.stringify(snapshot()) !== lastSaved) savePlayer(false).catch((e: Error) => hud.showMessage(e.message));
  };
  const leaving = () => {
    journalPlayer(cfg.world, { ...snapshot(), savedAt: Date.now() }); // sure to land, unlike the IndexedDB write
    saveIfMoved();
  };
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') leaving(); });
  addEventListener('pagehide', leaving);
  setInterval(saveIfMoved, SAVE_EVERY_MS);

  // --- input --------------------------------------------------------------------------
  const edit = (x: number, y: number, z: number, id: number) => {
    editor.setBlock(x, y, z, id).catch((err: Error) => {
      if (err instanceof EditRefused) hud.showMessage(err.message, 'notice');
      else hud.showMessage(err.message);
    });
  };
  hud.select(session.selected);
  const menu = document.getElementById('menu')!;
  const invites = cfg.headless ? null : new InvitePanel(menu.querySelector('.card')!, async () => {
    if (!peer) throw new Error('Not connected to the peer network: there is nothing to invite to');
    return inviteLinkFor(peer, cfg, location.href.split('#')[0]!);
  });
  const setRenderDistance = async (n: number) => {
    renderDistance = clampRenderDistance(n);
    view.setRenderDistance(renderDistance);
    hud.showMessage(`Render distance ${renderDistance}`, 'notice');
    await store?.saveSetting('renderDistance', renderDistance);
  };
  const input = cfg.headless ? null : new KeyboardMouseInput(view.canvas!, {
    look: (dy, dp) => session.look(dy, dp),
    breakBlock: () => { const t = session.target(); if (t) edit(t.x, t.y, t.z, AIR); },
    placeBlock: () => { const t = session.target(); if (t) edit(t.x + t.nx, t.y + t.ny, t.z + t.nz, session.selectedBlock); },
    selectSlot: (i) => { session.select(i); hud.select(session.selected); },
    scrollSlot: (d) => { session.select(session.selected + d); hud.select(session.selected); },
    toggleFly: () => { session.flying = !session.flying; hud.showMessage(session.flying ? 'Flying' : 'Walking', 'notice'); },
    changeRenderDistance: (d) => { setRenderDistance(renderDistance + d).catch((e: Error) => hud.showMessage(e.message)); },
    lockChanged: (locked) => { menu.hidden = locked; },
    invite: () => { void invites?.copy().then((said) => hud.showMessage(said, 'notice')); },
  });
  menu.addEventListener('click', () => input?.requestLock());
  if (!cfg.headless) new IdentityPanel(document.body).bind(document.getElementById('identity-button'));

  // --- other players' edits and avatars -------------------------------------------------
  const remote = new RemotePlayers();
  // Whichever source: its block changes reach the world model (the local source sends none).
  source.events.on('blocks', ({ changes }) => { for (const c of changes) world.applyBlock(c.x, c.y, c.z, c.id); });
  if (net) {
    net.source.events.on('players', ({ players }) => {
      for (const p of players) remote.update(p.hex, p.name, p.x, p.y, p.z, p.yaw, p.pitch, performance.now());
    });
  }

  // --- readiness ------------------------------------------------------------------------
  let readyMs = NaN;
  // Frames (after ready) with a column missing well inside the render distance: a chunk
  // the player should see is not drawn. Crossing borders must keep this at 0.
  let gapFrames = 0;
  const innerGap = () => wantedColumns(session.column, Math.max(1, renderDistance - 2)).some((c) => !view.isColumnDrawn(c.cx, c.cz));
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));
  const nearReady = () => wantedColumns(session.column, READY_RADIUS).every((c) => world.has(c.cx, c.cz) && view.isColumnDrawn(c.cx, c.cz));

  // The regions stage passes once a certified primary serves a region around the player;
  // alone, nobody can certify one (edits stay tentative until others come).
  let regionsSaid = !net;
  const regionsStage = () => {
    if (peer?.status === 'online') loading.resolved(); // someone turned up: no problem left to explain
    if (regionsSaid || !net) return;
    if (net.source.liveRegions().some((r) => net!.client.isReady(r))) loading.stage('regions', 'done');
    else if (peer?.status !== 'alone') return;
    else loading.stage('regions', 'skipped', 'alone: edits kept until others come');
    regionsSaid = true;
  };

  // --- frame loop -----------------------------------------------------------------------
  let last = performance.now();
  let totalFrames = 0;
  let frames = 0, fps = 0, fpsSince = last, hudAt = 0;
  const frame = (now: number) => {
    const dt = (now - last) / 1000;
    last = now;
    session.step(input?.active ? input.moveInput() : NO_INPUT, dt);
    streamer.update(session.column, renderDistance);
    const b = session.body;
    net?.source.setPosition({ x: b.x, y: b.y, z: b.z, yaw: session.yaw, pitch: session.pitch });
    view.setRemotePlayers(remote.sample(now));
    view.frame(session, !Number.isNaN(readyMs) || nearReady());
    frames++;
    totalFrames++;
    if (!Number.isNaN(readyMs) && innerGap()) gapFrames++;
    if (now - fpsSince >= 1000) { fps = (frames * 1000) / (now - fpsSince); frames = 0; fpsSince = now; }
    if (Number.isNaN(readyMs)) {
      const near = wantedColumns(session.column, READY_RADIUS);
      loading.progress(`Generating terrain… ${near.filter((c) => world.has(c.cx, c.cz)).length}/${near.length}`, near.filter((c) => world.has(c.cx, c.cz)).length / near.length);
      if (nearReady()) {
        readyMs = performance.now();
        // Something may have been built where the player stands (new or returning): step out on top.
        const solid = (x: number, y: number, z: number) => SOLID[world.blockAt(x, y, z)] === 1;
        if (!session.flying && boxCollides(b.x, b.y, b.z, solid)) session.teleport(b.x, liftClear(solid, b.x, b.y, b.z), b.z);
        loading.stage('terrain', 'done');
        loading.hide();
        if (!cfg.headless && !input?.locked) menu.hidden = false;
        resolveReady();
      }
    }
    if (now - hudAt > 250) {
      hudAt = now;
      regionsStage();
      const v = view.stats();
      const roles = net?.host.roles();
      const netLine = peer
        ? `peer ${peer.id.slice(0, 8)} · ${peer.status} · ${peer.dht.linkInfo().length} links` + (roles ? ` · hosting ${roles.primary.length}+${roles.backup.length} · ${remote.size} players` : '')
        : cfg.net ? 'offline (could not join)' : 'offline (net=off)';
      hud.update({ x: b.x, y: b.y, z: b.z, ...session.column, fps, chunks: world.size, pending: streamer.pending, renderDistance, flying: session.flying, drawCalls: v.drawCalls, triangles: v.triangles, net: netLine, tentative: net?.source.tentative.size ?? 0 });
      if (net?.source.tentative.lastError) { hud.showMessage(net.source.tentative.lastError.message); net.source.tentative.lastError = undefined; }
      if (streamer.lastError) { hud.showMessage(streamer.lastError.message); streamer.lastError = undefined; }
    }
  };
  view.loop(frame);

  const api = createVoxelApi({
    world, session, editor, ready, savePlayer, setRenderDistance,
    onSelect: (i) => hud.select(i),
    stats: () => ({ fps, chunksLoaded: world.size, chunksPending: streamer.pending, readyMs, pendingEdits: editor.pending, tentativeEdits: net?.source.tentative.size ?? 0, gapFrames, frames: totalFrames, ...view.stats() }),
    tentative: () => net?.source.tentative.list() ?? [],
  });
  if (peer) {
    const joined = peer;
    api.net = createNetApi(joined);
    api.invite = () => inviteLinkFor(joined, cfg, location.href.split('#')[0]!);
  }
  api.startProblem = () => document.querySelector<HTMLElement>('#loading .problem:not([hidden])')?.dataset.kind;
  if (net) {
    api.hosting = createHostingApi(net, remote, clock, ticker);
    addEventListener('pagehide', () => net?.stop());
  }
  window.voxel = api;
}

main().catch((err: unknown) => {
  console.error(err);
  new StartScreen(document.getElementById('loading')!, '').fail(`Voxel Populi could not start: ${err instanceof Error ? err.message : String(err)}`);
});
