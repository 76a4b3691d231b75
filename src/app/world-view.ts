// Connects the world model to what the player sees. With rendering on: the three.js
// WorldRenderer follows the model's chunk and block events and the camera follows the
// player. With rendering off (bots, `?render=off`): no WebGL at all, a timer drives the
// loop, and a column counts as drawn as soon as it is loaded.
import type { PlayerSession } from '../play/player-session';
import type { WorldModel } from '../play/world-model';
import type { RemotePlayerSample } from '../play/remote-player-smoother';
import type { ItemSprite } from '../render/item-models';
import { RemoteAvatars, type DrawnAvatar } from '../render/remote-avatars';
import { WorldRenderer } from '../render/world-renderer';
import { hasWebGL2, webglProblemKind, type StartProblemKind } from '../ui/start-screen';
import { VoxelError } from '../core/errors';

export interface ViewStats {
  lastMeshMs: number;
  drawCalls: number;
  triangles: number;
  geometries: number;
  /** Terrain shader programs compiled with the block texture atlas (0 headless). */
  atlasPrograms: number;
  /** Layers of the block texture atlas (0 headless). */
  atlasLayers: number;
}

export interface WorldView {
  readonly canvas: HTMLCanvasElement | null;
  /** Runs `fn` once per frame (animation frames, or a 20 Hz timer when headless). */
  loop(fn: (now: number) => void): void;
  /**
   * Moves the camera to the player's eye, highlights the target and, when `draw`, draws.
   * Behind the loading screen nothing is drawn, so the CPU goes to terrain and meshing.
   */
  frame(session: PlayerSession, draw: boolean): void;
  isColumnDrawn(cx: number, cz: number): boolean;
  /** Other players to draw this frame (already smoothed). */
  setRemotePlayers(players: readonly RemotePlayerSample[]): void;
  /** Other players' avatars as drawn (none when headless). */
  avatars(): DrawnAvatar[];
  setRenderDistance(n: number): void;
  /** Vertical field of view in degrees. */
  setFov(degrees: number): void;
  /** Items lying in the world to draw this frame, turned for world time `worldMs`. */
  setItems(items: readonly ItemSprite[], worldMs: number): void;
  /** The time of day (sun, sky) for world time `worldMs` of the synchronised clock. */
  setWorldTime(worldMs: number): void;
  stats(): ViewStats;
}

export interface ViewOptions {
  headless: boolean;
  renderDistance: number;
}

const HEADLESS_FRAME_MS = 50;

/** The page cannot draw (no WebGL2 context); `kind` says which words the start screen shows. */
export class DrawingUnavailable extends VoxelError {
  /** The start problem's kind (what the start screen says). */
  readonly code: StartProblemKind;
  constructor(readonly kind: StartProblemKind, detail: string) {
    super(detail);
    this.name = 'DrawingUnavailable';
    this.code = kind;
  }
}

export async function createView(container: HTMLElement, world: WorldModel, opts: ViewOptions): Promise<WorldView> {
  if (opts.headless) return headlessView(world);
  const canvas = document.createElement('canvas');
  container.appendChild(canvas);
  let renderer: WorldRenderer;
  try {
    renderer = new WorldRenderer({ canvas, renderDistance: opts.renderDistance });
  } catch (err) {
    // three.js asks for a WebGL2 context and throws "Error creating WebGL context." when it
    // gets none: the player is told why and what to do (ui/start-screen.ts), not shown a
    // generic failure. Anything else (a worker that would not start) stays what it is.
    const message = err instanceof Error ? err.message : String(err);
    if (hasWebGL2() && !/webgl/i.test(message)) throw err;
    canvas.remove();
    throw new DrawingUnavailable(webglProblemKind(hasWebGL2()), message);
  }
  const resize = () => renderer.resize(container.clientWidth || innerWidth, container.clientHeight || innerHeight);
  resize();
  // The terrain's shaders and atlas go to the GPU while the page joins, not in the first frame.
  renderer.warm().catch((err: unknown) => console.warn('terrain warm-up failed', err));
  addEventListener('resize', resize);
  world.events.on('chunkLoaded', (c) => renderer.setChunk(c.cx, c.cz, c.blocks));
  world.events.on('chunkUnloaded', (c) => renderer.removeChunk(c.cx, c.cz));
  world.events.on('blockChanged', (b) => renderer.markBlockChanged(b.x, b.y, b.z));
  const avatars = new RemoteAvatars();
  renderer.scene.add(avatars.group);
  return {
    canvas,
    loop(fn) {
      const tick = (now: number) => {
        fn(now);
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    },
    frame(session, draw) {
      const [x, y, z] = session.eye();
      renderer.camera.position.set(x, y, z);
      renderer.camera.rotation.set(session.pitch, session.yaw, 0, 'YXZ');
      const target = session.target();
      if (target) renderer.highlight.show(target.x, target.y, target.z);
      else renderer.highlight.hide();
      if (draw) renderer.render();
      else renderer.follow();
    },
    isColumnDrawn: (cx, cz) => renderer.isChunkMeshed(cx, cz),
    setRemotePlayers: (players) => avatars.sync(players),
    avatars: () => avatars.drawn(),
    setRenderDistance: (n) => renderer.setRenderDistance(n),
    setFov: (degrees) => renderer.setFov(degrees),
    setItems: (items, worldMs) => renderer.items.sync(items, worldMs),
    setWorldTime: (worldMs) => renderer.setWorldTime(worldMs),
    stats() {
      const stats = renderer.stats();
      return {
        lastMeshMs: stats.lastMeshMs, drawCalls: stats.drawCalls, triangles: stats.triangles, geometries: stats.geometries,
        atlasPrograms: stats.atlasPrograms, atlasLayers: stats.atlasLayers,
      };
    },
  };
}

function headlessView(world: WorldModel): WorldView {
  return {
    canvas: null,
    loop(fn) {
      setInterval(() => fn(performance.now()), HEADLESS_FRAME_MS);
    },
    frame() {},
    isColumnDrawn: (cx, cz) => world.has(cx, cz),
    setRemotePlayers() {},
    avatars: () => [],
    setRenderDistance() {},
    setFov() {},
    setItems() {},
    setWorldTime() {},
    stats: () => ({ lastMeshMs: 0, drawCalls: 0, triangles: 0, geometries: 0, atlasPrograms: 0, atlasLayers: 0 }),
  };
}
