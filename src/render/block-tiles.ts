// Which texture tile each face of each block shows. The mesher writes the tile index into
// every vertex (it is part of the merge key already: quads merge only within one block id
// and face direction), the atlas (block-atlas.ts) draws the tiles. Kept apart from the
// pixels so the mesh worker loads this small table and never generates an image.
import { BEDROCK, BLOCKS, BRICK, COBBLE, DIRT, GLASS, GRASS, GRAVEL, LEAVES, PLANKS, SAND, SNOW, STONE, WATER, WOOD } from '../world/blocks';

/** How a tile is drawn (block-atlas.ts has one small generator per pattern). */
export type TilePattern =
  | 'noise' | 'grass-side' | 'stone' | 'cobble' | 'brick' | 'planks' | 'bark' | 'rings'
  | 'leaves' | 'glass' | 'water' | 'speckle';

export interface TileSpec {
  readonly pattern: TilePattern;
  /** Base colour, sRGB 0xRRGGBB (from the block registry). */
  readonly colour: number;
  /** Second colour where the pattern has one (the grass band on a grass side). */
  readonly accent: number;
}

/** Patterns of [top, side, bottom] per block id; a block not named here gets plain noise. */
const PATTERNS: Partial<Record<number, readonly [TilePattern, TilePattern, TilePattern]>> = {
  [GRASS]: ['noise', 'grass-side', 'noise'],
  [DIRT]: ['noise', 'noise', 'noise'],
  [STONE]: ['stone', 'stone', 'stone'],
  [SAND]: ['speckle', 'speckle', 'speckle'],
  [WATER]: ['water', 'water', 'water'],
  [WOOD]: ['rings', 'bark', 'rings'],
  [LEAVES]: ['leaves', 'leaves', 'leaves'],
  [SNOW]: ['noise', 'grass-side', 'noise'],
  [PLANKS]: ['planks', 'planks', 'planks'],
  [COBBLE]: ['cobble', 'cobble', 'cobble'],
  [BRICK]: ['brick', 'brick', 'brick'],
  [GLASS]: ['glass', 'glass', 'glass'],
  [BEDROCK]: ['speckle', 'speckle', 'speckle'],
  [GRAVEL]: ['speckle', 'speckle', 'speckle'],
};

/** The distinct tiles, in atlas layer order, and TILE_OF[id * 6 + face] -> layer. */
export const { TILES, TILE_OF } = (() => {
  const tiles: TileSpec[] = [];
  const index = new Map<string, number>();
  const of = new Uint8Array(256 * 6);
  const tileFor = (spec: TileSpec): number => {
    const key = `${spec.pattern}:${spec.colour}:${spec.accent}`;
    let i = index.get(key);
    if (i === undefined) {
      i = tiles.length;
      tiles.push(spec);
      index.set(key, i);
    }
    return i;
  };
  for (const b of BLOCKS) {
    if (b.id === 0) continue;
    const [top, side, bottom] = PATTERNS[b.id] ?? ['noise', 'noise', 'noise'];
    const t = tileFor({ pattern: top, colour: b.top, accent: b.top });
    // A grass side is the dirt below with the top's colour as a band along its upper edge.
    const s = tileFor({ pattern: side, colour: side === 'grass-side' ? b.bottom : b.side, accent: b.top });
    const d = tileFor({ pattern: bottom, colour: b.bottom, accent: b.bottom });
    // Face order of render/: +x, -x, +y, -y, +z, -z.
    const faces = [s, s, t, d, s, s];
    for (let f = 0; f < 6; f++) of[b.id * 6 + f] = faces[f]!;
  }
  return { TILES: tiles as readonly TileSpec[], TILE_OF: of };
})();
