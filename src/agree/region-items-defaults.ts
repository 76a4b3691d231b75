// RegionItems' timings (region-items.ts), each with why, and the one area per region its ledger keeps.
import { REGION_BLOCKS } from '../region/region-key';
import type { ItemArea } from './item-ledger';

export const REGION_ITEMS_DEFAULTS = {
  /** The ledger goes to the other hosts at least this often (a lost ITEM_STATE is made good). */
  stateEveryMs: 5000,
  /** And to the primary's subscribers this often (a lost or early one made good; decisions and drops go at once). */
  subscriberStateEveryMs: 20_000,
  /** The primary tells its backups where the players stand this often (while any do). */
  seenEveryMs: 500,
  /** A position heard in ITEM_SEEN is used this long. */
  seenTtlMs: 5000,
  /** After an epoch change, votes wait this long at most for the old set's handovers. */
  handoverWaitMs: 3000,
  /** A host that joins a set with no ledger of its own (new, restarted) votes once another host's state came, or after this long (no host of the region kept one). */
  catchUpMs: 30_000,
  /** A host answers a state behind its own with its own, at most this often per sender (a new host pulls the ledger). */
  answerStateMs: 1000,
};

/** The area of region (rx, rz): one ledger per region. */
export const areaOf = (r: { rx: number; rz: number }): ItemArea => ({ ax: r.rx, az: r.rz, x0: r.rx * REGION_BLOCKS, z0: r.rz * REGION_BLOCKS, size: REGION_BLOCKS });
