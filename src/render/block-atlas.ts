// The block textures, drawn in code at start-up (nothing downloaded): one 16 x 16 RGBA tile
// per entry of block-tiles.ts TILES, stacked as the layers of one texture array. Each tile
// starts from its block's registry colour and adds a small pattern (noise, stone blotches,
// brick courses, plank boards, ...), deterministic so every tab draws the same world.
// Pure and DOM-free (a Uint8Array out); atlas-material.ts uploads it.
import { TILES, type TileSpec } from './block-tiles';

export const TILE_SIZE = 16;

export interface BlockAtlas {
  /** TILE_SIZE x TILE_SIZE x layers texels, RGBA, sRGB; row 0 is the bottom of a tile. */
  readonly data: Uint8Array;
  readonly size: number;
  readonly layers: number;
}

/** Deterministic per-texel noise in [0, 1). */
function hash(layer: number, x: number, y: number, salt = 0): number {
  let h = Math.imul(layer * 374761393 + x * 668265263 + y * 2246822519 + salt * 3266489917, 1) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

type Texel = [r: number, g: number, b: number, a: number];

function rgb(hex: number, scale: number, alpha = 1): Texel {
  const c = (v: number) => Math.max(0, Math.min(255, Math.round(v * scale)));
  return [c((hex >> 16) & 0xff), c((hex >> 8) & 0xff), c(hex & 0xff), Math.round(alpha * 255)];
}

/** The texel at (x, y) of a tile, y = 0 at the bottom. */
function texel(spec: TileSpec, layer: number, x: number, y: number): Texel {
  const n = hash(layer, x, y);
  const S = TILE_SIZE;
  switch (spec.pattern) {
    case 'noise':
      return rgb(spec.colour, 0.86 + n * 0.24);
    case 'speckle':
      return rgb(spec.colour, n < 0.15 ? 0.7 : n > 0.9 ? 1.2 : 0.92 + n * 0.12);
    case 'grass-side': {
      // The band hangs 2-5 texels down, ragged per column.
      const band = S - 2 - Math.floor(hash(layer, x, 0, 7) * 4);
      return y >= band ? rgb(spec.accent, 0.86 + n * 0.24) : rgb(spec.colour, 0.86 + n * 0.24);
    }
    case 'stone': {
      const blot = hash(layer, x >> 2, y >> 2, 3);
      return rgb(spec.colour, 0.82 + blot * 0.16 + n * 0.1);
    }
    case 'cobble': {
      // Round stones in a 4 x 4 grid, odd rows shifted, with dark joints.
      const row = y >> 2, sx = (x + (row & 1) * 2) & 3, sy = y & 3;
      const joint = sx === 3 || sy === 3;
      const stone = hash(layer, (x + (row & 1) * 2) >> 2, row, 5);
      return rgb(spec.colour, joint ? 0.55 : 0.85 + stone * 0.3 + n * 0.08);
    }
    case 'brick': {
      // Courses 4 texels high, bricks 8 wide, every other course offset by half a brick.
      const row = y >> 2, bx = (x + (row & 1) * 4) & 7;
      const mortar = (y & 3) === 3 || bx === 7;
      return mortar ? rgb(0xc8c0b0, 0.8 + n * 0.15) : rgb(spec.colour, 0.88 + hash(layer, (x + (row & 1) * 4) >> 3, row, 9) * 0.18 + n * 0.06);
    }
    case 'planks': {
      // Boards 4 texels high with a dark seam, each a little lighter or darker, some grain.
      const board = y >> 2;
      const seam = (y & 3) === 0 || ((x + board * 5) & 15) === 0;
      const grain = hash(layer, x >> 1, y, 11) < 0.2 ? 0.9 : 1;
      return rgb(spec.colour, seam ? 0.62 : (0.9 + hash(layer, board, 0, 13) * 0.15) * grain + n * 0.04);
    }
    case 'bark': {
      const stripe = hash(layer, x, 0, 17);
      return rgb(spec.colour, 0.72 + stripe * 0.3 + n * 0.1);
    }
    case 'rings': {
      const d = Math.max(Math.abs(x - 7.5), Math.abs(y - 7.5));
      const ring = Math.floor(d) % 3 === 0 ? 0.82 : 1;
      return rgb(spec.colour, d > 6.5 ? 0.6 : ring * (0.92 + n * 0.1));
    }
    case 'leaves':
      // Dark holes read as depth inside a tree; slightly see-through like the old pass.
      return rgb(spec.colour, n < 0.22 ? 0.55 : 0.8 + n * 0.35, n < 0.08 ? 0.55 : 0.92);
    case 'glass': {
      const frame = x === 0 || y === 0 || x === S - 1 || y === S - 1;
      const glint = (x === y || x === y + 1) && x > 3 && x < 9;
      return frame ? rgb(spec.colour, 0.85, 0.9) : glint ? rgb(0xffffff, 1, 0.55) : rgb(spec.colour, 1, 0.18);
    }
    case 'water': {
      // Soft ripples: see-through and tinted, lighter crests.
      const wave = Math.sin((x + y * 0.5) * 0.8 + hash(layer, 0, y >> 2, 19) * 3) * 0.5 + 0.5;
      return rgb(spec.colour, 0.9 + wave * 0.18 + n * 0.05, 0.62 + wave * 0.08);
    }
  }
}

export function buildBlockAtlas(tiles: readonly TileSpec[] = TILES): BlockAtlas {
  const size = TILE_SIZE;
  const data = new Uint8Array(size * size * 4 * tiles.length);
  tiles.forEach((spec, layer) => {
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) data.set(texel(spec, layer, x, y), ((layer * size + y) * size + x) * 4);
    }
  });
  return { data, size, layers: tiles.length };
}
