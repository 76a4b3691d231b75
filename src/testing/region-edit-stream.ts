// A player's stream of block edits into one region of a HostSim world, each at its own spot,
// for hosting tests that count what the region kept: every edit is recorded with its outcome
// (ok true: confirmed; false: refused or given up; undefined: still pending).
import { REGION_BLOCKS, type RegionCoord } from '../region/region-key';
import { PLACEABLE } from '../world/blocks';
import type { SimPeer } from './host-sim';

export interface StreamEdit { x: number; y: number; z: number; id: number; ok?: boolean }

/** `edit()` submits the next edit of `player` into region R; `edits` holds them all, in order. */
export function regionEditStream(player: SimPeer, R: RegionCoord): { edits: StreamEdit[]; edit: () => void } {
  let tried = 0;
  const edits: StreamEdit[] = [];
  const edit = () => {
    const i = tried++;
    const e: StreamEdit = { x: R.rx * REGION_BLOCKS + ((i * 13) % REGION_BLOCKS), y: 120 + (i % 40), z: R.rz * REGION_BLOCKS + ((i * 29) % 32), id: PLACEABLE[i % (PLACEABLE.length - 1)]! };
    edits.push(e);
    player.client.submit(e.x, e.y, e.z, e.id, { x: e.x, y: e.y, z: e.z + 2 }).then(() => (e.ok = true), () => (e.ok = false));
  };
  return { edits, edit };
}
