import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { idEquals, idToHex, randomId, sortByDistance, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { PrimarySearch, type PrimarySearchDeps } from './primary-search';
import { CLIENT_DEFAULTS, type ClientEvents, type Subscription } from './region-client-types';

/** A search whose lookups all fail, as a starved tab's do, with `near` the nodes its own view holds near the key. */
function setup(near: NodeId[]) {
  const rand = seededRandom(5);
  const self = randomId(rand);
  const key = randomId(rand);
  const clock = new VirtualClock();
  const sent: { to: NodeId; t: string; host?: boolean }[] = [];
  const dht = {
    selfId: self,
    findNode: () => Promise.reject(new Error('lookup timed out')),
    get: () => Promise.resolve(undefined),
    connect: () => Promise.resolve(),
    unpin: () => {},
    nearView: { near: (k: NodeId, n: number) => sortByDistance([self, ...near], (x) => x, k).slice(0, n), refresh: () => Promise.resolve(false) },
  };
  const deps = {
    args: { dht, clock, wire: { send: (to: NodeId, m: { t: string; host?: boolean }) => sent.push({ to, t: m.t, ...(m.host !== undefined ? { host: m.host } : {}) }) } },
    opts: CLIENT_DEFAULTS,
    stats: { reattaches: 0, reattachWhy: {} },
    edits: { unsend: () => {}, sendTo: () => {} },
    events: new Emitter<ClientEvents>(),
  } as unknown as PrimarySearchDeps;
  const sub = {
    coord: { rx: 0, rz: 0 }, name: '0,0', key: Promise.resolve(key), epoch: 0, primary: undefined, primaryHex: '', hosts: [],
    attached: false, attaching: false, closed: false, aloneUntil: 0, wake: () => {},
  } as unknown as Subscription;
  return { self, key, clock, sent, sub, search: new PrimarySearch(deps) };
}

describe('PrimarySearch', () => {
  it('a lookup that fails sends the SUBSCRIBE to the nodes its own view holds near the key, not to itself alone', async () => {
    const rand = seededRandom(9);
    const near = [randomId(rand), randomId(rand), randomId(rand), randomId(rand)];
    const s = setup(near);
    void s.search.attach(s.sub);
    // Location record (none), then the lookup (fails), for each of the first attempts.
    await s.clock.advance(3 * (CLIENT_DEFAULTS.attachTimeoutMs + 1000));
    s.sub.closed = true;
    const subs = s.sent.filter((m) => m.t === 'SUBSCRIBE');
    expect(subs.length).toBeGreaterThanOrEqual(2);
    // Ourselves at most as one candidate of the host set (the nearest three by distance),
    // never every SUBSCRIBE: without the fallback each went to ourselves.
    const candidates = sortByDistance([s.self, ...near], (x) => x, s.key).slice(0, CLIENT_DEFAULTS.replicas).map(idToHex);
    expect(subs.every((m) => candidates.includes(idToHex(m.to)))).toBe(true);
    expect(subs.some((m) => !idEquals(m.to, s.self))).toBe(true);
  });
});
