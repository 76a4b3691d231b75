// The world's rules for what a block write may set, one module for every path that writes a
// block: a player's own edit before it is sent (play/block-editor.ts), the primary's check of
// an EDIT (host/edit-validator.ts, which adds reach, rate and bodies: they need the editor),
// and every entry another node sends (region/region-state.ts `obeysWorldRules`: OFFER, GRANT,
// REPLICATE, SYNC, SNAPSHOT, DELTA, PENDING, the DHT edit log, a host's own stored copy).
// Only placeable blocks or air may be set, inside the world's height, never at the floor.
import { AIR, BLOCK_COUNT, PLACEABLE, isValidBlockId } from './blocks';
import { CHUNK_HEIGHT, CHUNK_SIZE, CHUNK_VOLUME, WORLD_FLOOR_Y } from './coords';

/** Why a block write breaks the world's rules. */
export type BlockRuleFault = 'bad-block' | 'not-placeable' | 'outside-world' | 'world-floor';

/** By block id: 1 where a write may set it (air or a placeable block). A table: snapshots check every entry. */
const SETTABLE = Uint8Array.from({ length: BLOCK_COUNT }, (_, id) => (id === AIR || PLACEABLE.includes(id) ? 1 : 0));

/** Why writing block `id` at height `y` breaks the world's rules, or undefined when it may be written. */
export function blockRuleFault(y: number, id: number): BlockRuleFault | undefined {
  if (!isValidBlockId(id)) return 'bad-block';
  if (SETTABLE[id] !== 1) return 'not-placeable';
  if (!Number.isInteger(y) || y < 0 || y >= CHUNK_HEIGHT) return 'outside-world';
  if (y === WORLD_FLOOR_Y) return 'world-floor';
  return undefined;
}

/** Whether block `id` may be written at `index` of a chunk column (coords.ts blockIndex; any multiple of CHUNK_VOLUME added is ignored). */
export function settableAtIndex(index: number, id: number): boolean {
  return blockRuleFault(Math.floor((index % CHUNK_VOLUME) / (CHUNK_SIZE * CHUNK_SIZE)), id) === undefined;
}
