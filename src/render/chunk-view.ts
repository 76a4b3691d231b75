// Which chunk columns to show around the player: pure logic, no three.js.
// Columns load nearest-first inside a circle of the render distance; they unload only
// once they are past distance + hysteresis, so walking back and forth across a chunk
// border does not load and dispose the same ring again and again.
import { chunkKey } from '../world/coords';

export const CHUNK_VIEW_DEFAULTS = {
  /** Chunks, counted from the player's column (8 -> up to 17 x 17 columns). */
  renderDistance: 8,
  /** Extra chunks a loaded column may drift out before it is unloaded. */
  hysteresis: 1,
} as const;

export interface ChunkPos {
  readonly cx: number;
  readonly cz: number;
}

/** Squared distance between column centres, in chunks. */
function dist2(a: ChunkPos, cx: number, cz: number): number {
  const dx = cx - a.cx, dz = cz - a.cz;
  return dx * dx + dz * dz;
}

/**
 * Columns within `distance` of the player's column (a disc: corners of the square
 * are farther than the fog hides), nearest first; ties in a fixed order so the
 * result is deterministic.
 */
export function columnsInView(player: ChunkPos, distance: number = CHUNK_VIEW_DEFAULTS.renderDistance): ChunkPos[] {
  const out: ChunkPos[] = [];
  const r2 = (distance + 0.5) * (distance + 0.5);
  for (let dz = -distance; dz <= distance; dz++) {
    for (let dx = -distance; dx <= distance; dx++) {
      if (dx * dx + dz * dz <= r2) out.push({ cx: player.cx + dx, cz: player.cz + dz });
    }
  }
  return out.sort((a, b) => dist2(player, a.cx, a.cz) - dist2(player, b.cx, b.cz) || a.cz - b.cz || a.cx - b.cx);
}

export interface ViewUpdate {
  /** Columns in view that are not loaded yet, nearest first. */
  readonly load: ChunkPos[];
  /** Loaded columns now beyond distance + hysteresis. */
  readonly unload: ChunkPos[];
}

/**
 * What to load and unload given the columns already loaded (keys from chunkKey).
 * The caller loads in the order given and may stop early (a per-frame budget).
 */
export function updateView(
  player: ChunkPos,
  loaded: Iterable<string> | ReadonlySet<string>,
  distance: number = CHUNK_VIEW_DEFAULTS.renderDistance,
  hysteresis: number = CHUNK_VIEW_DEFAULTS.hysteresis,
): ViewUpdate {
  const have = loaded instanceof Set ? (loaded as ReadonlySet<string>) : new Set(loaded);
  const load = columnsInView(player, distance).filter((c) => !have.has(chunkKey(c.cx, c.cz)));
  const keep = distance + hysteresis + 0.5;
  const unload: ChunkPos[] = [];
  for (const key of have) {
    const [cx, cz] = key.split(',').map(Number) as [number, number];
    if (dist2(player, cx, cz) > keep * keep) unload.push({ cx, cz });
  }
  return { load, unload };
}
