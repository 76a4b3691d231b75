// Voxel picking by grid traversal (Amanatides & Woo DDA): visits every cell the ray
// crosses in order, so the first hit is exact and the entered face is known, which is
// what "place against this face" needs.

export interface RayHit {
  /** The block that was hit. */
  x: number;
  y: number;
  z: number;
  /** Outward normal of the face the ray entered through; hit + normal is where a block is placed. */
  nx: number;
  ny: number;
  nz: number;
  distance: number;
  id: number;
}

export type BlockAt = (x: number, y: number, z: number) => number;

export function raycast(
  blockAt: BlockAt,
  isTarget: (id: number) => boolean,
  ox: number, oy: number, oz: number,
  dx: number, dy: number, dz: number,
  maxDistance: number,
): RayHit | null {
  const len = Math.hypot(dx, dy, dz);
  if (len === 0) return null;
  dx /= len; dy /= len; dz /= len;
  let x = Math.floor(ox), y = Math.floor(oy), z = Math.floor(oz);
  const stepX = Math.sign(dx), stepY = Math.sign(dy), stepZ = Math.sign(dz);
  const tDeltaX = stepX !== 0 ? Math.abs(1 / dx) : Infinity;
  const tDeltaY = stepY !== 0 ? Math.abs(1 / dy) : Infinity;
  const tDeltaZ = stepZ !== 0 ? Math.abs(1 / dz) : Infinity;
  let tMaxX = stepX > 0 ? (x + 1 - ox) * tDeltaX : stepX < 0 ? (ox - x) * tDeltaX : Infinity;
  let tMaxY = stepY > 0 ? (y + 1 - oy) * tDeltaY : stepY < 0 ? (oy - y) * tDeltaY : Infinity;
  let tMaxZ = stepZ > 0 ? (z + 1 - oz) * tDeltaZ : stepZ < 0 ? (oz - z) * tDeltaZ : Infinity;
  let nx = 0, ny = 0, nz = 0, t = 0;
  // The starting cell counts too (a ray from inside a block hits it with no face).
  for (;;) {
    const id = blockAt(x, y, z);
    if (isTarget(id)) return { x, y, z, nx, ny, nz, distance: t, id };
    if (tMaxX < tMaxY && tMaxX < tMaxZ) {
      x += stepX; t = tMaxX; tMaxX += tDeltaX; nx = -stepX; ny = 0; nz = 0;
    } else if (tMaxY < tMaxZ) {
      y += stepY; t = tMaxY; tMaxY += tDeltaY; nx = 0; ny = -stepY; nz = 0;
    } else {
      z += stepZ; t = tMaxZ; tMaxZ += tDeltaZ; nx = 0; ny = 0; nz = -stepZ;
    }
    if (t > maxDistance) return null;
  }
}

/** Unit look vector for yaw (around +y, 0 = looking at -z) and pitch (up positive), as three.js cameras use. */
export function lookVector(yaw: number, pitch: number): [number, number, number] {
  const c = Math.cos(pitch);
  return [-Math.sin(yaw) * c, Math.sin(pitch), -Math.cos(yaw) * c];
}
