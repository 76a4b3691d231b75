// Where a new player starts: on open ground near the world's spawn, never inside a block
// or a tree. world/findSpawn finds dry land, but on about 1 seed in 20 that column is a
// tree and the player starts in its crown, so here a column must also be clear of trunks
// and leaves around it and about level with its neighbours. Once the player's chunk is
// loaded with its edits (someone may have built on the spot, or over where a returning
// player left), `liftClear` raises the feet until the body is free.
import { boxCollides, type SolidAt } from './physics';
import type { PlayerSession } from './player-session';
import type { WorldModel } from './world-model';
import { AIR, LEAVES, SOLID, WATER, WOOD } from '../world/blocks';
import { describeColumn } from '../world/column-profile';
import { terrainNoise, WATER_LEVEL } from '../world/heightmap';
import { findSpawn, generatedBlockAt, type SpawnPoint } from '../world/world-block';

const SEARCH_RADIUS = 256;
/** Columns around the spawn that must be free of trees (a 5 x 5 square). */
const CLEAR_AROUND = 2;
/** Air above the feet that must be free of leaves (a crown reaches over its neighbours). */
const HEADROOM = 4;

function openAt(seed: string, x: number, z: number): number | undefined {
  const t = terrainNoise(seed);
  const top = describeColumn(t, x, z).top;
  if (top <= WATER_LEVEL) return undefined;
  const feet = top + 1;
  for (let dx = -CLEAR_AROUND; dx <= CLEAR_AROUND; dx++) {
    for (let dz = -CLEAR_AROUND; dz <= CLEAR_AROUND; dz++) {
      const nTop = describeColumn(t, x + dx, z + dz).top;
      if (Math.abs(nTop - top) > 1) return undefined; // a cliff or a pit beside: not open ground
      for (let y = feet - 1; y < feet + HEADROOM; y++) {
        const b = generatedBlockAt(seed, x + dx, y, z + dz);
        if (b === WOOD || b === LEAVES || (dx === 0 && dz === 0 && y >= feet && b !== AIR) || b === WATER) return undefined;
      }
    }
  }
  return feet;
}

/** Feet position of a new player: the first open-ground column along a spiral from (0, 0). */
export function openGroundSpawn(seed: string): SpawnPoint {
  for (let r = 0; r <= SEARCH_RADIUS; r += 2) {
    for (let i = -r; i <= r; i += 2) {
      for (const [x, z] of [[i, -r], [i, r], [-r, i], [r, i]] as const) {
        const y = openAt(seed, x, z);
        if (y !== undefined) return { x: x + 0.5, y, z: z + 0.5 };
      }
    }
  }
  return findSpawn(seed); // no open ground nearby (all forest or sea): dry land at least
}

/** The lowest feet height at or above `y` where the player's body overlaps nothing solid. */
export function liftClear(solidAt: SolidAt, x: number, y: number, z: number, maxY = 255): number {
  let feet = y;
  while (feet < maxY && boxCollides(x, feet, z, solidAt)) feet = Math.floor(feet) + 1;
  return feet;
}

/**
 * Steps a walking player out of anything built where they stand, on top of it: at the first
 * frame, and again once the hosts' blocks are merged into columns drawn from the seed.
 */
export function stepOutOfBlocks(world: Pick<WorldModel, 'blockAt'>, session: PlayerSession): void {
  const b = session.body;
  const solid = (x: number, y: number, z: number) => SOLID[world.blockAt(x, y, z)] === 1;
  if (!session.flying && boxCollides(b.x, b.y, b.z, solid)) session.teleport(b.x, liftClear(solid, b.x, b.y, b.z), b.z);
}
