// Table upkeep from traffic, alone on the virtual clock: a real table (k = 2), a fake call.
import { describe, expect, it } from 'vitest';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { randomIdInBucket } from './bucket-refresh';
import { Contacts } from './contacts';
import type { Reply } from './messages';
import { RoutingTable } from './routing-table';
import { RpcTimeoutError, type Call } from './rpc';

const OPTS = { evictionPingFreshMs: 60_000, heartbeatTimeoutMs: 15_000, maxFails: 2 };

function setup() {
  const clock = new VirtualClock(100_000);
  const rand = seededRandom(20);
  const self = randomId(rand);
  const table = new RoutingTable(self, 2);
  const added: string[] = [];
  const dropped: string[] = [];
  const pinged: string[] = [];
  const alive = new Set<string>();
  const call: Call = (_id, hex) => {
    pinged.push(hex);
    return new Promise<Reply>((resolve, reject) => clock.setTimeout(() => (alive.has(hex) ? resolve({ t: 'PONG', r: 0 }) : reject(new RpcTimeoutError('timeout'))), 1000));
  };
  const contacts = new Contacts({ clock, opts: OPTS, table, call, onAdded: (c) => void added.push(c.hex), onDropped: (id) => void dropped.push(idToHex(id)) });
  /** Ids in our farthest bucket (one k-bucket of 2). */
  const far = (n: number) => Array.from({ length: n }, () => randomIdInBucket(self, 159, rand));
  return { clock, rand, table, added, dropped, pinged, alive, contacts, far };
}

const hexes = (ids: NodeId[]) => ids.map(idToHex);

describe('Contacts', () => {
  it('a node heard from enters the table (told once); a full bucket keeps its oldest when heard from lately', () => {
    const s = setup();
    const [a, b, c] = s.far(3);
    s.contacts.heard(a!, idToHex(a!));
    s.contacts.heard(b!, idToHex(b!));
    s.contacts.heard(a!, idToHex(a!));
    expect(s.added).toEqual(hexes([a!, b!]));
    s.contacts.heard(c!, idToHex(c!));
    expect(s.pinged).toEqual([]);
    expect(s.table.has(idToHex(c!))).toBe(false);
  });

  it('a full bucket pings its oldest contact when stale; one that does not answer gives way to the newcomer', async () => {
    const s = setup();
    const [a, b, c, d] = s.far(4);
    s.table.add(a!, 0); // stale
    s.table.add(b!, 0);
    s.contacts.heard(c!, idToHex(c!));
    expect(s.pinged).toEqual(hexes([a!]));
    await s.clock.advance(1000);
    expect(s.table.has(idToHex(a!))).toBe(false);
    expect(s.added).toEqual(hexes([c!]));
    // An oldest contact that answers stays, the newcomer waits.
    s.alive.add(idToHex(b!));
    s.contacts.heard(d!, idToHex(d!));
    expect(s.pinged).toEqual(hexes([a!, b!]));
    await s.clock.advance(1000);
    expect(s.table.has(idToHex(b!))).toBe(true);
    expect(s.table.has(idToHex(d!))).toBe(false);
  });

  it('a node named by another is learnt dated one heartbeat timeout back (first in line for a stale probe)', () => {
    const s = setup();
    const [a] = s.far(1);
    s.contacts.learn(a!);
    expect(s.table.get(idToHex(a!))?.lastSeen).toBe(s.clock.now() - OPTS.heartbeatTimeoutMs);
    s.contacts.learn(a!);
    expect(s.added).toEqual(hexes([a!]));
  });

  it('a contact failing maxFails calls in a row leaves, and its bucket\'s replacement moves in', () => {
    const s = setup();
    const [a, b, c] = s.far(3);
    for (const id of [a!, b!]) s.contacts.heard(id, idToHex(id));
    s.table.add(c!, s.clock.now()); // waits in the replacement cache (a and b were heard from lately)
    s.contacts.failed(a!, idToHex(a!));
    expect(s.dropped).toEqual([]);
    s.contacts.failed(a!, idToHex(a!));
    expect(s.dropped).toEqual(hexes([a!]));
    expect(s.added).toEqual(hexes([a!, b!, c!]));
  });
});
