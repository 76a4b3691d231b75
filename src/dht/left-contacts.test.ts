// A join into a world some nodes have just left, silently (a crashed or closed tab says no
// goodbye): the nodes still there keep naming them in their answers until they find them
// dead (up to the heartbeat timeout), so the newcomer's lookups meet them. It is usable as
// bootstrap/peer.ts judges (a link, then its own id looked up) within two lookup stalls of
// meeting them (`lookupGiveUpMs`), not their RPC timeout; its next lookup asks them without
// waiting at all (silent-candidates.ts). The app's DHT timings (RPC timeout 4 s, stall 1 s),
// the real node code, the in-memory network, a virtual clock.
import { describe, expect, it } from 'vitest';
import { idToHex, randomId } from '../core/node-id';
import { SimCluster } from '../testing/sim-cluster';
import { DHT_DEFAULTS, type DhtOptions } from './dht-options';

const RPC_TIMEOUT_MS = DHT_DEFAULTS.rpcTimeoutMs;

/** A world of `size`, `gone` of its nodes killed silently just before a newcomer joins it. */
async function rejoin(seed: number, size: number, gone: number, dht: Partial<DhtOptions> = {}) {
  const c = new SimCluster({ seed, bootstrapPeers: 4, dht });
  await c.grow(size, { maxBatch: 4 });
  await c.run(10_000);
  const left = [...c.nodes.keys()].slice(0, gone);
  for (const hex of left) c.kill(hex);
  // Every node still holds the ones that left: they are what the newcomer will be told of.
  const stillNamed = [...c.nodes.values()].filter((n) => left.some((hex) => n.table.has(hex))).length;
  const id = randomId(c.rand);
  const t0 = c.clock.now();
  const joining = c.joinOne(id);
  const node = c.nodes.get(idToHex(id))!;
  // bootstrap/peer.ts `join`: usable at the first link and a lookup of its own id after it.
  const linked = new Promise<void>((resolve) => {
    const off = node.events.on('link-open', () => (off(), resolve()));
  });
  const usable = linked.then(async () => {
    const res = await node.findNode(node.selfId);
    return { ms: c.clock.now() - t0, failures: res.failures, found: res.closest.map((x) => x.hex) };
  });
  const self = await c.settle(usable);
  const t1 = c.clock.now();
  const next = await c.settle(node.findNode(randomId(c.rand)));
  const nextMs = c.clock.now() - t1;
  await c.settle(joining);
  const result = { stillNamed, self, nextMs, nextFound: next.closest.map((x) => x.hex), left, live: [...c.nodes.keys()].filter((h) => h !== node.selfHex) };
  c.stopAll();
  return result;
}

describe('a join into a world some nodes had just left', () => {
  it('is usable within two stalls of the gone ones, not their RPC timeout, and its next lookup does not wait for them', async () => {
    for (const [gone, within] of [[2, DHT_DEFAULTS.lookupGiveUpMs + 500], [4, RPC_TIMEOUT_MS]] as const) {
      for (const seed of [1, 2, 3]) {
        const r = await rejoin(seed, 12, gone);
        expect(r.stillNamed).toBe(12 - gone); // the case: every live node names the gone ones
        expect(r.self.failures).toBeGreaterThan(0); // it met them, and gave up on them
        expect(r.self.ms).toBeLessThan(within);
        expect(r.nextMs).toBeLessThan(DHT_DEFAULTS.lookupStallMs / 2); // 0.1-0.3 s
        // What they found is the live nodes, every one of them (fewer than k in all).
        for (const found of [r.self.found, r.nextFound]) {
          expect(found.filter((h) => r.left.includes(h))).toEqual([]);
          expect([...found].sort()).toEqual([...r.live].sort());
        }
      }
    }
  });

  it('waiting on the gone ones instead (no giving up), the same joins take the RPC timeout, twice over with 4 gone', async () => {
    // 4 gone: the first ones' retries hold the lookup's parallel slots until their window
    // closes, and the next gone ones are asked only then. And each lookup waits anew.
    for (const [gone, over] of [[2, RPC_TIMEOUT_MS], [4, 2 * RPC_TIMEOUT_MS]] as const) {
      const r = await rejoin(1, 12, gone, { lookupGiveUpMs: RPC_TIMEOUT_MS });
      expect(r.self.ms).toBeGreaterThan(over);
      expect(r.nextMs).toBeGreaterThan(over);
    }
  });
});
