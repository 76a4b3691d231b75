import { describe, expect, it } from 'vitest';
import { GLASS, GRASS, LEAVES, STONE, WATER } from '../world/blocks';
import { CHUNK_VOLUME, blockIndex } from '../world/coords';
import { GreedyMesher, type SectionMesh } from './greedy-mesher';
import { AO_LEVEL, FACE_SHADE } from './block-colours';
import { TILE_OF } from './block-tiles';
import { padSection, sectionIsEmpty, type Neighbourhood } from './section-padding';

const column = (): Uint8Array => new Uint8Array(CHUNK_VOLUME);
const put = (col: Uint8Array, x: number, y: number, z: number, id: number): void => {
  col[blockIndex(x, y, z)] = id;
};
/** Centre column plus neighbours keyed "dx,dz"; missing keys are not loaded. */
const around = (centre: Uint8Array, others: Record<string, Uint8Array> = {}): Neighbourhood =>
  (dx, dz) => (dx === 0 && dz === 0 ? centre : others[`${dx},${dz}`]);
/** All 8 neighbours loaded and empty: borders show faces. */
const openAround = (centre: Uint8Array): Neighbourhood => (dx, dz) => (dx === 0 && dz === 0 ? centre : column());

const mesh = (n: Neighbourhood, sy: number, ao = false): SectionMesh => new GreedyMesher({ ambientOcclusion: ao }).mesh(padSection(n, sy));

/** Sum of quad areas along each normal, in faces: merged geometry must cover exactly the naive faces. */
function area(m: SectionMesh, pass: 'opaque' | 'transparent'): number {
  const p = m[pass];
  let total = 0;
  for (let q = 0; q < p.quads; q++) {
    const xs = [0, 1, 2, 3].map((k) => p.positions[(q * 4 + k) * 3]!);
    const ys = [0, 1, 2, 3].map((k) => p.positions[(q * 4 + k) * 3 + 1]!);
    const zs = [0, 1, 2, 3].map((k) => p.positions[(q * 4 + k) * 3 + 2]!);
    const ext = [xs, ys, zs].map((c) => Math.max(...c) - Math.min(...c)).filter((e) => e > 0);
    total += ext[0]! * ext[1]!;
  }
  return total;
}

describe('face rules', () => {
  // face-rules.ts: the face of block a towards neighbour b is drawn iff a is not air, b does
  // not hide it (b is not opaque), and a !== b.
  it('draws faces only from a block into something that does not hide it', () => {
    const faces = (a: number, b: number): number => {
      const c = column();
      put(c, 5, 5, 5, a);
      put(c, 6, 5, 5, b);
      return mesh(openAround(c), 0).naiveFaces;
    };
    expect(faces(STONE, 0)).toBe(6);
    expect(faces(STONE, STONE)).toBe(10);
    expect(faces(STONE, WATER), 'stone towards water, not water towards stone').toBe(11);
    expect(faces(WATER, WATER)).toBe(10);
    expect(faces(GLASS, GLASS)).toBe(10);
    expect(faces(GLASS, LEAVES)).toBe(12);
  });
});

