// Which peers a node deals with by their ids: only ids that show work (core/id-work.ts,
// S/Kademlia's static puzzle) get a link, a place in the table, a route through us, or a
// place in a lookup. Ids cost nothing otherwise, and whoever holds the ids closest to a key
// answers for it: an attacker would grind keys until it held them (docs/TRUST.md).
import { idWorkOk } from '../core/id-work';
import type { NodeId } from '../core/node-id';

/** Where an id was refused (`stats.idWorkRefused`). */
export type IdWorkPoint =
  /** A link, inbound or dialled (refused and closed as it is attached). */
  | 'link'
  /** A contact for the routing table (heard from, or named to us and learnt). */
  | 'contact'
  /** The source of a routed message (dropped wherever it reaches: forwarder or destination). */
  | 'route'
  /** A node named in a FIND_NODE or FIND_VALUE answer (left out of the lookup). */
  | 'answer';

/** Whether an id may be dealt with at a point; a refusal is counted there. */
export type IdGate = (id: NodeId, at: IdWorkPoint) => boolean;

/** The gate of a node asking `bits` of work (0: every id passes, as in the simulators). */
export function idGate(bits: number, refused: Record<IdWorkPoint, number>): IdGate {
  if (bits <= 0) return () => true;
  return (id, at) => {
    if (idWorkOk(id, bits)) return true;
    refused[at]++;
    return false;
  };
}
