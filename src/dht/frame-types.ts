// What a frame is, read from its first bytes without decoding it, for the traffic counters
// (stats.ts `framesInByType` ...): a tab's CPU goes mostly to its frames, and knowing which
// kinds it sends and receives per second says what to cut.
import { dhtSpec } from './messages';
import { ROUTE_TAG } from './route-frame';

const NAME_OF_CODE: (string | undefined)[] = [];
for (const [name, [code]] of Object.entries(dhtSpec)) NAME_OF_CODE[code] = name;

/** msgpack's fixarray of 2: every codec frame is [typeCode, body]. */
const PAIR = 0x92;

/**
 * The frame's type: its DHT message name, 'ROUTE' for a routed envelope, '?' for anything
 * else. A bounded set of keys, whatever a peer sends.
 */
export function frameType(frame: Uint8Array): string {
  if (frame[0] === ROUTE_TAG) return 'ROUTE';
  return (frame[0] === PAIR && NAME_OF_CODE[frame[1]!]) || '?';
}

/** Adds n to counts[key]. */
export function tally(counts: Record<string, number>, key: string, n = 1): void {
  counts[key] = (counts[key] ?? 0) + n;
}