describe('greedy mesher', () => {
  it('draws 6 faces for a lone block, with outward winding', () => {
    const c = column();
    put(c, 5, 5, 5, STONE);
    const m = mesh(openAround(c), 0);
    expect(m.naiveFaces).toBe(6);
    expect(m.opaque.quads).toBe(6);
    expect(m.transparent.quads).toBe(0);
    // Every triangle's geometric normal must match the stored normal (front faces out).
    const p = m.opaque;
    for (let t = 0; t < p.indices.length; t += 3) {
      const [i0, i1, i2] = [p.indices[t]!, p.indices[t + 1]!, p.indices[t + 2]!];
      const v = (i: number, k: number): number => p.positions[i * 3 + k]!;
      const e1 = [0, 1, 2].map((k) => v(i1, k) - v(i0, k));
      const e2 = [0, 1, 2].map((k) => v(i2, k) - v(i0, k));
      const cross = [e1[1]! * e2[2]! - e1[2]! * e2[1]!, e1[2]! * e2[0]! - e1[0]! * e2[2]!, e1[0]! * e2[1]! - e1[1]! * e2[0]!];
      const n = [0, 1, 2].map((k) => p.normals[i0 * 3 + k]!);
      expect(cross[0]! * n[0]! + cross[1]! * n[1]! + cross[2]! * n[2]!).toBeGreaterThan(0);
    }
  });

  it('draws no face between two adjacent solid blocks and merges the rest', () => {
    const c = column();
    put(c, 5, 5, 5, STONE);
    put(c, 6, 5, 5, STONE);
    const m = mesh(openAround(c), 0);
    expect(m.naiveFaces).toBe(10);
    expect(m.opaque.quads).toBe(6); // 4 long sides merged + 2 ends
    expect(area(m, 'opaque')).toBe(10);
    // No quad lies on the shared plane x = 6.
    const p = m.opaque;
    for (let q = 0; q < p.quads; q++) {
      const xs = [0, 1, 2, 3].map((k) => p.positions[(q * 4 + k) * 3]!);
      expect(xs.every((x) => x === 6)).toBe(false);
    }
  });

  it('merges a flat 16 x 16 layer into a handful of quads', () => {
    const c = column();
    for (let x = 0; x < 16; x++) for (let z = 0; z < 16; z++) put(c, x, 3, z, STONE);
    const m = mesh(openAround(c), 0);
    expect(m.naiveFaces).toBe(256 * 2 + 16 * 4);
    expect(m.opaque.quads).toBeLessThanOrEqual(6);
    expect(area(m, 'opaque')).toBe(m.naiveFaces);
  });

  it('keeps merged geometry covering exactly the naive faces, with AO on', () => {
    const c = column();
    // A bumpy little heightmap exercises AO splits.
    for (let x = 0; x < 16; x++) for (let z = 0; z < 16; z++) for (let y = 0; y <= ((x * 7 + z * 3) % 5); y++) put(c, x, y + 1, z, STONE);
    const m = mesh(openAround(c), 0, true);
    expect(area(m, 'opaque')).toBe(m.naiveFaces);
    expect(m.quads).toBeLessThan(m.naiveFaces);
  });

  it('treats a solid block across the section border (y 15 / 16) as hiding the face', () => {
    const c = column();
    put(c, 4, 15, 4, STONE); // top of section 0
    put(c, 4, 16, 4, STONE); // bottom of section 1
    const lower = mesh(openAround(c), 0);
    const upper = mesh(openAround(c), 1);
    expect(lower.naiveFaces).toBe(5);
    expect(upper.naiveFaces).toBe(5);
    // Section 0 has no +y face; section 1 has no -y face.
    const normalsY = (m: SectionMesh): number[] => Array.from({ length: m.opaque.quads }, (_, q) => m.opaque.normals[q * 12 + 1]!);
    expect(normalsY(lower)).not.toContain(1);
    expect(normalsY(upper)).not.toContain(-1);
  });

  it('hides a face at x = 15 against a solid neighbour column, shows it against air', () => {
    const c = column();
    put(c, 15, 8, 8, STONE);
    const solidEast = column();
    put(solidEast, 0, 8, 8, STONE);
    expect(mesh(around(c, { '1,0': solidEast, '-1,0': column(), '0,1': column(), '0,-1': column() }), 0).naiveFaces).toBe(5);
    expect(mesh(around(c, { '1,0': column(), '-1,0': column(), '0,1': column(), '0,-1': column() }), 0).naiveFaces).toBe(6);
  });

  it('draws no face towards a neighbour column that is not loaded yet', () => {
    const c = column();
    put(c, 0, 8, 0, STONE);
    expect(mesh(around(c), 0).naiveFaces).toBe(4); // -x and -z unknown
    // and the caller's remesh after the neighbours arrive shows them
    expect(mesh(openAround(c), 0).naiveFaces).toBe(6);
  });

  it('hides the bottom of the world and shows the top', () => {
    const c = column();
    put(c, 3, 0, 3, STONE);
    put(c, 3, 255, 3, STONE);
    expect(mesh(openAround(c), 0).naiveFaces).toBe(5);
    expect(mesh(openAround(c), 15).naiveFaces).toBe(6);
  });

  it('writes each face\'s atlas tile into its vertices: a grass top is grass, its sides the grass side', () => {
    const c = column();
    put(c, 4, 4, 4, GRASS);
    const p = mesh(openAround(c), 0).opaque;
    expect(p.tiles.length).toBe(p.quads * 4);
    expect(TILE_OF[GRASS * 6 + 2]).not.toBe(TILE_OF[GRASS * 6]);
    for (let q = 0; q < p.quads; q++) {
      const ny = p.normals[q * 12 + 1]!, nx = p.normals[q * 12]!, nz = p.normals[q * 12 + 2]!;
      const face = nx ? (nx > 0 ? 0 : 1) : ny ? (ny > 0 ? 2 : 3) : nz > 0 ? 4 : 5;
      for (let k = 0; k < 4; k++) expect(p.tiles[q * 4 + k]).toBe(TILE_OF[GRASS * 6 + face]);
      // Vertex colour is the light alone (grey): the texture carries the colour.
      expect(p.colors[q * 12]).toBeCloseTo(FACE_SHADE[face]!);
      expect(p.colors[q * 12 + 1]).toBe(p.colors[q * 12]);
    }
  });

  it('darkens the floor\'s corners against a wall and merges only faces of equal shading', () => {
    const c = column();
    for (let x = 0; x < 16; x++) for (let z = 0; z < 16; z++) put(c, x, 1, z, STONE);
    for (let x = 0; x < 16; x++) put(c, x, 2, 8, STONE); // a wall across the floor
    const flat = mesh(openAround(c), 0, false);
    const ao = mesh(openAround(c), 0, true);
    expect(area(ao, 'opaque')).toBe(ao.naiveFaces);
    // Shaded rows along the wall cannot merge with the open floor: more quads than without AO...
    expect(ao.opaque.quads).toBeGreaterThan(flat.opaque.quads);
    // ...but a row of equal shading still merges along the wall (not one quad per face).
    expect(ao.opaque.quads).toBeLessThan(flat.opaque.quads + 16);
    // Some floor vertex at the wall's foot is darker than its face's shade; none without AO.
    const darker = (m: SectionMesh) => {
      let n = 0;
      for (let v = 0; v < m.opaque.quads * 4; v++) if (m.opaque.normals[v * 3 + 1] === 1 && m.opaque.colors[v * 3]! < FACE_SHADE[2] - 1e-6) n++;
      return n;
    };
    expect(darker(flat)).toBe(0);
    expect(darker(ao)).toBeGreaterThan(0);
    expect(Math.min(...ao.opaque.colors)).toBeGreaterThanOrEqual(FACE_SHADE[3] * AO_LEVEL[0] - 1e-6);
  });

  it('draws a lake as one surface: water faces only against air, in the transparent pass', () => {
    const c = column();
    for (let x = 0; x < 16; x++) for (let z = 0; z < 16; z++) {
      put(c, x, 2, z, STONE);
      put(c, x, 3, z, WATER);
      put(c, x, 4, z, WATER);
    }
    const n: Neighbourhood = (dx, dz) => (dx === 0 && dz === 0 ? c : c); // same lake all around
    const m = mesh(n, 0);
    expect(m.transparent.quads).toBe(1); // just the surface
    expect(area(m, 'transparent')).toBe(256);
    const p = m.transparent;
    for (let k = 0; k < 4; k++) expect(p.positions[k * 3 + 1]).toBe(5);
    expect(p.normals[1]).toBe(1);
    // Stone under water still shows its top (water does not hide it), and its bottom.
    expect(m.opaque.quads).toBe(2);
  });

  it('does not merge different blocks or different directions', () => {
    const c = column();
    put(c, 1, 1, 1, STONE);
    put(c, 2, 1, 1, GLASS);
    const m = mesh(openAround(c), 0);
    expect(m.opaque.quads).toBe(6); // stone shows its face toward the glass too
    expect(m.transparent.quads).toBe(5); // glass hides nothing behind it but stone hides the glass face
  });

  it('draws nothing for an all-air section, and detects it cheaply', () => {
    const c = column();
    expect(sectionIsEmpty(c, 4)).toBe(true);
    put(c, 0, 64, 0, STONE);
    expect(sectionIsEmpty(c, 4)).toBe(false);
    expect(mesh(openAround(column()), 4).quads).toBe(0);
  });

  it('reuses scratch buffers between sections without leaking quads', () => {
    const mesher = new GreedyMesher();
    const c = column();
    put(c, 1, 1, 1, STONE);
    const a = mesher.mesh(padSection(openAround(c), 0));
    const b = mesher.mesh(padSection(openAround(c), 0));
    expect(b.opaque.positions).toEqual(a.opaque.positions);
    expect(b.opaque.quads).toBe(6);
  });
});
