// Why a link closed, as its 'close' event (and the DHT's 'link-close') says: every reason the
// links of net/ and the link set of dht/ give, in one place, so the layers that act on one (a
// host tells a node that let a link go from one that may be dead) compare with these names
// instead of string literals written somewhere else. The texts travel in a link's 'bye' and
// show in logs and tests, so they stay as they are.

// --- a link end (net/) ---

/** Closed by its own end with no reason given. */
export const CLOSED = 'closed';
/** The data channel closed under it with no 'bye' first (the far end's page went, or its connection dropped). */
export const CHANNEL_CLOSED = 'remote closed';
/** The transport was closed (a peer stopping): every link it made goes with it. */
export const TRANSPORT_CLOSED = 'transport closed';
/** The link's handshake (who the far end is) failed after the connection opened. */
export const HANDSHAKE_FAILED = 'handshake failed';
/**
 * The far end is of another network (another world, or a client that names none:
 * network-id.ts): refused in the handshake, on both ends, before the link is handed out.
 */
export const OTHER_NETWORK = 'another network';
/**
 * The link's network path died: its connection received nothing at all, not even an
 * acknowledgement, while what we sent went unanswered (path-watch.ts; a NAT forgot its
 * mapping, an address moved). The far node may be alive: it is dialled anew.
 */
export const PATH_DEAD = 'path dead';
/** The simulated network's ICE path between the two ends broke (a partition). */
export const ICE_FAILED = 'ice failed';
/** The far end's node was killed in the simulated network (not silently: its end closed at once). */
export const REMOTE_VANISHED = 'remote vanished';
/** How a link end reports that the far end closed it for `reason` (the far end's 'bye'). */
export const remoteClosed = (reason: string): string => `remote closed: ${reason}`;
/** The far end stopped reading (or reads slower than we must send): `why` says which. */
export const stoppedReading = (why: string): string => `peer stopped reading (${why})`;
/** The far end sent too many frames it could not read. */
export const protocolViolation = (why: string): string => `protocol violation: ${why}`;
/** The connection raised an error (its message). */
export const connectionError = (message: string): string => `error: ${message}`;

// --- the DHT's link set (dht/) ---

/** We let the link go for our link budget. */
export const BUDGET_CLOSE = 'budget';
/** The other end let it go for its budget and told us (CLOSING). */
export const PEER_RETIRED = 'closed by peer';
/** One end sent the other more frames than its rate limit takes (link-set.ts flood guard). */
export const FLOOD_CLOSE = 'flood';
/** One end sent the other frames it could not read (link-set.ts junk guard). */
export const JUNK_CLOSE = 'junk';
/** Both ends dialled each other at once: the link dialled by the higher id goes, on both sides. */
export const DUPLICATE_CLOSE = 'duplicate';
/** The DHT node stopped (or was not running when the link opened). */
export const STOPPED = 'stopped';
/** Nothing heard from the peer within the heartbeat timeout. */
export const HEARTBEAT_TIMEOUT = 'heartbeat timeout';
/** The peer did not answer the probe sent when a route through it seemed dead. */
export const PROBE_UNANSWERED = 'no answer to a probe';
/** The peer's node id shows too little proof of work (core/id-work.ts). */
export const NO_ID_WORK_CLOSE = 'id shows too little work';

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
