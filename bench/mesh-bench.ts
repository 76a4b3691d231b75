// Meshing benchmark: greedy mesh of generated terrain, in-process (no worker), as the
// mesh worker does it: pad each section from its column and neighbours, skip all-air
// sections, mesh the rest. Ambient occlusion on (what the game ships) and off are measured
// side by side, alternating by round, so their difference is what AO costs per column.
// Prints JSON when run directly; writes no files.
//   npx tsx bench/mesh-bench.ts
import { fileURLToPath } from 'node:url';
import { GreedyMesher } from '../src/render/greedy-mesher';
import { padSection, sectionIsEmpty, PAD_VOLUME } from '../src/render/section-padding';
import { SECTIONS } from '../src/world/coords';
import { generateChunk } from '../src/world/terrain';

const SEED = 'bench-seed';
/** Columns meshed per round: an AREA x AREA square (plus a ring of neighbours). */
const AREA = 5;
const ROUNDS = 7;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export async function benchMesh(): Promise<Record<string, number>> {
  const half = AREA >> 1;
  const columns = new Map<string, Uint8Array>();
  for (let cz = -half - 1; cz <= half + 1; cz++) {
    for (let cx = -half - 1; cx <= half + 1; cx++) columns.set(`${cx},${cz}`, generateChunk(SEED, cx, cz).blocks);
  }
  const padded = new Uint8Array(PAD_VOLUME);
  const configs = [true, false].map((ao) => ({ ao, mesher: new GreedyMesher({ ambientOcclusion: ao }), perColumn: [] as number[], quads: 0, naive: 0 }));
  for (let round = 0; round < ROUNDS; round++) {
    // Which configuration goes first swaps each round, so neither always runs on a warmer cache.
    for (const c of round % 2 ? [...configs].reverse() : configs) {
      for (let cz = -half; cz <= half; cz++) {
        for (let cx = -half; cx <= half; cx++) {
          const centre = columns.get(`${cx},${cz}`)!;
          const around = (dx: number, dz: number): Uint8Array | undefined => columns.get(`${cx + dx},${cz + dz}`);
          const t0 = performance.now();
          for (let sy = 0; sy < SECTIONS; sy++) {
            if (sectionIsEmpty(centre, sy)) continue;
            const m = c.mesher.mesh(padSection(around, sy, padded));
            if (round === 0) {
              c.quads += m.quads;
              c.naive += m.naiveFaces;
            }
          }
          c.perColumn.push(performance.now() - t0);
        }
      }
    }
  }
  // The first round warms the JIT; medians over the rest.
  const [on, off] = configs as [(typeof configs)[0], (typeof configs)[0]];
  const ms = (c: typeof on) => Number(median(c.perColumn.slice(AREA * AREA)).toFixed(3));
  return {
    mesh_ms_per_column: ms(on),
    mesh_ms_per_column_no_ao: ms(off),
    greedy_quads_ratio: Number((on.quads / on.naive).toFixed(4)),
    greedy_quads_ratio_no_ao: Number((off.quads / off.naive).toFixed(4)),
    mesh_quads_per_column: Math.round(on.quads / (AREA * AREA)),
    mesh_quads_per_column_no_ao: Math.round(off.quads / (AREA * AREA)),
    mesh_naive_faces_per_column: Math.round(on.naive / (AREA * AREA)),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchMesh(), null, 2));
}
