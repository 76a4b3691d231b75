// Growable vertex/index buffers for one render pass of one section, reused between
// sections so a worker allocates only when a section is unusually busy.
import { AO_LEVEL, FACE_SHADE } from './block-colours';
import { TILE_OF } from './block-tiles';

/** One pass (opaque or transparent) of a meshed section, in section-local coordinates. */
export interface MeshPass {
  /** xyz per vertex, 0..16 inside the section. */
  readonly positions: Float32Array;
  /** xyz per vertex, each -1, 0 or 1 (read as floats by WebGL, not normalised). */
  readonly normals: Int8Array;
  /** Linear rgb per vertex, grey: face shade x ambient occlusion (the texture gives colour). */
  readonly colors: Float32Array;
  /** Texture-array layer per vertex (block-tiles.ts TILE_OF). */
  readonly tiles: Uint8Array;
  /** Two triangles per quad; Uint32 only when a pass passes 65536 vertices. */
  readonly indices: Uint16Array | Uint32Array;
  readonly quads: number;
}

const NORMALS: readonly (readonly [number, number, number])[] = [
  [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1],
];

export class PassBuilder {
  private positions = new Float32Array(0);
  private normals = new Int8Array(0);
  private colors = new Float32Array(0);
  private tiles = new Uint8Array(0);
  private quads = 0;
  private flips = new Uint8Array(0);

  constructor(private capacity = 1024) {
    this.allocate(capacity);
  }

  reset(): void {
    this.quads = 0;
  }

  /**
   * Adds one quad. `corners` holds 4 x xyz in counter-clockwise order seen from the
   * front; ao packs the 4 corners' occlusion levels, 2 bits each, in the same order.
   */
  quad(corners: ArrayLike<number>, face: number, id: number, ao: number): void {
    if (this.quads === this.capacity) this.grow();
    const q = this.quads++;
    const n = NORMALS[face]!;
    const shade = FACE_SHADE[face]!;
    const tile = TILE_OF[id * 6 + face]!;
    for (let k = 0; k < 4; k++) {
      const v = q * 4 + k;
      this.positions[v * 3] = corners[k * 3]!;
      this.positions[v * 3 + 1] = corners[k * 3 + 1]!;
      this.positions[v * 3 + 2] = corners[k * 3 + 2]!;
      this.normals[v * 3] = n[0];
      this.normals[v * 3 + 1] = n[1];
      this.normals[v * 3 + 2] = n[2];
      const light = shade * AO_LEVEL[(ao >> (2 * k)) & 3]!;
      this.colors[v * 3] = light;
      this.colors[v * 3 + 1] = light;
      this.colors[v * 3 + 2] = light;
      this.tiles[v] = tile;
    }
    // Split along the diagonal that avoids a darker corner, so AO fades symmetrically
    // instead of smearing along one triangle edge.
    const a0 = ao & 3, a1 = (ao >> 2) & 3, a2 = (ao >> 4) & 3, a3 = (ao >> 6) & 3;
    this.flips[q] = a0 + a2 < a1 + a3 ? 1 : 0;
  }

  /** Copies the filled part out into right-sized arrays the worker can transfer. */
  finish(): MeshPass {
    const quads = this.quads;
    const verts = quads * 4;
    const indices = verts > 65536 ? new Uint32Array(quads * 6) : new Uint16Array(quads * 6);
    for (let q = 0; q < quads; q++) {
      const v = q * 4, i = q * 6;
      if (this.flips[q]) {
        indices[i] = v; indices[i + 1] = v + 1; indices[i + 2] = v + 3;
        indices[i + 3] = v + 1; indices[i + 4] = v + 2; indices[i + 5] = v + 3;
      } else {
        indices[i] = v; indices[i + 1] = v + 1; indices[i + 2] = v + 2;
        indices[i + 3] = v; indices[i + 4] = v + 2; indices[i + 5] = v + 3;
      }
    }
    return {
      positions: this.positions.slice(0, verts * 3),
      normals: this.normals.slice(0, verts * 3),
      colors: this.colors.slice(0, verts * 3),
      tiles: this.tiles.slice(0, verts),
      indices,
      quads,
    };
  }

  private allocate(capacity: number): void {
    const keep = this.quads * 12;
    const positions = new Float32Array(capacity * 12);
    const normals = new Int8Array(capacity * 12);
    const colors = new Float32Array(capacity * 12);
    const tiles = new Uint8Array(capacity * 4);
    const flips = new Uint8Array(capacity);
    positions.set(this.positions.subarray(0, keep));
    normals.set(this.normals.subarray(0, keep));
    colors.set(this.colors.subarray(0, keep));
    tiles.set(this.tiles.subarray(0, this.quads * 4));
    flips.set(this.flips.subarray(0, this.quads));
    this.positions = positions;
    this.normals = normals;
    this.colors = colors;
    this.tiles = tiles;
    this.flips = flips;
    this.capacity = capacity;
  }

  private grow(): void {
    this.allocate(this.capacity * 2);
  }
}

/** Transferable buffers of a pass, so postMessage moves rather than copies them. */
export function passBuffers(p: MeshPass): ArrayBuffer[] {
  return [p.positions.buffer, p.normals.buffer, p.colors.buffer, p.tiles.buffer, p.indices.buffer] as ArrayBuffer[];
}
