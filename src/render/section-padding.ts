// Builds the padded 18 x 18 x 18 block volume the mesher reads: one 16-cube section plus
// a one-block shell taken from the sections above and below (same column) and from the
// neighbouring columns. The mesher then never asks "is this cell in another chunk?",
// and the worker receives 5.8 KB instead of five 64 KB columns.
import { CHUNK_HEIGHT, CHUNK_SIZE, SECTION_HEIGHT } from '../world/coords';
import { HIDDEN, OPAQUE } from './face-rules';

export const PAD = SECTION_HEIGHT + 2;
export const PAD_VOLUME = PAD * PAD * PAD;

/** Columns around the one being meshed: dx, dz in -1..1; undefined = not loaded. */
export type Neighbourhood = (dx: number, dz: number) => Uint8Array | undefined;

/** Index into a padded volume; x, y, z run from -1 to 16. y-major like a chunk. */
export function padIndex(x: number, y: number, z: number): number {
  return ((y + 1) * PAD + (z + 1)) * PAD + (x + 1);
}

/** True when section sy of a column holds only air: nothing to draw, skip the worker. */
export function sectionIsEmpty(column: Uint8Array, sy: number): boolean {
  const start = sy * SECTION_HEIGHT * CHUNK_SIZE * CHUNK_SIZE;
  const end = start + SECTION_HEIGHT * CHUNK_SIZE * CHUNK_SIZE;
  for (let i = start; i < end; i++) if (column[i] !== 0) return false;
  return true;
}

/**
 * True when every cell of a padded section, shell included, hides what is behind it: no
 * face can be drawn (a face needs a see-through neighbour: face-rules.ts), so the section
 * needs no worker. Most of a column is such: the stone under the surface, which the
 * mesher otherwise scanned cell by cell (65% of the non-empty sections around a spawn).
 */
export function sectionIsHidden(padded: Uint8Array): boolean {
  for (let i = 0; i < padded.length; i++) if (OPAQUE[padded[i]!] === 0) return false;
  return true;
}

// Which column and local coordinate a padded x (or z) of -1..16 reads from.
function side(p: number): [d: number, local: number] {
  return p < 0 ? [-1, CHUNK_SIZE - 1] : p >= CHUNK_SIZE ? [1, 0] : [0, p];
}

export function padSection(around: Neighbourhood, sy: number, out: Uint8Array = new Uint8Array(PAD_VOLUME)): Uint8Array {
  const column = around(0, 0);
  if (!column) throw new Error('padSection: the centre column is required');
  // Ask for each neighbour once, not once per cell.
  const cols = [-1, 0, 1].flatMap((dz) => [-1, 0, 1].map((dx) => around(dx, dz)));
  const west = cols[3];
  const east = cols[5];
  const S = CHUNK_SIZE;
  const y0 = sy * SECTION_HEIGHT;
  for (let y = -1; y <= SECTION_HEIGHT; y++) {
    const wy = y0 + y;
    // Below the world nobody looks; above it is sky.
    if (wy < 0 || wy >= CHUNK_HEIGHT) {
      out.fill(wy < 0 ? HIDDEN : 0, padIndex(-1, y, -1), padIndex(-1, y + 1, -1));
      continue;
    }
    const rowBase = wy * S * S;
    for (let z = -1; z <= S; z++) {
      const [dz, lz] = side(z);
      if (dz === 0) {
        // Fast path: the 16 inner cells of this row come straight from the column.
        const src = rowBase + lz * S;
        out.set(column.subarray(src, src + S), padIndex(0, y, z));
        out[padIndex(-1, y, z)] = west ? west[src + S - 1]! : HIDDEN;
        out[padIndex(S, y, z)] = east ? east[src]! : HIDDEN;
        continue;
      }
      for (let x = -1; x <= S; x++) {
        const [dx, lx] = side(x);
        const col = cols[(dz + 1) * 3 + dx + 1];
        out[padIndex(x, y, z)] = col ? col[rowBase + lz * S + lx]! : HIDDEN;
      }
    }
  }
  return out;
}
