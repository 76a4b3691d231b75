// The player page's frame: move the player by the input, stream the chunks around them,
// tell the network where they are, draw. It runs before the page's play (input, network,
// items, status) is attached: the terrain is drawn from the world's seed meanwhile. Until the
// terrain around the player is drawn the start screen shows the progress; then the player
// steps out of anything built on the spot and `ready` resolves. Counts frames, fps, and gap
// frames (after ready, a column missing well inside the render distance; crossing borders
// must keep this at 0). The status (player-status.ts) is refreshed every 250 ms, once a
// second in a page that draws nothing (?render=off: each refresh is a DOM write).
import { wantedColumns } from '../play/chunk-ring';
import type { ChunkStreamer } from '../play/chunk-streamer';
import { NO_INPUT } from '../play/physics';
import type { PlayerSession } from '../play/player-session';
import type { RemotePlayers } from '../play/remote-player-smoother';
import type { WorldModel } from '../play/world-model';
import type { StartScreen } from '../ui/start-screen';
import type { NetSession } from './net-session';
import type { PlayerControls } from './player-controls';
import type { PlayerStatus } from './player-status';
import { stepOutOfBlocks } from '../play/spawn-point';
import { FrameCap } from '../render/frame-cap';
import type { WorldView } from './world-view';

/** Columns around the player that must be loaded before the loading screen lifts. */
const READY_RADIUS = 1;
const STATUS_EVERY_MS = 250;
const HEADLESS_STATUS_EVERY_MS = 1000;
const JOINING_FPS = 5; // once drawn, before the page's play is attached: nothing moves, and the join needs the CPU

export interface FrameLoopParts {
  world: WorldModel;
  session: PlayerSession;
  streamer: ChunkStreamer;
  view: WorldView;
  remote: RemotePlayers;
  loading: StartScreen;
  renderDistance: number; // until the controls are attached (theirs after)
  /** Frames a second at most for the page load (`?fps=`); undefined: the player's setting (0: every frame). Read each frame. */
  maxFps?: () => number | undefined;
  /** The page draws nothing (?render=off): its status is refreshed less often. */
  headless?: boolean;
}

/** What the page attaches once its network is joined (or known absent). */
export interface FramePlay {
  net: NetSession | null;
  controls: PlayerControls;
  status: PlayerStatus;
  /** Items and the world clock (page-items.ts). `frameChoice`: 'skip' when a clock probe round goes out now and this frame draws nothing, so the replies find the main thread idle (play/probe-frame-gate.ts), or a frame is held for an item's time; 'due' when an item first shows in it. */
  items?: { frame(frameMs: number): void; frameChoice(frameMs: number): 'skip' | 'due' | 'draw'; notDrawn(): void };
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
  private play: FramePlay | undefined;

  constructor(private readonly parts: FrameLoopParts) {
    this.ready = new Promise<void>((resolve) => (this.resolveReady = resolve));
  }

  start(): void {
    this.parts.view.loop((now) => this.frame(now));
  }

  /** The page's play is wired (the network joined, or known absent): from the next frame on. */
  attach(play: FramePlay): void {
    this.play = play;
    if (this.isReady) play.controls.showMenuUnlessPlaying();
  }

  private get isReady(): boolean {
    return !Number.isNaN(this.readyMs);
  }

  private frame(now: number): void {
    const play = this.play;
    const choice = play?.items?.frameChoice(now) ?? 'draw';
    if (choice === 'skip') return;
    // A page that draws nothing keeps its fixed tick. An item's first frame is drawn even
    // past the limit: tabs show it at one moment.
    this.cap.set(this.parts.headless ? 0 : !play && this.isReady ? JOINING_FPS : (this.parts.maxFps?.() ?? play?.controls.settings.maxFps ?? 0));
    if (!this.cap.due(now) && choice !== 'due') {
      play?.items?.notDrawn();
      return;
    }
    const { session, streamer, view, remote } = this.parts;
    const dt = (now - this.last) / 1000;
    this.last = now;
    const input = play?.controls.input;
    session.step(input?.active ? input.moveInput() : NO_INPUT, dt);
    // Until the first frame, only the columns it needs (the near ones and their neighbours, whose faces border them).
    streamer.update(session.column, this.isReady ? (play?.controls.renderDistance ?? this.parts.renderDistance) : READY_RADIUS + 1);
    const b = session.body;
    play?.net?.source.setPosition({ x: b.x, y: b.y, z: b.z, yaw: session.yaw, pitch: session.pitch });
    view.setRemotePlayers(remote.sample(now));
    play?.items?.frame(now);
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
    if (play && now - this.statusAt > (this.parts.headless ? HEADLESS_STATUS_EVERY_MS : STATUS_EVERY_MS)) {
      this.statusAt = now;
      play.status.update(this.fps);
    }
  }

  /** The columns next to the player are loaded and drawn. */
  private nearReady(): boolean {
    const { world, session, view } = this.parts;
    return wantedColumns(session.column, READY_RADIUS).every((c) => world.has(c.cx, c.cz) && view.isColumnDrawn(c.cx, c.cz));
  }

  private innerGap(): boolean {
    const { session, view } = this.parts;
    return wantedColumns(session.column, Math.max(1, (this.play?.controls.renderDistance ?? this.parts.renderDistance) - 2)).some((c) => !view.isColumnDrawn(c.cx, c.cz));
  }

  private loadingFrame(): void {
    const { world, session, loading } = this.parts;
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
    stepOutOfBlocks(world, session);
    loading.stage('terrain', 'done');
    // The join's stages as they are now (the regions attached lifts the screen whole, not to a panel).
    this.play?.status.update(this.fps);
    loading.hide();
    this.play?.controls.showMenuUnlessPlaying();
    this.resolveReady();
  }
}
