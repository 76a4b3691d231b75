// The key a world's local records are kept under, in every store of a browser profile or a
// headless peer's data dir: the tab's hosted regions (and their items), its tentative
// edits, the one-tab world's chunks, the player's place, the one-tab items. A world is its
// name and its seed, and two seeds of one name are two networks (net/network-id.ts), so
// they must not share records: keyed by the name alone, a tab of seed B loaded what it had
// hosted for seed A and served it as B's blocks.
//
// A world played at its default seed (its name: a link without `seed=`) keeps its records
// under its name alone, where every record from before seeds were told apart lies. Those
// records do not say which seed they were made under, so they stay that world's at the
// default seed only: a world that was played at another seed finds its old records gone
// (they are still there, read under the default seed).
import { networkId } from '../net/network-id';

/** The store key of world `world` with seed `seed`: its name for the default seed, else its name, '@' and its network id. */
export function storeScope(world: string, seed: string): string {
  return seed === world ? world : `${world}@${networkId(world, seed)}`;
}
