// The message handlers alone: a real table and store, everything they send recorded.
import { describe, expect, it } from 'vitest';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import type { SignalBlob } from '../net/transport';
import type { DhtMessage, Reply } from './messages';
import type { Origin } from './overlay-router';
import { RoutingTable } from './routing-table';
import { RpcHandlers } from './rpc-handlers';
import { newStats } from './stats';
import { ValueStore } from './value-store';
import type { AcceptOutcome } from './values';

function setup(outcome: AcceptOutcome | 'throw' = 'stored') {
  const clock = new VirtualClock();
  const rand = seededRandom(16);
  const self = randomId(rand);
  const table = new RoutingTable(self);
  for (let i = 0; i < 30; i++) table.add(randomId(rand), 0);
  const store = new ValueStore();
  const stats = newStats();
  const sent: { to: string; msg: DhtMessage; via: readonly NodeId[] }[] = [];
  const resolved: Reply[] = [];
  const signals: SignalBlob[] = [];
  const data: Uint8Array[] = [];
  const handlers = new RpcHandlers({
    clock,
    opts: { k: 20, secondReplyRoute: 'repeat', rpcTimeoutMs: 4000, readOnly: false },
    stats,
    table,
    store,
    send: (_id, hex, msg, via = []) => (sent.push({ to: hex, msg, via }), true),
    accept: async () => {
      if (outcome === 'throw') throw new Error('rule blew up');
      return outcome;
    },
    resolve: (_hex, reply) => (reply.r === 1 ? (resolved.push(reply), true) : false),
    signal: (blob) => void signals.push(blob),
    data: (_from, body) => void data.push(body),
  });
  handlers.start();
  const asker = randomId(rand);
  const from: Origin = { id: asker, hex: idToHex(asker), via: [randomId(rand)] };
  return { rand, table, store, stats, sent, resolved, signals, data, handlers, from };
}

describe('RpcHandlers', () => {
  it('answers PING, FIND_NODE and FIND_VALUE back along the request\'s reverse path, never naming the asker', () => {
    const s = setup();
    s.table.add(s.from.id, 0);
    const target = s.from.id;
    s.handlers.handle({ t: 'PING', r: 5 }, s.from);
    s.handlers.handle({ t: 'FIND_NODE', r: 6, target }, s.from);
    s.handlers.handle({ t: 'FIND_VALUE', r: 7, ns: 'test', key: target }, s.from);
    expect(s.sent.map((x) => [x.to, x.msg.t, 'r' in x.msg && x.msg.r, x.via])).toEqual([
      [s.from.hex, 'PONG', 5, s.from.via],
      [s.from.hex, 'NODES', 6, s.from.via],
      [s.from.hex, 'VALUE', 7, s.from.via],
    ]);
    const nodes = s.sent[1]!.msg.t === 'NODES' ? s.sent[1]!.msg.nodes : [];
    expect(nodes.length).toBe(20);
    expect(nodes.map(idToHex)).not.toContain(s.from.hex);
    expect(nodes.map(idToHex)).toEqual(s.table.closest(target, 20, s.from.hex).map((c) => c.hex));
  });

  it('answers by plain routing too: a repeated routed request, and a FIND_NODE for our own id from the first ask', () => {
    const s = setup();
    const from: Origin = { ...s.from, via: [randomId(s.rand), randomId(s.rand)] };
    const routes = () => s.sent.splice(0).map((x) => (x.via.length === 0 ? 'plain' : 'reverse'));
    const target = randomId(s.rand);
    s.handlers.handle({ t: 'FIND_NODE', r: 1, target }, from);
    expect(routes()).toEqual(['reverse']);
    s.handlers.handle({ t: 'FIND_NODE', r: 2, target }, from); // a retry: our answer was lost
    expect(routes()).toEqual(['reverse', 'plain']);
    s.handlers.handle({ t: 'FIND_NODE', r: 3, target: s.table.selfId }, from);
    expect(routes()).toEqual(['reverse', 'plain']);
    s.handlers.handle({ t: 'FIND_NODE', r: 4, target: s.table.selfId }, { ...from, via: from.via.slice(1) }); // one hop away: one way only
    expect(routes()).toEqual(['reverse']);
  });

  it('a holder answers FIND_VALUE with the value and the closest nodes', () => {
    const s = setup();
    const key = randomId(s.rand);
    s.store.put('test', key, idToHex(key), { v: new Uint8Array([9]), pub: key, seq: 3, ttl: 1000 }, 3, 0, { equalReplaces: true, maxTtlMs: 5000 });
    s.handlers.handle({ t: 'FIND_VALUE', r: 1, ns: 'test', key }, s.from);
    const m = s.sent[0]!.msg;
    if (m.t !== 'VALUE') throw new Error(m.t);
    expect([m.rec?.v[0], m.rec?.seq, m.nodes.length]).toEqual([9, 3, 20]);
  });

  it.each([
    ['stored', true],
    ['refreshed', true],
    ['notNear', false],
    ['throw', false],
  ] as const)('answers a STORE after the holder\'s check: %s', async (outcome, ok) => {
    const s = setup(outcome);
    const key = randomId(s.rand);
    s.handlers.handle({ t: 'STORE', r: 2, ns: 'test', key, rec: { v: new Uint8Array([1]), pub: key, seq: 1, ttl: 1000 } }, s.from);
    expect(s.sent).toEqual([]); // not before the (async) check
    await Promise.resolve();
    await Promise.resolve();
    expect(s.sent.map((x) => x.msg)).toEqual([{ t: 'STORED', r: 2, ok }]);
    expect([s.stats.storesAccepted, s.stats.storesRejected]).toEqual(ok ? [1, 0] : [0, 1]);
    if (!ok) expect(s.stats.storeRefused[outcome === 'throw' ? 'invalid' : outcome]).toBe(1);
  });

  it('hands replies to the RPC table, counting the unexpected; SIGNAL and DATA go on; a routed CLOSING is counted', () => {
    const s = setup();
    s.handlers.handle({ t: 'PONG', r: 1 }, s.from);
    s.handlers.handle({ t: 'NODES', r: 99, nodes: [] }, s.from);
    s.handlers.handle({ t: 'SIGNAL', blob: { type: 'offer' } }, s.from);
    s.handlers.handle({ t: 'DATA', body: new Uint8Array([4]) }, s.from);
    s.handlers.handle({ t: 'CLOSING' }, s.from);
    expect(s.resolved).toEqual([{ t: 'PONG', r: 1 }]);
    expect(s.signals).toEqual([{ type: 'offer' }]);
    expect(s.data).toEqual([new Uint8Array([4])]);
    expect(s.stats.dropped.unexpected).toBe(2);
    expect(s.sent).toEqual([]);
  });

  it('ignores everything once stopped', () => {
    const s = setup();
    s.handlers.stop();
    s.handlers.handle({ t: 'PING', r: 5 }, s.from);
    s.handlers.handle({ t: 'DATA', body: new Uint8Array([4]) }, s.from);
    expect([s.sent, s.data]).toEqual([[], []]);
  });
});
