// Terrain generation: a chunk is a pure function of (seed, cx, cz). Every peer generates
// the same bytes, so only edits over this terrain are ever stored or sent.
import { BEDROCK, STONE, WATER } from './blocks';
import { Chunk } from './chunk';
import { describeColumn, emptyProfile } from './column-profile';
import { CHUNK_SIZE, blockIndex } from './coords';
import { terrainNoise, WATER_LEVEL } from './heightmap';
import { plantTrees } from './trees';

/** Blocks between two vertically adjacent blocks of one column in Chunk.blocks. */
const Y_STRIDE = CHUNK_SIZE * CHUNK_SIZE;

export function generateChunk(seed: string, cx: number, cz: number): Chunk {
  const t = terrainNoise(seed);
  const chunk = new Chunk(cx, cz);
  const b = chunk.blocks;
  const ox = cx * CHUNK_SIZE;
  const oz = cz * CHUNK_SIZE;
  const col = emptyProfile();
  for (let z = 0; z < CHUNK_SIZE; z++) {
    for (let x = 0; x < CHUNK_SIZE; x++) {
      // The heightmap is computed once per column; the y loop below only writes bytes.
      describeColumn(t, ox + x, oz + z, col);
      const { top, surface, filler } = col;
      const fillerFrom = Math.max(1, top - col.fillerDepth);
      let i = blockIndex(x, 0, z);
      b[i] = BEDROCK;
      let y = 1;
      for (i += Y_STRIDE; y < fillerFrom; y++, i += Y_STRIDE) b[i] = STONE;
      for (; y < top; y++, i += Y_STRIDE) b[i] = filler;
      b[i] = surface;
      for (y++, i += Y_STRIDE; y <= WATER_LEVEL; y++, i += Y_STRIDE) b[i] = WATER;
      // Above: already AIR (a new Chunk is zeroed).
    }
  }
  plantTrees(t, chunk);
  return chunk;
}
