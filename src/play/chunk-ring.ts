// Which chunk columns a player needs: every column within the render distance (a disc,
// as players see a circle of terrain), nearest first so the ground under the player and
// what is in front load before the horizon. Columns are dropped only past distance + 1,
// so walking back and forth over a border does not thrash loads.

export interface ColumnPos {
  cx: number;
  cz: number;
}

const ringCache = new Map<number, ColumnPos[]>();

/** Offsets within `distance` (Euclidean, in columns), sorted nearest first; cached per distance. */
export function ringOffsets(distance: number): readonly ColumnPos[] {
  let r = ringCache.get(distance);
  if (!r) {
    r = [];
    for (let dz = -distance; dz <= distance; dz++)
      for (let dx = -distance; dx <= distance; dx++) if (dx * dx + dz * dz <= distance * distance + distance) r.push({ cx: dx, cz: dz });
    r.sort((a, b) => a.cx * a.cx + a.cz * a.cz - (b.cx * b.cx + b.cz * b.cz));
    ringCache.set(distance, r);
  }
  return r;
}

export function wantedColumns(centre: ColumnPos, distance: number): ColumnPos[] {
  return ringOffsets(distance).map((o) => ({ cx: centre.cx + o.cx, cz: centre.cz + o.cz }));
}

export function isWithin(centre: ColumnPos, c: ColumnPos, distance: number): boolean {
  const dx = c.cx - centre.cx, dz = c.cz - centre.cz;
  return dx * dx + dz * dz <= distance * distance + distance;
}
