// The three.js view of the world: scene, camera, sky, terrain meshes and the block
// highlight, drawn by one WebGLRenderer. Network-ignorant (noa-engine style): the app
// decides which columns exist and calls setChunk / removeChunk / markBlockChanged; where
// a column came from is none of the renderer's business. Meshing runs in the worker pool.
import { BufferGeometry, Float32BufferAttribute, Group, Mesh, PerspectiveCamera, Scene, WebGLRenderer } from 'three';
import { createTerrainMaterials, type TerrainMaterialSet } from './atlas-material';
import { BlockHighlight } from './block-highlight';
import { ItemModels } from './item-models';
import { MesherPool } from './mesher-pool';
import { Sky, viewDistance } from './sky';
import { TerrainScene, type TerrainStats } from './terrain-scene';
import { WORLD_RENDERER_DEFAULTS } from './world-renderer-defaults';

/** Cap: a 3x-DPR phone would otherwise shade 9x the pixels for little gain. */
const MAX_PIXEL_RATIO = 2;

/** The slice of WebGLRenderer used here; tests may pass a stand-in (without the warm-up's two). */
export type Renderer = Pick<WebGLRenderer, 'render' | 'setSize' | 'setPixelRatio' | 'info' | 'dispose'> & Partial<Pick<WebGLRenderer, 'compileAsync' | 'initTexture'>>;

export interface WorldRendererOptions {
  /** Where to draw; ignored when `renderer` is given. */
  readonly canvas?: HTMLCanvasElement;
  readonly renderer?: Renderer;
  /** Default: a pool of module workers sized to the machine. */
  readonly pool?: MesherPool;
  readonly renderDistance?: number;
  readonly ambientOcclusion?: boolean;
}

export interface RenderStats extends TerrainStats {
  /** Of the last rendered frame. */
  drawCalls: number;
  triangles: number;
  /** Geometries alive on the GPU: returns to its baseline when chunks are removed. */
  geometries: number;
  /** Textures on the GPU (the block atlas is one, once a frame has used it). */
  textures: number;
  /** Layers of the block texture array the terrain materials sample. */
  atlasLayers: number;
  /** Terrain shader programs compiled with the block atlas (opaque and transparent: 2). */
  atlasPrograms: number;
}

export class WorldRenderer {
  readonly scene = new Scene();
  readonly camera: PerspectiveCamera;
  readonly highlight = new BlockHighlight();
  /** Items lying in the world (the app syncs them each frame). */
  readonly items = new ItemModels();
  readonly renderer: Renderer;
  private readonly terrain: TerrainScene;
  private readonly sky: Sky;
  private readonly pool: MesherPool;
  private readonly ownsPool: boolean;
  private readonly materials: TerrainMaterialSet;
  private renderDistance: number;

  constructor(options: WorldRendererOptions = {}) {
    this.renderDistance = options.renderDistance ?? WORLD_RENDERER_DEFAULTS.renderDistance;
    this.renderer = options.renderer ?? new WebGLRenderer({ canvas: options.canvas, antialias: false, powerPreference: 'high-performance' });
    this.ownsPool = !options.pool;
    this.pool = options.pool ?? new MesherPool();
    this.camera = new PerspectiveCamera(WORLD_RENDERER_DEFAULTS.fov, 1, 0.1, 1000);
    this.camera.position.set(8, 80, 8);
    this.sky = new Sky(this.scene, this.renderDistance);
    this.materials = createTerrainMaterials(undefined, WORLD_RENDERER_DEFAULTS.transparentOpacity);
    this.terrain = new TerrainScene({
      pool: this.pool,
      materials: this.materials,
      ambientOcclusion: options.ambientOcclusion ?? WORLD_RENDERER_DEFAULTS.ambientOcclusion,
    });
    this.scene.add(this.terrain.group, this.highlight.object, this.items.group);
    this.setRenderDistance(this.renderDistance);
  }

