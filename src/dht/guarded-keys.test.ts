// A DHT node guards the keys of its own id, its routing table's contacts and its links while it
// runs (dht-node.ts; core/key-ids.ts `guardKeys`): the key memory keeps them apart when an
// attacker cycling minted ids through it pushes every other key out (core/key-memory.test.ts).
import { describe, expect, it } from 'vitest';
import { keyGuarded } from '../core/key-ids';
import { idToHex, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { SimCluster } from '../testing/sim-cluster';

const SIM = { heartbeatMs: 30_000, heartbeatTimeoutMs: 90_000, joinRefresh: 'empty' as const };

describe('the keys a DHT node guards', () => {
  it('its own, its contacts\' and its links\' while it runs; none once stopped', async () => {
    const rand = seededRandom(28);
    const [ownId, hostId, strangerId] = [randomId(rand), randomId(rand), randomId(rand)];
    const c = new SimCluster({ seed: 28, dht: SIM });
    expect(await c.settle(c.joinOne(ownId))).toBe(true);
    expect(await c.settle(c.joinOne(hostId))).toBe(true);
    const own = c.nodes.get(idToHex(ownId))!;
    expect(own.table.has(idToHex(hostId)) && own.links.get(idToHex(hostId)) !== undefined, 'linked, and a contact').toBe(true);
    expect(keyGuarded(ownId)).toBe(true);
    expect(keyGuarded(hostId)).toBe(true);
    expect(keyGuarded(strangerId)).toBe(false);
    c.stopAll();
    expect(keyGuarded(ownId) || keyGuarded(hostId), 'guards end with their nodes').toBe(false);
  });
});
