// Which network a peer belongs to. A world (its name and seed) is its own network: its
// peers link only to each other and meet only each other at a relay. Two worlds on one
// relay or one DHT would otherwise take each other's region frames for their own (hosts
// name a region in frames by its coordinates alone, and sign over a key that hashes the
// world in), so each would find the other's certificates badly signed and churn.
// The id is a hash, so a relay sees which peers share a world, never the world's name or
// seed (a seed may be a private world's only secret).
import { idToHex } from '../core/node-id';
import { sha256Sync } from '../core/sha256-sync';

/** Hex digits of a network id (128 bits: two worlds never share one by chance). */
export const NETWORK_ID_HEX = 32;

/**
 * The network of no named world: a peer that names none (a client from before networks
 * were named, which sends no network in its HELLO or relay register) is in this one, and
 * so links only to others like it. Tests that make transports without a world are in it too.
 */
export const UNNAMED_NETWORK = '';

/**
 * The network id of world `world` with seed `seed`. A world name holds no newline
 * (letters, digits, . _ -), so world and seed cannot run into each other.
 */
export function networkId(world: string, seed: string): string {
  const bytes = sha256Sync(new TextEncoder().encode(`voxel-populi network v1\n${world}\n${seed}`));
  return idToHex(bytes.subarray(0, NETWORK_ID_HEX / 2));
}
