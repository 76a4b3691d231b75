// Values alone, on the virtual clock: a real table and store, a fake lookup and fake calls.
// The 'player' rule here: value[0] is the version, value[1] = 0 marks a forgery.
import { NOBODY_NEAR } from './near-view';
import { describe, expect, it } from 'vitest';
import { OWN_SOURCE } from '../core/derivation-budget';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { randomIdInBucket } from './bucket-refresh';
import type { LookupResult } from './lookup';
import type { Lookup } from './lookups';
import type { Reply, ValueRecord } from './messages';
import type { RecordRule } from './record-rules';
import { RoutingTable } from './routing-table';
import type { Call } from './rpc';
import { newStats } from './stats';
import { ValueStore } from './value-store';
import { Values } from './values';

const K = 2;

function setup(found: { rec: ValueRecord; version: number }[] = []) {
  const clock = new VirtualClock(1000);
  const rand = seededRandom(12);
  const self = randomId(rand);
  const table = new RoutingTable(self);
  const store = new ValueStore();
  const stats = newStats();
  let checks = 0;
  /** Whose derivation budget each check of the rule spent (RecordRule.check `via`). */
  const vias: (string | undefined)[] = [];
  const rule: RecordRule = {
    check: async (_key, v, _pub, _held, via) => (checks++, vias.push(via), v[1] === 0 ? { ok: false, reason: 'forged' } : { ok: true, version: v[0]! }),
  };
  const lookups: { target: NodeId; wanted: number | undefined }[] = [];
  let closest: { id: NodeId; hex: string }[] = [];
  const lookup: Lookup = async (target, valueNs, wanted, check) => {
    lookups.push({ target, wanted: valueNs ? wanted : undefined });
    const values: LookupResult['values'] = [];
    // The lookup checks each answer; an answer that fails is dropped.
    if (check) for (const f of found) if ((await check(f.rec)).ok) values.push({ ...f, from: f.rec.pub });
    return { closest, values, hops: 1, queries: 1, failures: 0 };
  };
  const stored: string[] = [];
  /** STORE answers: ok from the first of closest, refused by the others. */
  const call: Call = async (_id, hex, req) => {
    if (req.t !== 'STORE') throw new Error(req.t);
    stored.push(hex);
    return { t: 'STORED', r: 0, ok: hex === closest[0]?.hex } as Reply;
  };
  const values = new Values({ selfId: self, clock, opts: { k: K, records: { player: rule }, unruledMaxTtlMs: 60_000, storeNearFactor: 2, getAnswers: 3 }, stats, table, store, lookup, call, view: NOBODY_NEAR });
  return { clock, rand, self, table, store, stats, values, lookups, stored, vias, checks: () => checks, setClosest: (c: NodeId[]) => (closest = c.map((id) => ({ id, hex: idToHex(id) }))) };
}

const rec = (pub: NodeId, version: number, forged = false, seq = 1): ValueRecord => ({ v: new Uint8Array([version, forged ? 0 : 1, 7]), pub, seq, ttl: 30_000 });

