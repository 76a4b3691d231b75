import { describe, expect, it } from 'vitest';
import { BLOCKS, GLASS, GRASS, STONE, WATER } from '../world/blocks';
import { buildBlockAtlas, TILE_SIZE } from './block-atlas';
import { TILE_OF, TILES } from './block-tiles';

const atlas = buildBlockAtlas();
const texel = (layer: number, x: number, y: number): number[] => {
  const i = ((layer * TILE_SIZE + y) * TILE_SIZE + x) * 4;
  return [...atlas.data.subarray(i, i + 4)];
};
const layerOf = (id: number, face: number): number => TILE_OF[id * 6 + face]!;

describe('block tiles', () => {
  it('gives every face of every block but air a tile of the atlas', () => {
    for (const b of BLOCKS.slice(1)) for (let f = 0; f < 6; f++) expect(layerOf(b.id, f)).toBeLessThan(TILES.length);
    expect(atlas.layers).toBe(TILES.length);
    expect(atlas.data.length).toBe(TILE_SIZE * TILE_SIZE * 4 * TILES.length);
  });

  it('draws grass with a green top, a dirt side under a green band, and stone apart from both', () => {
    const top = layerOf(GRASS, 2), side = layerOf(GRASS, 0), bottom = layerOf(GRASS, 3);
    expect(new Set([top, side, bottom, layerOf(STONE, 2)]).size).toBe(4);
    const green = (t: number[]) => t[1]! > t[0]! && t[1]! > t[2]!;
    expect(green(texel(top, 5, 5))).toBe(true);
    expect(green(texel(side, 5, TILE_SIZE - 1))).toBe(true); // the band along the top edge
    expect(green(texel(side, 5, 1))).toBe(false); // dirt below
  });
});

describe('block atlas', () => {
  it('is the same in every tab (deterministic) and textured, not flat', () => {
    expect(buildBlockAtlas().data).toEqual(atlas.data);
    for (let layer = 0; layer < atlas.layers; layer++) {
      const lumas = new Set<string>();
      for (let y = 0; y < TILE_SIZE; y++) for (let x = 0; x < TILE_SIZE; x++) lumas.add(texel(layer, x, y).slice(0, 3).join());
      expect(lumas.size, `layer ${layer} (${TILES[layer]!.pattern})`).toBeGreaterThan(2);
    }
  });

  it('makes water tinted and see-through, glass clear inside its frame, stone opaque', () => {
    const water = texel(layerOf(WATER, 2), 8, 8);
    expect(water[3]).toBeGreaterThan(100);
    expect(water[3]).toBeLessThan(220);
    expect(water[2]).toBeGreaterThan(water[0]!); // blue
    expect(texel(layerOf(GLASS, 0), 12, 3)[3]).toBeLessThan(80);
    expect(texel(layerOf(GLASS, 0), 0, 3)[3]).toBeGreaterThan(200);
    for (let x = 0; x < TILE_SIZE; x++) expect(texel(layerOf(STONE, 0), x, x)[3]).toBe(255);
  });
});
