// World <-> chunk <-> local coordinates. Chunks are 16 x 16 columns of 256 blocks, split
// into 16-high sections for meshing. Floor division keeps negative coordinates right:
// world x = -1 is chunk -1, local 15.

export const CHUNK_SIZE = 16;
export const CHUNK_HEIGHT = 256;
/** The bedrock floor (y = 0): no edit may dig or replace it, so nobody falls out of the world. */
export const WORLD_FLOOR_Y = 0;
export const SECTION_HEIGHT = 16;
export const SECTIONS = CHUNK_HEIGHT / SECTION_HEIGHT;
export const CHUNK_VOLUME = CHUNK_SIZE * CHUNK_SIZE * CHUNK_HEIGHT;

/** Chunk column coordinate of a world block coordinate. */
export function chunkOf(w: number): number {
  return Math.floor(w / CHUNK_SIZE);
}

/** Local (0..15) coordinate of a world block coordinate inside its chunk. */
export function localOf(w: number): number {
  return ((Math.floor(w) % CHUNK_SIZE) + CHUNK_SIZE) % CHUNK_SIZE;
}

export function worldOf(c: number, local: number): number {
  return c * CHUNK_SIZE + local;
}

/** Index of (x, y, z) local in a chunk's Uint8Array: y-major so a section is contiguous. */
export function blockIndex(x: number, y: number, z: number): number {
  return (y * CHUNK_SIZE + z) * CHUNK_SIZE + x;
}

export function chunkKey(cx: number, cz: number): string {
  return `${cx},${cz}`;
}

export function parseChunkKey(key: string): [number, number] {
  const [a, b] = key.split(',');
  return [Number(a), Number(b)];
}
