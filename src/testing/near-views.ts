// Readers' views of who is near a key, for tests of the anchor rule (src/region/cert-anchor.ts)
// without a DHT: a reader that knows exactly these nodes, and counts its refresh lookups.
import { sortByDistance, type NodeId } from '../core/node-id';
import type { NearView } from '../dht/near-view';

/**
 * A reader whose nearest known nodes to any key are `ids` (sorted by distance to the key);
 * refreshes learn nothing; its lookups by disjoint paths find `live` (default: `ids`).
 */
export function fixedNearView(ids: readonly NodeId[], live: readonly NodeId[] = ids): NearView & { refreshes: number; sweeps: number } {
  const view = {
    refreshes: 0,
    sweeps: 0,
    near: (key: NodeId, n: number) => sortByDistance([...ids], (x) => x, key).slice(0, n),
    refresh: () => {
      view.refreshes++;
      return Promise.resolve(false);
    },
    live: (key: NodeId, n: number) => {
      view.sweeps++;
      return Promise.resolve(sortByDistance([...live], (x) => x, key).slice(0, n));
    },
  };
  return view;
}
