// World benchmark: terrain generation cost per chunk column, and what a whole generated
// chunk's block ids come to deflated (2 header bytes and deflate-raw, node:zlib's default
// level): the size a peer would send for a chunk if it did not generate the terrain itself,
// against 3 bytes an edit. Called by the bench runner (which writes the results); run
// directly to print them:
//   npx tsx bench/world-bench.ts
import { pathToFileURL } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { generateChunk } from '../src/world/terrain';

const SEED = 'bench-world';
/** The area generated per run: AREA x AREA chunk columns, like a small render distance. */
const AREA = 9;
const RUNS = 7;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export async function benchWorld(): Promise<Record<string, number>> {
  // Warm up the JIT and the per-seed noise tables so runs measure steady-state generation.
  generateChunk(SEED, 1000, 1000);
  const perColumn: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    // A different area each run, so no run benefits from a lucky (e.g. all-ocean) spot.
    const ox = run * AREA * 3 - 30;
    const oz = -run * AREA * 2 + 10;
    const t0 = performance.now();
    for (let dz = 0; dz < AREA; dz++) for (let dx = 0; dx < AREA; dx++) generateChunk(SEED, ox + dx, oz + dz);
    perColumn.push((performance.now() - t0) / (AREA * AREA));
  }
  const sizes: number[] = [];
  for (let i = 0; i < 9; i++) sizes.push(2 + deflateRawSync(generateChunk(SEED, i * 7, -i * 5).blocks).length);
  return {
    terrain_ms_per_column: round(median(perColumn)),
    chunk_full_bytes: median(sizes),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await benchWorld(), null, 2));
}