  /**
   * Compiles the terrain's shader programs (with the scene's lights and fog, as a frame would)
   * and uploads the block atlas now, before any terrain is there: the page calls it while it
   * joins. Left to the first frame that draws terrain, both were on the first frame's path
   * (vp:near-meshed to vp:ready, software WebGL: 0.2-3 s on a loaded machine). Nothing is
   * drawn; resolves once the programs are ready (at once with a stand-in renderer).
   */
  async warm(): Promise<void> {
    if (!this.renderer.compileAsync) return;
    this.renderer.initTexture?.(this.materials.atlas);
    // A section's attributes (section-geometry.ts): the program a material gets depends on them.
    const geometry = new BufferGeometry();
    for (const [name, size] of [['position', 3], ['normal', 3], ['color', 3], ['tile', 1]] as const) geometry.setAttribute(name, new Float32BufferAttribute(new Float32Array(3 * size), size));
    const probe = new Group().add(new Mesh(geometry, this.materials.opaque), new Mesh(geometry, this.materials.transparent));
    try {
      await this.renderer.compileAsync(probe, this.camera, this.scene);
    } finally {
      geometry.dispose();
    }
  }

  /** Shows a column; `blocks` is kept by reference (call markBlockChanged after edits). */
  setChunk(cx: number, cz: number, blocks: Uint8Array): void {
    this.terrain.setChunk(cx, cz, blocks);
  }

  /** Hides a column, cancels its meshing and frees its geometry. */
  removeChunk(cx: number, cz: number): void {
    this.terrain.removeChunk(cx, cz);
  }

  hasChunk(cx: number, cz: number): boolean {
    return this.terrain.hasChunk(cx, cz);
  }

  /** True when a loaded column is fully drawn (for a loading indicator / ready()). */
  isChunkMeshed(cx: number, cz: number): boolean {
    return this.terrain.isChunkMeshed(cx, cz);
  }

  /** Re-meshes the section of world block (x, y, z), and neighbours when on a border. */
  markBlockChanged(x: number, y: number, z: number): void {
    this.terrain.markBlockChanged(x, y, z);
  }

  /** Resolves when no section is waiting to be meshed. */
  idle(): Promise<void> {
    return this.terrain.idle();
  }

  /** The time of day (sun, sky, light) for world time `worldMs` of the synchronised clock. */
  setWorldTime(worldMs: number): void {
    this.sky.setTime(worldMs);
  }

  /** Fog, sky and far plane follow the render distance (in chunks). */
  setRenderDistance(chunks: number): void {
    this.renderDistance = chunks;
    this.sky.setRenderDistance(chunks);
    this.camera.far = viewDistance(chunks) * 1.3 + 32;
    this.camera.updateProjectionMatrix();
  }

  /** Vertical field of view in degrees (the player's setting). */
  setFov(degrees: number): void {
    this.camera.fov = degrees;
    this.camera.updateProjectionMatrix();
  }

  resize(width: number, height: number, pixelRatio = globalThis.devicePixelRatio ?? 1): void {
    this.renderer.setPixelRatio(Math.min(pixelRatio, MAX_PIXEL_RATIO));
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / Math.max(1, height);
    this.camera.updateProjectionMatrix();
  }

  /** Meshing priorities follow the camera; call each frame even when not drawing. */
  follow(): void {
    this.terrain.setFocus(this.camera.position);
    this.terrain.pump();
  }

  /** Draws a frame. Move `camera` first. */
  render(): void {
    this.follow();
    this.sky.follow(this.camera);
    this.materials.setTime(performance.now() / 1000);
    this.renderer.render(this.scene, this.camera);
  }

  stats(): RenderStats {
    const info = this.renderer.info;
    return {
      ...this.terrain.stats,
      drawCalls: info.render.calls,
      triangles: info.render.triangles,
      geometries: info.memory.geometries,
      textures: info.memory.textures,
      atlasLayers: this.materials.layers,
      atlasPrograms: this.materials.programs,
    };
  }

  dispose(): void {
    this.terrain.dispose();
    this.highlight.dispose();
    this.items.dispose();
    this.sky.dispose();
    this.materials.dispose();
    if (this.ownsPool) this.pool.terminate();
    this.renderer.dispose();
  }
}
