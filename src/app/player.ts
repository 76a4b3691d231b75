// Page entry of the player: opens the world database and joins the network, then wires
// the world model, its chunk source, the renderer, the controls and HUD (player-controls.ts,
// player-status.ts), the frame loop (frame-loop.ts) and saving (player-saving.ts), and
// publishes window.voxel.
import { BlockEditor } from '../play/block-editor';
import type { ChunkSource } from '../play/chunk-source';
import { ChunkStreamer } from '../play/chunk-streamer';
import { LocalChunkSource } from '../play/local-chunk-source';
import { RemotePlayers } from '../play/remote-player-smoother';
import { feedRemotePlayers, feedWorld } from '../play/source-feed';
import { WorldModel } from '../play/world-model';
import { WorldStore } from '../store/world-store';
import { Hud } from '../ui/hud';
import { StartScreen, webglProblemKind } from '../ui/start-screen';
import { StartLook } from '../ui/start-look';
import { pageStorage } from '../ui/ice-settings';
import { clampRenderDistance, DEFAULT_RENDER_DISTANCE, parsePageConfig, touchOnlyDevice } from './config';
import { FrameLoop } from './frame-loop';
import { createHostingApi } from './hosting-api';
import { createNetApi, type NetApi } from './net-api';
import { deployDefaults, inviteLinkFor, inviteProblem, joinPeer, startNetSession, type NetSession } from './net-session';
import type { Peer } from '../bootstrap/peer';
import { PageChat } from './page-chat';
import { PageItems } from './page-items';
import { PageWho } from './page-who';
import { PlayerControls } from './player-controls';
import { keepPlayerSaved, loadSavedPlayer, startSession } from './player-saving';
import { PlayerStatus } from './player-status';
import { explainStart, showHostingMode, showStage } from './start-flow';
import { TabClock } from '../core/tab-clock';
import { documentVisibility } from '../ui/page-visibility';
import { PROBE_WAIT_MS, ProbeFrameGate } from '../play/probe-frame-gate';
import { createVoxelApi, type VoxelApi } from './voxel-api';
import { WorkerTicker } from './worker-ticker';
import { createView, DrawingUnavailable, hasWebGL2, type WorldView } from './world-view';
import { playerWork, sayMinting, type PlayerWork } from './key-work-minter';
import { PLAYER_PASS_BITS } from '../region/player-pass';
import { loadPlayerIdentity } from '../store/identity-store';
import { storeScope } from '../store/store-scope';
import { hasEd25519 } from '../core/identity';

declare global {
  interface Window {
    voxel: VoxelApi;
  }
}

