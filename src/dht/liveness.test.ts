// Liveness alone, on the virtual clock: fake links and a fake call, a real routing table.
import { describe, expect, it } from 'vitest';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { Liveness, stalest, type WatchedLink } from './liveness';
import type { Reply } from './messages';
import { RoutingTable } from './routing-table';
import { RpcTimeoutError, type Call } from './rpc';
import { newStats } from './stats';

const OPTS = { heartbeatMs: 5000, heartbeatTimeoutMs: 15_000, failureCheckMs: 1000, rpcTimeoutMs: 4000, staleProbesPerHeartbeat: 2 };

function setup(opts: Partial<typeof OPTS> = {}) {
  const clock = new VirtualClock();
  const rand = seededRandom(4);
  const self = randomId(rand);
  const table = new RoutingTable(self);
  const map = new Map<string, WatchedLink>();
  const closed: string[] = [];
  const pinged: string[] = [];
  const dropped: string[] = [];
  /** Peers that answer (after 30 ms, heard from then, as the node notes); the others time out. */
  const alive = new Set<string>();
  const call: Call = (id, hex) => {
    pinged.push(hex);
    return new Promise<Reply>((resolve, reject) => {
      if (alive.has(hex)) clock.setTimeout(() => (table.has(hex) && table.add(id, clock.now()), resolve({ t: 'PONG', r: 0 })), 30);
      else clock.setTimeout(() => reject(new RpcTimeoutError('timeout')), OPTS.rpcTimeoutMs);
    });
  };
  const links = { map, close: (hex: string) => void (closed.push(hex), map.delete(hex)) };
  const o = { ...OPTS, ...opts };
  const live = new Liveness({ selfHex: idToHex(self), clock, opts: o, stats: newStats(), table, links, call, dropped: (id) => void dropped.push(idToHex(id)) });
  const link = (id: NodeId, lastRx = clock.now()): WatchedLink => {
    const pl = { id, hex: idToHex(id), lastRx, pinging: false, rttMs: null };
    map.set(pl.hex, pl);
    return pl;
  };
  return { clock, rand, self, table, map, closed, pinged, dropped, alive, live, link, o };
}

describe('Liveness', () => {
  it('probes an unlinked contact after heartbeatTimeout - rpcTimeout - check (10 s), bounded below by a heartbeat', () => {
    expect(setup().live.staleAfterMs).toBe(10_000);
    expect(setup({ heartbeatTimeoutMs: 6000 }).live.staleAfterMs).toBe(5000);
    expect(setup({ failureCheckMs: 60_000 }).live.checkMs).toBe(5000);
  });

  it('closes a silent link within the heartbeat timeout of its last frame, not before the check ahead of it, and drops its peer', async () => {
    const s = setup();
    s.live.start();
    const pl = s.link(randomId(s.rand), 500);
    s.table.add(pl.id, 500);
    await s.clock.advance(14_000);
    expect(s.closed).toEqual([]);
    await s.clock.advance(1000); // t = 15 s: idle 14.5 s, past the timeout by the next check
    expect(s.closed).toEqual([pl.hex]);
    expect(s.table.has(pl.hex)).toBe(false);
    expect(s.dropped).toEqual([pl.hex]);
  });

  it('pings an idle link only from its lower-id end, and measures its rtt', async () => {
    const s = setup();
    let lower: NodeId, higher: NodeId;
    do [lower, higher] = [randomId(s.rand), randomId(s.rand)];
    while (!(idToHex(lower) < idToHex(s.self) && idToHex(s.self) < idToHex(higher)));
    const [a, b] = [s.link(lower), s.link(higher)];
    s.alive.add(a.hex).add(b.hex);
    s.live.start();
    await s.clock.advance(4000);
    expect(s.pinged).toEqual([]);
    await s.clock.advance(1000);
    expect(s.pinged).toEqual([b.hex]);
    await s.clock.advance(100);
    expect(b.rttMs).toBe(30);
    expect(b.pinging).toBe(false);
    expect(a.rttMs).toBe(null);
  });

  it('probes stale unlinked contacts stalest first, at most staleProbesPerHeartbeat per heartbeat; one that does not answer leaves', async () => {
    const s = setup();
    const ids = Array.from({ length: 5 }, () => randomId(s.rand));
    ids.forEach((id, i) => s.table.add(id, 100 * (5 - i))); // ids[4] is the stalest
    const linked = randomId(s.rand);
    s.table.add(linked, 0);
    s.link(linked).lastRx = 1e9; // linked: watched by its heartbeat, not probed
    s.alive.add(idToHex(ids[4]!));
    s.live.start();
    await s.clock.advance(11_000); // all stale since 10.5 s; the budget holds 2
    expect(s.pinged).toEqual([ids[4]!, ids[3]!].map(idToHex));
    await s.clock.advance(5000); // 2 more per 5 s
    expect(s.pinged.slice(2)).toEqual([ids[2]!, ids[1]!].map(idToHex));
    expect(s.table.has(idToHex(ids[3]!))).toBe(false); // timed out
    expect(s.table.has(idToHex(ids[4]!))).toBe(true); // answered
    expect(s.pinged).not.toContain(idToHex(linked));
  });

  it('does nothing once stopped, and starts again', async () => {
    const s = setup();
    const pl = s.link(randomId(s.rand), 0);
    s.live.start();
    s.live.start(); // idempotent: one timer
    s.live.stop();
    await s.clock.advance(60_000);
    expect(s.closed).toEqual([]);
    expect(s.clock.pending).toBe(0);
    s.live.start();
    await s.clock.advance(1000);
    expect(s.closed).toEqual([pl.hex]);
  });
  it('probeNow: a suspected link is PINGed at once and dropped when silent past the RPC timeout; a live one stays', async () => {
    const s = setup();
    const dead = s.link(randomId(s.rand));
    const live = s.link(randomId(s.rand));
    s.table.add(dead.id, 0);
    s.table.add(live.id, 0);
    s.alive.add(live.hex);
    s.live.probeNow(dead);
    s.live.probeNow(dead); // one probe at a time
    s.live.probeNow(live);
    expect(s.pinged).toEqual([dead.hex, live.hex]);
    await s.clock.advance(OPTS.rpcTimeoutMs - 1);
    expect(s.closed).toEqual([]);
    await s.clock.advance(1);
    expect(s.closed).toEqual([dead.hex]);
    expect(s.dropped).toEqual([dead.hex]);
    expect(s.table.has(dead.hex)).toBe(false);
    expect(s.map.has(live.hex)).toBe(true);
  });
});

describe('stalest', () => {
  it('picks what a stable sort by lastSeen puts first, ties in list order', () => {
    const rand = seededRandom(3);
    for (let round = 0; round < 200; round++) {
      const list = Array.from({ length: Math.floor(rand() * 30) }, (_, i) => ({ id: new Uint8Array(20), hex: `c${i}`, lastSeen: Math.floor(rand() * 6), fails: 0 }));
      const sorted = [...list].sort((a, b) => a.lastSeen - b.lastSeen);
      for (let k = 0; k <= 12; k++) expect(stalest(list, k).map((c) => c.hex)).toEqual(sorted.slice(0, k).map((c) => c.hex));
    }
  });
});
