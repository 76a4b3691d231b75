// The block registry. Ids are stable on the wire and on disk: append, never renumber.

export interface BlockType {
  readonly id: number;
  readonly name: string;
  /** Top / side / bottom colours (0xRRGGBB) used by the mesher's vertex colours. */
  readonly top: number;
  readonly side: number;
  readonly bottom: number;
  /** Collides with players and hides faces behind it. */
  readonly solid: boolean;
  /** Drawn in the transparent pass (water, glass, leaves let light and faces through). */
  readonly transparent: boolean;
  readonly liquid: boolean;
  /** Offered in the hotbar / placeable by players. */
  readonly placeable: boolean;
}

function block(id: number, name: string, colour: number | [number, number, number], o: Partial<BlockType> = {}): BlockType {
  const [top, side, bottom] = typeof colour === 'number' ? [colour, colour, colour] : colour;
  return { id, name, top, side, bottom, solid: true, transparent: false, liquid: false, placeable: true, ...o };
}

export const AIR = 0;
export const GRASS = 1;
export const DIRT = 2;
export const STONE = 3;
export const SAND = 4;
export const WATER = 5;
export const WOOD = 6;
export const LEAVES = 7;
export const SNOW = 8;
export const PLANKS = 9;
export const COBBLE = 10;
export const BRICK = 11;
export const GLASS = 12;
export const BEDROCK = 13;
export const GRAVEL = 14;

export const BLOCKS: readonly BlockType[] = [
  block(AIR, 'air', 0x000000, { solid: false, transparent: true, placeable: false }),
  block(GRASS, 'grass', [0x5fa83a, 0x7d6a45, 0x866043]),
  block(DIRT, 'dirt', 0x866043),
  block(STONE, 'stone', 0x7f7f7f),
  block(SAND, 'sand', 0xdbd3a0),
  block(WATER, 'water', 0x2f66c8, { solid: false, transparent: true, liquid: true, placeable: false }),
  block(WOOD, 'wood', [0xa0824f, 0x6b5130, 0xa0824f]),
  block(LEAVES, 'leaves', 0x3f8f2e, { transparent: true }),
  block(SNOW, 'snow', [0xf5f8fa, 0xdfe6ea, 0x866043]),
  block(PLANKS, 'planks', 0xb08d57),
  block(COBBLE, 'cobblestone', 0x6d6d6d),
  block(BRICK, 'brick', 0x9c4a3a),
  block(GLASS, 'glass', 0xcfe8f0, { transparent: true }),
  block(BEDROCK, 'bedrock', 0x333333, { placeable: false }),
  block(GRAVEL, 'gravel', 0x8a8580),
];

export const BLOCK_COUNT = BLOCKS.length;

export function isValidBlockId(id: number): boolean {
  return Number.isInteger(id) && id >= 0 && id < BLOCK_COUNT;
}

export function blockType(id: number): BlockType {
  const b = BLOCKS[id];
  if (!b) throw new RangeError(`unknown block id ${id}`);
  return b;
}

// Flat lookup tables for hot loops (mesher, physics, raycast).
export const SOLID = Uint8Array.from(BLOCKS, (b) => (b.solid ? 1 : 0));
export const TRANSPARENT = Uint8Array.from(BLOCKS, (b) => (b.transparent ? 1 : 0));
/** Blocks a player may place or remove (hotbar order). */
export const PLACEABLE = BLOCKS.filter((b) => b.placeable).map((b) => b.id);
