// The player page's frame: move the player by the input, stream the chunks around them,
// tell the network where they are, draw. Until the terrain around the player is drawn the
// start screen shows the progress; then the player steps out of anything built on the
// spot and `ready` resolves. Counts frames, fps, and gap frames (after ready, a column
// missing well inside the render distance: a chunk the player should see is not drawn;
// crossing borders must keep this at 0). The status (player-status.ts) is refreshed every
// 250 ms, once a second in a page that draws nothing (?render=off: a bot or a hosting
// player's spare tab, where each refresh is a DOM write and a frame nobody looks at).
import { wantedColumns } from '../play/chunk-ring';
import type { ChunkStreamer } from '../play/chunk-streamer';
import { boxCollides, NO_INPUT } from '../play/physics';
import type { PlayerSession } from '../play/player-session';
import type { RemotePlayers } from '../play/remote-player-smoother';
import type { WorldModel } from '../play/world-model';
import type { StartScreen } from '../ui/start-screen';
import { SOLID } from '../world/blocks';
import type { NetSession } from './net-session';
import type { PlayerControls } from './player-controls';
import type { PlayerStatus } from './player-status';
import { liftClear } from '../play/spawn-point';
import { FrameCap } from '../render/frame-cap';
import type { WorldView } from './world-view';

/** Columns around the player that must be loaded before the loading screen lifts. */
const READY_RADIUS = 1;
const STATUS_EVERY_MS = 250;
const HEADLESS_STATUS_EVERY_MS = 1000;

export interface FrameLoopParts {
  world: WorldModel;
  session: PlayerSession;
  streamer: ChunkStreamer;
  view: WorldView;
  remote: RemotePlayers;
  net: NetSession | null;
  controls: PlayerControls;
  status: PlayerStatus;
  loading: StartScreen;
  /** Items and the world clock (page-items.ts): the sky, spawns, walking into items, the inventory bar. */
  /** `frameChoice`: 'skip' when a clock probe round goes out now and this frame draws nothing, so the replies find the main thread idle (play/probe-frame-gate.ts), or a frame is held for an item's time; 'due' when an item first shows in it. */
  items?: { frame(frameMs: number): void; frameChoice(frameMs: number): 'skip' | 'due' | 'draw'; notDrawn(): void };
  /** At most this many frames a second (the player's setting, or `?fps=` for the page load); 0: every animation frame. Read each frame, so a changed setting applies at once. */
  maxFps?: () => number;
  /** The page draws nothing (?render=off): its status is refreshed less often. */
  headless?: boolean;
}

export class FrameLoop {
  /** When the terrain around the player was first drawn (performance.now(); NaN until then). */
  readyMs = NaN;
  gapFrames = 0;
  frames = 0;
  fps = 0;
  /** Resolves when the terrain around the player is drawn. */
  readonly ready: Promise<void>;
  private resolveReady!: () => void;
  private last = performance.now();
  private framesThisSecond = 0;
  private fpsSince = this.last;
  private statusAt = 0;
  private nearLoaded = false;
  private readonly cap = new FrameCap();

  constructor(private readonly parts: FrameLoopParts) {
    this.ready = new Promise<void>((resolve) => (this.resolveReady = resolve));
  }

  start(): void {
    this.parts.view.loop((now) => this.frame(now));
  }

  private get isReady(): boolean {
    return !Number.isNaN(this.readyMs);
  }

  private frame(now: number): void {
    const choice = this.parts.items?.frameChoice(now) ?? 'draw';
    if (choice === 'skip') return;
    // A page that draws nothing keeps its fixed tick. An item's first frame is drawn even
    // past the limit: tabs show it at one moment.
    this.cap.set(this.parts.headless ? 0 : (this.parts.maxFps?.() ?? 0));
    if (!this.cap.due(now) && choice !== 'due') {
      this.parts.items?.notDrawn();
      return;
    }
    const { session, streamer, net, view, remote, controls } = this.parts;
    const dt = (now - this.last) / 1000;
    this.last = now;
    const input = controls.input;
    session.step(input?.active ? input.moveInput() : NO_INPUT, dt);
    streamer.update(session.column, controls.renderDistance);
    const b = session.body;
    net?.source.setPosition({ x: b.x, y: b.y, z: b.z, yaw: session.yaw, pitch: session.pitch });
    view.setRemotePlayers(remote.sample(now));
    this.parts.items?.frame(now);
    const draw = this.isReady || this.nearReady();
    // The first drawn frame compiles the terrain's shaders: its cost is the gap to vp:ready.
    if (draw && !this.isReady) performance.mark('vp:near-meshed');
    view.frame(session, draw);
    this.framesThisSecond++;
    this.frames++;
    if (this.isReady && this.innerGap()) this.gapFrames++;
    if (now - this.fpsSince >= 1000) {
      this.fps = (this.framesThisSecond * 1000) / (now - this.fpsSince);
      this.framesThisSecond = 0;
      this.fpsSince = now;
    }
    if (!this.isReady) this.loadingFrame();
    if (now - this.statusAt > (this.parts.headless ? HEADLESS_STATUS_EVERY_MS : STATUS_EVERY_MS)) {
      this.statusAt = now;
      this.parts.status.update(this.fps);
    }
  }

  /** The columns next to the player are loaded and drawn. */
  private nearReady(): boolean {
    const { world, session, view } = this.parts;
    return wantedColumns(session.column, READY_RADIUS).every((c) => world.has(c.cx, c.cz) && view.isColumnDrawn(c.cx, c.cz));
  }

  private innerGap(): boolean {
    const { session, view, controls } = this.parts;
    return wantedColumns(session.column, Math.max(1, controls.renderDistance - 2)).some((c) => !view.isColumnDrawn(c.cx, c.cz));
  }

  private loadingFrame(): void {
    const { world, session, loading, controls } = this.parts;
    const near = wantedColumns(session.column, READY_RADIUS);
    const loaded = near.filter((c) => world.has(c.cx, c.cz)).length;
    loading.progress(`Generating terrain… ${loaded}/${near.length}`, loaded / near.length);
    // The first frame's parts (bench/join-bench.ts reads them): the near columns in the world, then drawn.
    if (loaded === near.length && !this.nearLoaded) {
      this.nearLoaded = true;
      performance.mark('vp:near-loaded');
    }
    if (!this.nearReady()) return;
    this.readyMs = performance.now();
    performance.mark('vp:ready');
    // Something may have been built where the player stands (new or returning): step out on top.
    const b = session.body;
    const solid = (x: number, y: number, z: number) => SOLID[world.blockAt(x, y, z)] === 1;
    if (!session.flying && boxCollides(b.x, b.y, b.z, solid)) session.teleport(b.x, liftClear(solid, b.x, b.y, b.z), b.z);
    loading.stage('terrain', 'done');
    loading.hide();
    controls.showMenuUnlessPlaying();
    this.resolveReady();
  }
}
