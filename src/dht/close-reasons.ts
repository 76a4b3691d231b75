// Why a DHT link closed, as its 'link-close' event says: the reasons other layers act on
// (a host tells a node that let a link go from one that may be dead), in one place instead
// of string literals matched in net/, dht/ and host/.
import { remoteClosed } from '../net/link';

/** We let the link go for our link budget. */
export const BUDGET_CLOSE = 'budget';
/** The other end let it go for its budget and told us (CLOSING). */
export const PEER_RETIRED = 'closed by peer';
/** One end sent the other more frames than its rate limit takes (link-set.ts flood guard). */
export const FLOOD_CLOSE = 'flood';
/** One end sent the other frames it could not read (link-set.ts junk guard). */
export const JUNK_CLOSE = 'junk';

/**
 * Whether a link-close reason says a live node let the link go on purpose (a link budget:
 * ours, 'budget', or the other end's, which told us with CLOSING): the node is not gone, and
 * routes to it remain. Any other reason (a failed or reset connection, a stop) may be a death.
 */
export function closedOnPurpose(reason: string): boolean {
  return reason === BUDGET_CLOSE || reason === PEER_RETIRED;
}

/**
 * Whether a link closed for flooding, by our end or the far one (which hears it as the
 * far end's 'bye'): the node behind it is alive and answers by other routes.
 */
export function closedForFlood(reason: string): boolean {
  return reason === FLOOD_CLOSE || reason === remoteClosed(FLOOD_CLOSE);
}
