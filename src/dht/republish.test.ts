// Publishing and keeping values alive, alone on the virtual clock: a real table and store,
// storeAt and calls recorded.
import { describe, expect, it } from 'vitest';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { randomIdInBucket } from './bucket-refresh';
import { RecordRejectedError, ValueTooLargeError } from './dht';
import { MAX_VALUE_TTL_MS, type Namespace, type ValueRecord } from './messages';
import { Republisher } from './republish';
import { RoutingTable } from './routing-table';
import type { Call } from './rpc';
import { newStats } from './stats';
import { ValueStore } from './value-store';

const OPTS = { k: 3, handoverHolders: 2, valueTtlMs: 50_000, republishMs: 20_000, replicateMs: 30_000, valueSweepMs: 5000 };

function setup() {
  const clock = new VirtualClock();
  const rand = seededRandom(14);
  const self = randomId(rand);
  const table = new RoutingTable(self);
  const store = new ValueStore();
  const stats = newStats();
  const puts: { ns: Namespace; key: string; rec: ValueRecord; at: number }[] = [];
  const sent: { to: string; key: string }[] = [];
  const call: Call = async (_id, hex, req) => {
    if (req.t === 'STORE') sent.push({ to: hex, key: idToHex(req.key) });
    return { t: 'STORED', r: 0, ok: true };
  };
  const rep = new Republisher({
    selfId: self,
    clock,
    opts: { ...OPTS, records: { player: { check: async (_k, v) => (v[0] === 0 ? { ok: false, reason: 'zero' } : { ok: true, version: v[0]! }) } } },
    stats,
    table,
    store,
    call,
    storeAt: async (ns, key, rec) => (puts.push({ ns, key: idToHex(key), rec, at: clock.now() }), { stored: 3 }),
  });
  const hold = (key: NodeId, now: number) =>
    store.put('test', key, idToHex(key), { v: new Uint8Array([1]), pub: randomId(rand), seq: 1, ttl: 3_600_000 }, 1, now, { equalReplaces: true, maxTtlMs: MAX_VALUE_TTL_MS });
  return { clock, rand, self, table, store, stats, rep, puts, sent, hold };
}

describe('Republisher', () => {
  it('put stores on the k closest with the next seq; refuses what is too large or what its rule refuses', async () => {
    const s = setup();
    const key = randomId(s.rand);
    expect(await s.rep.put('test', key, new Uint8Array([1]))).toEqual({ stored: 3 });
    await s.rep.put('test', key, new Uint8Array([2]));
    await s.rep.put('test', key, new Uint8Array([3]), { seq: 40, ttlMs: 1000 });
    expect(s.puts.map((p) => [p.rec.seq, p.rec.ttl, idToHex(p.rec.pub) === idToHex(s.self)])).toEqual([[1, 50_000, true], [2, 50_000, true], [40, 1000, true]]);
    // A key we hold a value for: one more than its seq.
    const held = randomId(s.rand);
    s.hold(held, 0);
    await s.rep.put('test', held, new Uint8Array([1]));
    expect(s.puts.at(-1)?.rec.seq).toBe(2);
    await expect(s.rep.put('test', key, new Uint8Array(5000))).rejects.toBeInstanceOf(ValueTooLargeError);
    await expect(s.rep.put('player', key, new Uint8Array([0]))).rejects.toBeInstanceOf(RecordRejectedError);
    expect(s.puts.length).toBe(4);
    expect(s.rep.publishedCount).toBe(2);
  });

  it('republishes what it put every republishMs with the lifetime left, until it expires', async () => {
    const s = setup();
    s.rep.start();
    await s.rep.put('test', randomId(s.rand), new Uint8Array([1]));
    await s.clock.advance(60_000);
    expect(s.puts.map((p) => [p.at, p.rec.ttl])).toEqual([[0, 50_000], [20_000, 30_000], [40_000, 10_000]]);
    expect(s.rep.publishedCount).toBe(0);
  });

  it('re-stores held values not refreshed for replicateMs, and drops expired ones', async () => {
    const s = setup();
    s.rep.start();
    const key = randomId(s.rand);
    s.hold(key, 0);
    const brief = randomId(s.rand);
    s.store.put('test', brief, idToHex(brief), { v: new Uint8Array([1]), pub: s.self, seq: 1, ttl: 7000 }, 1, 0, { equalReplaces: true, maxTtlMs: MAX_VALUE_TTL_MS });
    await s.clock.advance(25_000);
    expect(s.puts).toEqual([]);
    expect(s.store.size).toBe(1);
    await s.clock.advance(5000);
    expect(s.puts.map((p) => [p.key, p.at])).toEqual([[idToHex(key), 30_000]]);
    await s.clock.advance(25_000); // refreshed at 30 s: not again before 60 s
    expect(s.puts.length).toBe(1);
    s.rep.stop();
    await s.clock.advance(60_000);
    expect(s.puts.length).toBe(1);
  });

  it('hands a newcomer the values it is among the k closest of, only from the handoverHolders closest holders', () => {
    const s = setup();
    const key = randomIdInBucket(s.self, 3, s.rand); // close to us
    s.hold(key, 0);
    const add = (id: NodeId) => {
      const r = s.table.add(id, 0);
      if (r.status !== 'added') throw new Error(r.status);
      return r.contact;
    };
    for (const b of [5, 6, 7]) add(randomIdInBucket(s.self, b, s.rand)); // farther from the key than us
    s.rep.handOver(add(randomIdInBucket(s.self, 150, s.rand))); // not among the key's k closest
    expect(s.sent).toEqual([]);
    const near = add(randomIdInBucket(key, 1, s.rand));
    s.rep.handOver(near);
    expect(s.sent).toEqual([{ to: near.hex, key: idToHex(key) }]);
    expect(s.stats.replications).toBe(1);
    // Two holders closer to the key than we are: they hand it over, not us.
    for (const b of [0, 2]) add(randomIdInBucket(key, b, s.rand));
    s.rep.handOver(near);
    expect(s.sent.length).toBe(1);
  });
});
