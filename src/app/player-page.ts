// The player page once its entry (player.ts) has put up the start screen and begun the
// join: opens the world database, makes the view while the join runs, takes the joined peer
// into the shared world, and wires the world model, its chunk source, the renderer, the
// controls and HUD (player-controls.ts, player-status.ts), the frame loop (frame-loop.ts)
// and saving (player-saving.ts), and publishes window.voxel. The entry loads it by dynamic
// import: three.js and the renderer come with it, and the join does not wait for them.
import { BlockEditor } from '../play/block-editor';
import type { ChunkSource } from '../play/chunk-source';
import { ChunkStreamer } from '../play/chunk-streamer';
import { LocalChunkSource } from '../play/local-chunk-source';
import { RemotePlayers } from '../play/remote-player-smoother';
import { feedRemotePlayers, feedWorld } from '../play/source-feed';
import { WorldModel } from '../play/world-model';
import { WorldStore } from '../store/world-store';
import type { Hud } from '../ui/hud';
import type { StartScreen } from '../ui/start-screen';
import type { StartLook } from '../ui/start-look';
import type { HostingNote } from '../ui/hosting-note';
import { clampRenderDistance, DEFAULT_RENDER_DISTANCE, type PageConfig } from './config';
import { FrameLoop } from './frame-loop';
import { createHostingApi } from './hosting-api';
import { createNetApi, type NetApi } from './net-api';
import { inviteLinkFor, startNetSession, type NetSession } from './net-session';
import type { InviteProblem } from './join-start';
import type { Peer } from '../bootstrap/peer';
import { PageChat } from './page-chat';
import { PageItems } from './page-items';
import { PageWho } from './page-who';
import { PlayerControls } from './player-controls';
import { keepPlayerSaved, loadSavedPlayer, startSession } from './player-saving';
import { PlayerStatus } from './player-status';
import { cannotDraw, explainStart } from './start-flow';
import type { TabClock } from '../core/tab-clock';
import { PROBE_WAIT_MS, ProbeFrameGate } from '../play/probe-frame-gate';
import { createVoxelApi, type VoxelApi } from './voxel-api';
import type { WorkerTicker } from './worker-ticker';
import { createView, DrawingUnavailable, type WorldView } from './world-view';
import type { PlayerWork } from './key-work-minter';
import { storeScope } from '../store/store-scope';

declare global {
  interface Window {
    voxel: VoxelApi;
  }
}

/** What the entry made and began before this page loaded. */
export interface PageStart {
  cfg: PageConfig;
  ticker: WorkerTicker;
  clock: TabClock;
  loading: StartScreen;
  startLook: StartLook | null;
  hud: Hud;
  hostingNote: HostingNote | null;
  /** The invite's problem, said already (its doorways and peers are not used). */
  problem: InviteProblem | undefined;
  /** The browser cannot check Ed25519 keys, said already. */
  outdated: boolean;
  /** The join begun (null: `?net=off`). */
  joining: Promise<Peer> | null;
  /** The player key's proof of work, begun once the node id was (a page that edits). */
  work: Promise<PlayerWork> | undefined;
}

export async function playPage({ cfg, ticker, clock, loading, startLook, hud, hostingNote, problem, outdated, joining, work }: PageStart): Promise<void> {
  let worked: PlayerWork | undefined;
  void work?.then((w) => void (worked = w), () => undefined);
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
    cannotDraw(loading, err.kind, err.message);
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