async function main(): Promise<void> {
  const cfg = parsePageConfig(location.href, deployDefaults(), { touchOnly: touchOnlyDevice((q) => matchMedia(q).matches) });
  // Hosting and the DHT keep time through the worker, so a hidden tab stays a good host.
  const ticker = new WorkerTicker();
  const clock = new TabClock(ticker, performance, documentVisibility());
  const loading = new StartScreen(document.getElementById('loading')!, cfg.world);
  // Name and colour can be chosen while the world loads (kept with the settings).
  const startLook = cfg.headless ? null : new StartLook(document.getElementById('loading')!, pageStorage());
  const hud = new Hud(document.getElementById('hud')!);
  const hostingNote = showHostingMode([document.getElementById('loading')!, document.querySelector<HTMLElement>('#menu .card')!], cfg);
  // A browser without WebGL2 is told at once, before it joins a network it could not show.
  if (!cfg.headless && !hasWebGL2()) {
    cannotDraw(loading, new DrawingUnavailable(webglProblemKind(false), 'WebGL2RenderingContext is not defined'));
    return;
  }
  // A broken or altered invite is said at once (and not followed); the join goes on without it.
  const problem = cfg.net ? await inviteProblem(cfg) : undefined;
  if (problem) explainStart(loading, hud, cfg, { kind: problem.kind === 'malformed' ? 'invite-malformed' : 'invite-tampered', detail: problem.reason });
  // So is a browser that cannot check Ed25519 keys (Safari before 17): it signs with P-256,
  // but no current browser's handshake would pass its check, so its join's own failure would
  // name the wrong cause. The join goes on: it links to P-256 peers, and plays alone.
  const outdated = cfg.net && !problem && !(await hasEd25519());
  if (outdated) explainStart(loading, hud, cfg, { kind: 'browser-outdated', detail: "crypto.subtle has no Ed25519: other players' keys cannot be checked" });
  // The player key's proof of work (read, or minted in a worker the first time: ~1 s; edits need
  // it: region/player-pass.ts) begins once the node id is minted: begun together, the two
  // shared the cores and the id, which the join and so the first frame wait for, came later.
  let idMinted = () => {};
  const work = cfg.net && cfg.hosting ? new Promise<void>((r) => (idMinted = r)).then(() => {
    const w = loadPlayerIdentity().then((p) => playerWork(p.publicKey, PLAYER_PASS_BITS));
    sayMinting(w, hud);
    return w;
  }) : undefined;
  let worked: PlayerWork | undefined;
  void work?.then((w) => void ((worked = w), performance.mark('vp:player-key')), () => undefined);
  // The network join runs alongside opening the local database and making the view.
  const joining = cfg.net ? joinPeer(cfg, clock, (stage, note) => showStage(loading, stage, note), problem, () => idMinted()) : null;
  loading.progress('Opening the world database…', 0.02);

  // This world's records (its name and seed) in the browser's stores.
  const scope = storeScope(cfg.world, cfg.seed);
  let store: WorldStore | null = null;
  try {
    store = await WorldStore.open(scope);
  } catch (err) {
    hud.showMessage(`${(err as Error).message}`);
  }
  const saved = await loadSavedPlayer(store, scope, (err) => hud.showMessage(err.message));
  const renderDistance = cfg.renderDistance ?? clampRenderDistance((await store?.loadSetting<number>('renderDistance')) ?? DEFAULT_RENDER_DISTANCE);

  // The view (its WebGL context, materials and mesh workers) is made while the join runs: it
  // waits for nothing of the network.
  const world = new WorldModel();
  let view: WorldView;
  try {
    view = await createView(document.getElementById('game')!, world, { headless: cfg.headless, renderDistance });
    performance.mark('vp:view');
  } catch (err) {
    if (!(err instanceof DrawingUnavailable)) throw err;
    cannotDraw(loading, err);
    return;
  }

  let peer: Peer | null = null;
  let net: NetSession | null = null;
  // A drawing page's clock probes (its player's and its host's) go out at the top of frames it skips.
  const probeGate = cfg.headless ? null : new ProbeFrameGate(clock, PROBE_WAIT_MS);
  if (joining) {
    loading.progress('Joining the peer network…', 0.05);
    try {
      peer = await joining;
      if (peer.failure && !problem && !outdated) {
        explainStart(loading, hud, cfg, peer.failure);
        // Judged anew (taken for blocked, it gathered late): said again while the player has not chosen.
        peer.onFailure((f) => { if (loading.problemShown) explainStart(loading, hud, cfg, f); });
      }
      if (cfg.hosting) net = await startNetSession(peer, cfg, clock, ticker, work ? { work } : {}, probeGate);
    } catch (err) {
      hud.showMessage(`Could not join the peer network, playing alone: ${(err as Error).message}`);
    }
  } else {
    loading.stage('doorway', 'skipped', 'offline (net=off)');
  }
  // With the network, chunks come from their hosts (this tab may be one); without it, from disk.
  const source: ChunkSource = net ? net.source : new LocalChunkSource(cfg.seed, store);
  const streamer = new ChunkStreamer(world, source);
  const session = await startSession(world, saved, net, cfg.seed);
  performance.mark('vp:spawn');
  const editor = new BlockEditor(world, source, () => session.body);
  const items = new PageItems({ cfg, world, session, view, probeGate: probeGate ?? undefined, hudRoot: document.getElementById('hud')!, self: peer?.id ?? 'me', net: net ? { client: net.client, wire: net.items.wire, signer: net.peer.identity, recorded: async () => (await net.fetchPlayer())?.items } : undefined, onMessage: (text) => hud.showMessage(text, 'notice') });
  const savePlayer = keepPlayerSaved({ scope, session, store, net, onError: (err) => hud.showMessage(err.message), held: () => items.held() });
  const look = net ? { name: net.source.opts.name, colour: net.source.colour, setName: (n: string) => net.source.setName(n), setColour: (c?: number) => net.source.setColour(c) } : undefined;
  // `who` is read only once the page runs (a /msg looks its name up in the who list).
  const chat = net ? new PageChat(cfg, net, session, () => who.rows()) : null;
  // Other players as drawn; their edits and avatars are wired below.
  const remote = new RemotePlayers();
  let netApi: NetApi | undefined;
  const who = new PageWho({ headless: cfg.headless, players: () => remote.sample(performance.now()), self: () => session.body, links: () => netApi?.links() ?? [] });
  const controls = new PlayerControls({ cfg, hud, session, editor, view, store, peer, renderDistance, itemKeys: items.keys, who, ...(look ? { look } : {}), ...(chat ? { chat } : {}) });
  controls.sound?.watchHeld(() => items.api.inventory());
  startLook?.handOver((look) => controls.choose(look));
  chat?.onShown((own) => controls.sound?.chatLine(own));

  // Other players' edits and avatars reach the world model and the smoother in play/ (the
  // local source sends no block changes).
  feedWorld(source, world);
  if (net) feedRemotePlayers(net.source, remote, () => performance.now());

  const status = new PlayerStatus({ cfg, hud, loading, peer, net, world, session, streamer, view, remote, hostingNote, renderDistance: () => controls.renderDistance });
  const loop = new FrameLoop({ world, session, streamer, view, remote, net, controls, status, loading, items, headless: cfg.headless, maxFps: () => cfg.maxFps ?? controls.settings.maxFps });
  loop.start();

  const api = createVoxelApi({
    world, session, editor, ready: loop.ready, savePlayer,
    setRenderDistance: (n) => controls.setRenderDistance(n),
    onSelect: (i) => hud.select(i),
    stats: () => ({ fps: loop.fps, chunksLoaded: world.size, chunksPending: streamer.pending, readyMs: loop.readyMs, unsettledEdits: editor.unsettled, tentativeEdits: net?.source.tentative.size ?? 0, gapFrames: loop.gapFrames, frames: loop.frames, ...view.stats(), ...(worked ? { playerKeyMs: worked.ms, playerKeyMinted: worked.minted ? 1 : 0 } : {}) }),
    tentative: () => net?.source.tentative.list() ?? [],
  });
  if (peer) {
    const joined = peer;
    api.net = netApi = createNetApi(joined);
    api.invite = () => inviteLinkFor(joined, cfg, location.href.split('#')[0]!);
  }
  api.items = items.api;
  api.settings = () => controls.settings;
  api.setName = (name) => controls.choose({ name });
  api.setColour = (colour) => controls.choose({ colour });
  api.avatars = () => view.avatars();
  if (chat) api.chat = chat.api;
  api.who = () => who.rows();
  api.hostingMode = () => ({ mode: !cfg.net ? 'alone' : !cfg.hosting ? 'off' : cfg.playOnly ? 'play' : 'host', chosen: cfg.hostingChosen });
  api.moveInput = () => controls.input?.moveInput() ?? null;
  api.fullscreen = () => controls.fullscreen?.state ?? null;
  api.startProblem = () => document.querySelector<HTMLElement>('#loading .problem:not([hidden])')?.dataset.kind;
  if (net) {
    api.hosting = createHostingApi(net, remote, clock, ticker);
    addEventListener('pagehide', () => net?.stop());
  }
  window.voxel = api;
}

/** The page cannot draw: the start screen says why and what to do, with Retry and no "play alone" (there is nothing to play in). */
function cannotDraw(loading: StartScreen, err: DrawingUnavailable): void {
  loading.stage('terrain', 'failed', 'no WebGL2');
  loading.problem({ kind: err.kind, detail: err.message, retry: () => location.reload(), alone: false });
}

main().catch((err: unknown) => {
  console.error(err);
  new StartScreen(document.getElementById('loading')!, '').fail(`Voxel Populi could not start: ${err instanceof Error ? err.message : String(err)}`);
});
