// Which of some nodes answer a ping within a wait. A host set must not take in a node that
// died silently (its links stay open at our end, and the DHT keeps it in its tables, for
// up to 15 s): a set that names a dead node needs every other host alive at the next
// failover, else it waits for a rebase (docs/HOSTING.md "Host sets of live nodes"). A
// player whose link to its primary a budget closed asks the same of that primary.
import { idToHex, type NodeId } from './node-id';
import type { Clock } from './clock';

/**
 * Pings every node of `ids` at once; resolves with the hex ids of those that answered, as
 * soon as all did or after `waitMs` (the dead never answer: waiting for them longer buys nothing).
 */
export function answering(clock: Clock, ping: (id: NodeId) => Promise<boolean>, ids: readonly NodeId[], waitMs: number): Promise<Set<string>> {
  const got = new Set<string>();
  if (ids.length === 0) return Promise.resolve(got);
  return new Promise((resolve) => {
    let left = ids.length;
    const timer = clock.setTimeout(() => resolve(new Set(got)), waitMs);
    for (const id of ids) {
      void ping(id).then((ok) => {
        if (ok) got.add(idToHex(id));
        if (--left === 0) {
          clock.clearTimeout(timer);
          resolve(new Set(got));
        }
      });
    }
  });
}
