// Greedy meshing of one 16-cube section (Mikola Lysenko, "Meshing in a Minecraft game",
// 0fps.net 2012). For each of the 6 face directions and each of the 16 slices, a 16 x 16
// mask records which cells show a face and with what key (block id + the 4 corner
// ambient-occlusion levels); runs of equal keys are then grown into the widest, then
// tallest rectangles and emitted as single quads. Faces merge only when block, direction
// and corner shading agree, so merging never changes what is drawn.
//
// Pure and DOM-free: runs in the mesh worker, in Node tests and in the benchmark. Input is
// a padded 18^3 volume (section-padding.ts), so the border rules live in one place.
import { HIDDEN, OPAQUE, PASS } from './face-rules';
import { PassBuilder, type MeshPass } from './mesh-buffers';
import { PAD, PAD_VOLUME, padIndex } from './section-padding';

const S = 16;
/** Strides of x, y, z in a padded volume. */
const STRIDE = [1, PAD * PAD, PAD] as const;
/** AO bits meaning "all four corners open": used for transparent blocks and AO off. */
const NO_AO = 0xff;

export interface SectionMesh {
  readonly opaque: MeshPass;
  readonly transparent: MeshPass;
  /** Visible faces before merging: the benchmark's greedy-ratio denominator. */
  readonly naiveFaces: number;
  /** Quads after merging, both passes. */
  readonly quads: number;
}

export interface MesherOptions {
  /**
   * Darken corners boxed in by opaque blocks. The game turns it on (world-renderer.ts); it
   * costs ~4 % of meshing time and 55 % more quads on generated terrain (greedy ratio
   * 0.41 -> 0.64, docs/BENCHMARKS.md), since only faces of equal shading merge.
   */
  readonly ambientOcclusion?: boolean;
}

/**
 * Owns the scratch buffers, so one instance per worker (or test) meshes many sections
 * without allocating; instances share nothing.
 */
export class GreedyMesher {
  private readonly mask = new Uint32Array(S * S);
  private readonly passes = [new PassBuilder(), new PassBuilder()] as const;
  private readonly corners = new Float32Array(12);
  private readonly ao: boolean;

  constructor(options: MesherOptions = {}) {
    this.ao = options.ambientOcclusion ?? false;
  }

  mesh(padded: Uint8Array): SectionMesh {
    if (padded.length !== PAD_VOLUME) throw new RangeError(`padded section needs ${PAD_VOLUME} cells, got ${padded.length}`);
    this.passes[0].reset();
    this.passes[1].reset();
    let naiveFaces = 0;
    for (let axis = 0; axis < 3; axis++) {
      for (let neg = 0; neg < 2; neg++) {
        for (let slice = 0; slice < S; slice++) {
          const faces = this.fillMask(padded, axis, neg === 1, slice);
          if (faces === 0) continue;
          naiveFaces += faces;
          this.mergeMask(axis, neg === 1, slice);
        }
      }
    }
    const opaque = this.passes[0].finish();
    const transparent = this.passes[1].finish();
    return { opaque, transparent, naiveFaces, quads: opaque.quads + transparent.quads };
  }

  /** Writes the face keys of one slice into the mask; returns how many faces it holds. */
  private fillMask(P: Uint8Array, axis: number, neg: boolean, slice: number): number {
    const u = (axis + 1) % 3, v = (axis + 2) % 3;
    const sd = STRIDE[axis]!, su = STRIDE[u]!, sv = STRIDE[v]!;
    const step = neg ? -sd : sd;
    const base = padIndex(0, 0, 0) + slice * sd;
    const mask = this.mask;
    let faces = 0;
    for (let b = 0; b < S; b++) {
      for (let a = 0; a < S; a++) {
        const i = base + a * su + b * sv;
        const blk = P[i]!;
        const nb = P[i + step]!;
        // The one face rule (face-rules.ts), inlined: this loop runs 24k times a section.
        if (blk === 0 || blk === HIDDEN || blk === nb || OPAQUE[nb] === 1) {
          mask[a + b * S] = 0;
          continue;
        }
        faces++;
        const ao = this.ao && PASS[blk] === 0 ? cornerOcclusion(P, i + step, su, sv) : NO_AO;
        mask[a + b * S] = blk | (ao << 8);
      }
    }
    return faces;
  }

  /** Grows rectangles of equal keys in the mask and emits one quad per rectangle. */
  private mergeMask(axis: number, neg: boolean, slice: number): void {
    const mask = this.mask;
    const u = (axis + 1) % 3, v = (axis + 2) % 3;
    const face = axis * 2 + (neg ? 1 : 0);
    const plane = neg ? slice : slice + 1;
    const c = this.corners;
    for (let b = 0; b < S; b++) {
      for (let a = 0; a < S; ) {
        const key = mask[a + b * S]!;
        if (key === 0) {
          a++;
          continue;
        }
        let w = 1;
        while (a + w < S && mask[a + w + b * S] === key) w++;
        let h = 1;
        grow: while (b + h < S) {
          const row = (b + h) * S;
          for (let t = 0; t < w; t++) if (mask[a + t + row] !== key) break grow;
          h++;
        }
        for (let r = 0; r < h; r++) mask.fill(0, a + (b + r) * S, a + w + (b + r) * S);
        // Corners (a,b) (a+w,b) (a+w,b+h) (a,b+h): counter-clockwise seen from +axis,
        // because u x v = axis for the cyclic (axis, u, v). A negative face reverses them.
        for (let k = 0; k < 4; k++) {
          const kk = neg ? 3 - k : k;
          c[kk * 3 + axis] = plane;
          c[kk * 3 + u] = a + (k === 1 || k === 2 ? w : 0);
          c[kk * 3 + v] = b + (k >= 2 ? h : 0);
        }
        const ao = key >>> 8;
        const id = key & 0xff;
        this.passes[PASS[id] as 0 | 1].quad(c, face, id, neg ? reverseAo(ao) : ao);
        a += w;
      }
    }
  }
}

/**
 * Occlusion of the 4 corners of a face whose open neighbour cell is at index q, in
 * corner order (0,0) (1,0) (1,1) (0,1) over (u, v): 0fps's vertexAO, 3 = fully open.
 */
function cornerOcclusion(P: Uint8Array, q: number, su: number, sv: number): number {
  const uM = OPAQUE[P[q - su]!]!, uP = OPAQUE[P[q + su]!]!;
  const vM = OPAQUE[P[q - sv]!]!, vP = OPAQUE[P[q + sv]!]!;
  const a0 = level(uM, vM, OPAQUE[P[q - su - sv]!]!);
  const a1 = level(uP, vM, OPAQUE[P[q + su - sv]!]!);
  const a2 = level(uP, vP, OPAQUE[P[q + su + sv]!]!);
  const a3 = level(uM, vP, OPAQUE[P[q - su + sv]!]!);
  return a0 | (a1 << 2) | (a2 << 4) | (a3 << 6);
}

function level(side1: number, side2: number, corner: number): number {
  return side1 && side2 ? 0 : 3 - side1 - side2 - corner;
}

/** A negative face lists its corners in reverse; its AO levels must follow them. */
function reverseAo(ao: number): number {
  return ((ao >> 6) & 3) | (((ao >> 4) & 3) << 2) | (((ao >> 2) & 3) << 4) | ((ao & 3) << 6);
}
