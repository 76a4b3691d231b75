// The player page once its entry (player.ts) has put up the start screen and begun the
// join: opens the world database, makes the view and draws the terrain from the world's seed
// while the join runs (play/seed-first-source.ts), takes the joined peer into the shared
// world (page-network.ts) and merges what the regions' hosts say into the columns drawn, and
// wires the controls and HUD (player-controls.ts, player-status.ts), the frame loop
// (frame-loop.ts) and saving (player-saving.ts), and publishes window.voxel. The entry loads
// it by dynamic import: three.js and the renderer come with it, and the join does not wait
// for them.
import { BlockEditor } from '../play/block-editor';
import type { ChunkSource } from '../play/chunk-source';
import type { TentativeAware } from '../play/block-editor';
import { LocalChunkSource } from '../play/local-chunk-source';
import { RemotePlayers } from '../play/remote-player-smoother';
import { feedRemotePlayers } from '../play/source-feed';
import { WorldModel } from '../play/world-model';
import { WorldStore } from '../store/world-store';
import type { Hud } from '../ui/hud';
import type { StartScreen } from '../ui/start-screen';
import type { StartLook } from '../ui/start-look';
import type { HostingNote } from '../ui/hosting-note';
import { clampRenderDistance, DEFAULT_RENDER_DISTANCE, type PageConfig } from './config';
import { createHostingApi } from './hosting-api';
import { createNetApi, type NetApi } from './net-api';
import { inviteLinkFor } from './net-session';
import type { InviteProblem } from './join-start';
import { joinNetwork, newPlayerHere } from './page-network';
import type { Peer } from '../bootstrap/peer';
import { PageChat } from './page-chat';
import { PageItems } from './page-items';
import { PageWho } from './page-who';
import { PlayerControls } from './player-controls';
import { keepPlayerSaved, loadSavedPlayer } from './player-saving';
import { FirstFrame } from './first-frame';
import { PlayerStatus } from './player-status';
import { cannotDraw } from './start-flow';
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
  /** The player key's proof of work, begun once the node id was and the first frame drawn (a page that edits). */
  work: Promise<PlayerWork> | undefined;
  /** Called once the terrain around the player is first drawn. */
  onDrawn?: () => void;
}

export async function playPage({ cfg, ticker, clock, loading, startLook, hud, hostingNote, problem, outdated, joining, work, onDrawn }: PageStart): Promise<void> {
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

  // A drawing page's clock probes (its player's and its host's) go out at the top of frames it skips.
  const probeGate = cfg.headless ? null : new ProbeFrameGate(clock, PROBE_WAIT_MS);
  // The network, joined while the terrain is drawn from the world's seed (first-frame.ts):
  // the first frame waits for neither the node id nor a region's host.
  if (joining) loading.joinBegun();
  else loading.stage('doorway', 'skipped', 'offline (net=off)');
  const netting = joinNetwork({ cfg, clock, ticker, loading, hud, problem, outdated, joining, work, probeGate });
  const remote = new RemotePlayers();
  const first = new FirstFrame({ cfg, world, view, remote, loading, saved, renderDistance });
  await first.begin(saved !== undefined || !joining || !cfg.hosting || (await newPlayerHere()));
  const { peer, net } = await netting;
  // With the network, chunks come from their hosts (this tab may be one); without it, from disk.
  const source: ChunkSource & Partial<TentativeAware> = net ? net.source : new LocalChunkSource(cfg.seed, store);
  const { session, loop, ready } = await first.attach(net, source);
  const streamer = first.streamer;
  if (onDrawn) void loop.ready.then(onDrawn);
  const editor = new BlockEditor(world, source, () => session.body);
  const items = new PageItems({ cfg, world, session, view, probeGate: probeGate ?? undefined, hudRoot: document.getElementById('hud')!, self: peer?.id ?? 'me', net: net ? { client: net.client, wire: net.items.wire, signer: net.peer.identity, recorded: async () => (await net.fetchPlayer())?.items } : undefined, onMessage: (text) => hud.showMessage(text, 'notice') });
  const savePlayer = keepPlayerSaved({ scope, session, store, net, onError: (err) => hud.showMessage(err.message), held: () => items.held() });
  const look = net ? { name: net.source.opts.name, colour: net.source.colour, setName: (n: string) => net.source.setName(n), setColour: (c?: number) => net.source.setColour(c) } : undefined;
  // `who` is read only once the page runs (a /msg looks its name up in the who list).
  const chat = net ? new PageChat(cfg, net, session, () => who.rows()) : null;
  let netApi: NetApi | undefined;
  const who = new PageWho({ headless: cfg.headless, players: () => remote.sample(performance.now()), self: () => session.body, links: () => netApi?.links() ?? [] });
  const controls = new PlayerControls({ cfg, hud, session, editor, view, store, peer, renderDistance, itemKeys: items.keys, who, ...(look ? { look } : {}), ...(chat ? { chat } : {}) });
  controls.sound?.watchHeld(() => items.api.inventory());
  startLook?.handOver((look) => controls.choose(look));
  chat?.onShown((own) => controls.sound?.chatLine(own));
  if (net) feedRemotePlayers(net.source, remote, () => performance.now());

  const status = new PlayerStatus({ cfg, hud, loading, peer, net, world, session, streamer, view, remote, hostingNote, renderDistance: () => controls.renderDistance });
  loop.attach({ net, controls, status, items });
  loading.playable();
  // Without a session in the shared world no regions stage comes: the join has settled now.
  if (!net) loading.joinSettled();

  const api = createVoxelApi({
    world, session, editor, ready, savePlayer,
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