describe('Values', () => {
  it('a holder keeps what the rule takes, newer replacing older; the same bytes again only refresh, unchecked', async () => {
    const s = setup();
    const key = randomId(s.rand);
    const pub = randomId(s.rand);
    expect(await s.values.accept('player', key, rec(pub, 2), true)).toBe('stored');
    expect(await s.values.accept('player', key, rec(pub, 1), true)).toBe('stale');
    const checked = s.checks();
    expect(await s.values.accept('player', key, rec(pub, 2), true)).toBe('refreshed');
    expect(s.checks()).toBe(checked);
    expect(await s.values.accept('player', key, rec(pub, 9, true), true)).toBe('invalid');
    expect(s.stats.ruleRejects).toEqual({ 'player:forged': 1 });
    expect(await s.values.accept('player', key, { ...rec(pub, 3), v: new Uint8Array(5000) }, true)).toBe('tooLarge');
    expect(s.store.get('player', idToHex(key), s.clock.now())?.version).toBe(2);
    // No rule: version = seq, and an equal seq replaces (last writer wins at the top).
    expect(await s.values.accept('test', key, rec(pub, 1, false, 5), true)).toBe('stored');
    expect(await s.values.accept('test', key, rec(pub, 2, false, 5), true)).toBe('stored');
    expect(s.store.get('test', idToHex(key), s.clock.now())?.value[0]).toBe(2);
  });

  it('takes a remote STORE only near the key: refused once it knows 2k nodes closer to it', async () => {
    const s = setup();
    const key = randomIdInBucket(s.self, 159, s.rand); // as far from us as can be
    for (let b = 10; b < 10 + 2 * K - 1; b++) s.table.add(randomIdInBucket(key, b, s.rand), 0);
    expect(s.values.nearKey(key)).toBe(true);
    s.table.add(randomIdInBucket(key, 50, s.rand), 0);
    expect(s.values.nearKey(key)).toBe(false);
    expect(await s.values.accept('player', key, rec(s.self, 1), true)).toBe('notNear');
    expect(await s.values.accept('player', key, rec(s.self, 1), false)).toBe('stored'); // our own put
  });

  it('STOREs on the k closest the lookup found, and keeps a copy only when we are closer than the kth', async () => {
    const s = setup();
    const key = randomIdInBucket(s.self, 159, s.rand);
    const near = [randomIdInBucket(key, 20, s.rand), randomIdInBucket(key, 30, s.rand), randomIdInBucket(key, 40, s.rand)];
    s.setClosest(near);
    expect(await s.values.storeAt('player', key, rec(s.self, 1))).toEqual({ stored: 1 });
    expect(s.stored).toEqual(near.slice(0, K).map(idToHex));
    expect(s.store.size).toBe(0);
    s.setClosest(near.slice(0, 1)); // fewer than k found: we are among the k closest
    expect(await s.values.storeAt('player', key, rec(s.self, 1))).toEqual({ stored: 2 });
    expect(s.store.size).toBe(1);
  });

  // A node's own record (a region certificate it read from its store at start and publishes
  // again): the check when it keeps its copy, and each check of that copy on a read, spend no
  // peer's derivation budget (OWN_SOURCE: none at all, core/key-ids.ts); a reader's own test
  // is told so too. Before, all were charged to the unattributed source (via undefined), which
  // any frame nobody named spends.
  it("our own record is checked on no peer's budget: stored, read, and told to the reader as ours", async () => {
    const s = setup();
    const key = randomIdInBucket(s.self, 159, s.rand);
    s.setClosest([randomIdInBucket(key, 20, s.rand)]);
    expect(await s.values.storeAt('player', key, rec(s.self, 1))).toEqual({ stored: 2 });
    expect(OWN_SOURCE).toBeTypeOf('string');
    expect(s.vias, 'the check as we keep our copy').toEqual([OWN_SOURCE]);
    const told: (string | undefined)[] = [];
    const got = await s.values.get('player', key, (_v, via) => (told.push(via), Promise.resolve(true)));
    expect(got?.value[0]).toBe(1);
    expect(s.vias.slice(1), 'our copy checked again as we read it').toEqual([OWN_SOURCE]);
    expect(told).toEqual([OWN_SOURCE]);
    expect(got?.via).toBe(OWN_SOURCE);
    // A peer's STORE of a newer version: its checks are on that peer's budget again.
    expect(await s.values.accept('player', key, rec(s.self, 2), true, 'ab12')).toBe('stored');
    expect(s.vias.at(-1)).toBe('ab12');
    expect((await s.values.get('player', key))?.via).toBe('ab12');
  });

  it('get returns the highest valid version among our copy and the answers; forgeries never', async () => {
    const pub = randomId(seededRandom(1));
    const s = setup([{ rec: rec(pub, 3), version: 3 }, { rec: rec(pub, 9, true), version: 9 }, { rec: rec(pub, 3), version: 3 }]);
    const key = randomId(s.rand);
    expect(await s.values.accept('player', key, rec(pub, 2), false)).toBe('stored');
    const checked = s.checks();
    const got = await s.values.get('player', key);
    expect([got?.version, got?.value[0], got?.seq]).toEqual([3, 3, 1]);
    expect(s.lookups.at(-1)?.wanted).toBe(2); // our own copy counts as one answer
    expect(s.checks() - checked).toBe(3); // ours, the forgery, and the two equal answers once
    const none = setup([{ rec: rec(pub, 9, true), version: 9 }]);
    expect(await none.values.get('player', key)).toBeUndefined();
    expect(none.lookups.at(-1)?.wanted).toBe(3);
  });
});
