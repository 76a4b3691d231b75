// Meshing benchmark: greedy mesh of generated terrain, in-process (no worker), as the
// mesh worker does it: pad each section from its column and neighbours, skip all-air
// sections, mesh the rest. Ambient occlusion on (what the game ships) and off are measured
// side by side, alternating by round, so their difference is what AO costs per column.
// Two untimed passes say what the greedy ratio is made of: the same columns with every
// opaque block made one block (what merging across block ids could save at most), and the
// square a new player of the default world draws around the spawn (the timed 5 x 5 sample
// is coast and steps, rougher than most of the world).
// Prints JSON when run directly; writes no files.
//   npx tsx bench/mesh-bench.ts
import { fileURLToPath } from 'node:url';
import { DEFAULT_RENDER_DISTANCE } from '../src/app/config';
import { openGroundSpawn } from '../src/play/spawn-point';
import { HIDDEN, OPAQUE } from '../src/render/face-rules';
import { GreedyMesher } from '../src/render/greedy-mesher';
import { padSection, sectionIsEmpty, PAD_VOLUME } from '../src/render/section-padding';
import { STONE } from '../src/world/blocks';
import { chunkOf, SECTIONS } from '../src/world/coords';
import { generateChunk } from '../src/world/terrain';

const SEED = 'bench-seed';
/** Columns meshed per round: an AREA x AREA square (plus a ring of neighbours). */
const AREA = 5;
const ROUNDS = 7;
/** The default world (app/config.ts): its spawn area is what a new player's tab meshes first. */
const DEFAULT_WORLD = 'populi';

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
  const anyBlock = configs.map((c) => quadsOver(c.mesher, columns, half, (padded) => {
    for (let i = 0; i < padded.length; i++) if (padded[i] !== HIDDEN && OPAQUE[padded[i]!] === 1) padded[i] = STONE;
  }));
  const spawn = openGroundSpawn(DEFAULT_WORLD);
  const [sx, sz] = [chunkOf(Math.floor(spawn.x)), chunkOf(Math.floor(spawn.z))];
  const rd = DEFAULT_RENDER_DISTANCE;
  const around = new Map<string, Uint8Array>();
  for (let cz = -rd - 1; cz <= rd + 1; cz++) {
    for (let cx = -rd - 1; cx <= rd + 1; cx++) around.set(`${cx},${cz}`, generateChunk(DEFAULT_WORLD, sx + cx, sz + cz).blocks);
  }
  const atSpawn = configs.map((c) => quadsOver(c.mesher, around, rd));
  // The first round warms the JIT; medians over the rest.
  const [on, off] = configs as [(typeof configs)[0], (typeof configs)[0]];
  const ms = (c: typeof on) => Number(median(c.perColumn.slice(AREA * AREA)).toFixed(3));
  return {
    mesh_ms_per_column: ms(on),
    mesh_ms_per_column_no_ao: ms(off),
    greedy_quads_ratio: ratio(on),
    greedy_quads_ratio_no_ao: ratio(off),
    greedy_quads_ratio_any_block: ratio(anyBlock[0]!),
    greedy_quads_ratio_any_block_no_ao: ratio(anyBlock[1]!),
    greedy_quads_ratio_spawn: ratio(atSpawn[0]!),
    greedy_quads_ratio_spawn_no_ao: ratio(atSpawn[1]!),
    mesh_quads_per_column: Math.round(on.quads / (AREA * AREA)),
    mesh_quads_per_column_no_ao: Math.round(off.quads / (AREA * AREA)),
    mesh_naive_faces_per_column: Math.round(on.naive / (AREA * AREA)),
  };
}

const ratio = (c: { quads: number; naive: number }) => Number((c.quads / c.naive).toFixed(4));

/**
 * Quads and naive faces of the (2 half + 1)^2 columns around (0, 0) of `columns` (which
 * hold a ring more), each padded section first passed through `change`; untimed.
 */
function quadsOver(mesher: GreedyMesher, columns: Map<string, Uint8Array>, half: number, change?: (padded: Uint8Array) => void): { quads: number; naive: number } {
  const padded = new Uint8Array(PAD_VOLUME);
  let quads = 0, naive = 0;
  for (let cz = -half; cz <= half; cz++) {
    for (let cx = -half; cx <= half; cx++) {
      const centre = columns.get(`${cx},${cz}`)!;
      for (let sy = 0; sy < SECTIONS; sy++) {
        if (sectionIsEmpty(centre, sy)) continue;
        padSection((dx, dz) => columns.get(`${cx + dx},${cz + dz}`), sy, padded);
        change?.(padded);
        const m = mesher.mesh(padded);
        quads += m.quads;
        naive += m.naiveFaces;
      }
    }
  }
  return { quads, naive };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchMesh(), null, 2));
}
