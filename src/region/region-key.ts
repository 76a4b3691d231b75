// Regions: 4 x 4 chunk columns under one DHT key and one tick loop (docs/DESIGN.md "Hosting":
// links per player stay bounded). A region is named by (rx, rz) = floor(c / 4); its key is
// the first 160 bits of SHA-256("region:" + world + ":" + rx + ":" + rz).
import { idFromSha256, type NodeId } from '../core/node-id';
import { CHUNK_SIZE, chunkOf } from '../world/coords';

/** Chunk columns per region side. */
export const REGION_SIZE = 4;
/** Columns in a region. */
export const REGION_COLUMNS = REGION_SIZE * REGION_SIZE;
/** Blocks per region side. */
export const REGION_BLOCKS = REGION_SIZE * CHUNK_SIZE;

export interface RegionCoord {
  readonly rx: number;
  readonly rz: number;
}

/** Region of a chunk column coordinate. */
export function regionOf(c: number): number {
  return Math.floor(c / REGION_SIZE);
}

/** Region containing the world block (x, z). */
export function regionAt(x: number, z: number): RegionCoord {
  return { rx: regionOf(chunkOf(x)), rz: regionOf(chunkOf(z)) };
}

export function regionName(r: RegionCoord): string {
  return `${r.rx},${r.rz}`;
}

/** Column index (0..15) of chunk (cx, cz) inside its region. */
export function columnIndex(cx: number, cz: number): number {
  const lx = cx - regionOf(cx) * REGION_SIZE;
  const lz = cz - regionOf(cz) * REGION_SIZE;
  return lz * REGION_SIZE + lx;
}

/** The chunk column (cx, cz) of column index `col` in region r. */
export function columnAt(r: RegionCoord, col: number): [number, number] {
  return [r.rx * REGION_SIZE + (col % REGION_SIZE), r.rz * REGION_SIZE + Math.floor(col / REGION_SIZE)];
}

/** A 160-bit key from text (first 160 bits of SHA-256). */
export type KeyHash = (text: string) => Promise<NodeId>;

/**
 * Memoised region keys of one world. `hash`: WebCrypto by default; the simulator passes a
 * synchronous one so that a run is reproducible (WebCrypto's digest settles outside the
 * virtual clock). Both give the same keys.
 */
export class RegionKeys {
  private readonly keys = new Map<string, Promise<NodeId>>();

  constructor(
    readonly world: string,
    readonly hash: KeyHash = idFromSha256,
  ) {}

  key(r: RegionCoord): Promise<NodeId> {
    const name = regionName(r);
    let p = this.keys.get(name);
    if (!p) {
      p = this.hash(`region:${this.world}:${r.rx}:${r.rz}`);
      this.keys.set(name, p);
      if (this.keys.size > 4096) this.keys.delete(this.keys.keys().next().value!);
    }
    return p;
  }
}
