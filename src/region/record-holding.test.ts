// A DHT holder with a region's record against the attacker's (record-holding.ts): a real
// holder (dht/values.ts and its value store) running the region record rules, with a fixed
// view of the nodes nearest the key. The attacker holds live ids 4th and 5th nearest the key
// (docs/TRUST.md (a): among the holder's 8 nearest, not its 3), a rogue far from it, and keys
// that are no nodes; the region's honest hosts are the 3 nearest. On e3f4ac7 every case
// marked "before" held the attacker's record: its version (its epoch) outbid every honest one.
import { describe, expect, it } from 'vitest';
import { idToHex, randomId, sortByDistance, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import type { Namespace } from '../dht/messages';
import type { NearView } from '../dht/near-view';
import { RoutingTable } from '../dht/routing-table';
import { newStats } from '../dht/stats';
import { ValueStore } from '../dht/value-store';
import { Values } from '../dht/values';
import { fixedNearView } from '../testing/near-views';
import { SimKeyring } from '../testing/sim-keyring';
import { LEARN_EPOCH_CAP } from './cert-anchor';
import { CertChecker } from './cert-checker';
import { MAX_EPOCH, signGrant, type ClaimTerms, type EpochCert } from './epoch-cert';
import { putEdits, putLocation, regionRecordRules } from './region-records';
import type { Entry } from './region-state';

const rand = seededRandom(28);
const keyring = new SimKeyring('record-holding-test');
const K = randomId(rand);
// Twelve live nodes by distance to K: the honest hosts 1st to 3rd, the attacker's ids 4th and 5th.
const live = sortByDistance(Array.from({ length: 12 }, () => randomId(rand)), (x) => x, K);
const [H1, H2, H3, N4, N5, O6] = live as [NodeId, NodeId, NodeId, NodeId, NodeId, NodeId];
/** The attacker's rogue (a live node far from K) and two keys that are no nodes. */
const [R, F1, F2] = [randomId(rand), randomId(rand), randomId(rand)] as [NodeId, NodeId, NodeId];

/** A certificate granted by `granters` (a chain's root: every host it names, epoch-cert.ts `chainRoot`). */
async function certify(terms: ClaimTerms, granters: NodeId[]): Promise<EpochCert> {
  return { ...terms, grants: await Promise.all(granters.map((g) => signGrant(keyring.signer(g), K, terms))) };
}
const honest1 = () => certify({ e: 1, primary: H1, hosts: [H1, H2, H3] }, [H1, H2, H3]);
const honest2 = () => certify({ e: 2, primary: H2, hosts: [H2, H3, O6], prev: { e: 1, hosts: [H1, H2, H3] } }, [H2, H3, O6]);
/** The attacker's chain over its near ids (anchored among the holder's 8 nearest) at epoch `e`. */
const nearForged = (e: number) => certify({ e, primary: N4, hosts: [N4, N5, R] }, [N4, N5, R]);
/** Over keys that are no nodes (learnt: below LEARN_EPOCH_CAP only). */
const farForged = (e: number) => certify({ e, primary: F1, hosts: [F1, F2] }, [F1, F2]);

/** A holder of K's records whose view of the nodes nearest any key is `view`. */
function holder(view: NearView = fixedNearView(live)) {
  const clock = new VirtualClock(1000);
  const self = randomId(rand);
  const store = new ValueStore();
  const stats = newStats();
  const certs = new CertChecker(keyring.verify, view, { idWorkBits: 0 });
  const values = new Values({
    selfId: self,
    clock,
    opts: { k: 20, records: regionRecordRules(certs, keyring.verify), unruledMaxTtlMs: 60_000, storeNearFactor: 2, getAnswers: 3 },
    stats,
    table: new RoutingTable(self),
    store,
    lookup: () => Promise.reject(new Error('no lookups here')),
    call: () => Promise.reject(new Error('no calls here')),
    view,
  });
  /** A STORE of `cert`'s primary's location record (revision `r`): what the holder answered. */
  const location = async (cert: EpochCert, r = 0) => {
    let out = '';
    const put = async (ns: Namespace, key: NodeId, v: Uint8Array) => ((out = await values.accept(ns, key, { v, pub: cert.primary, seq: 0, ttl: 60_000 }, false)), { stored: 1 });
    await putLocation({ put, get: async () => undefined }, K, { signer: keyring.signer(cert.primary), cert }, r);
    return out;
  };
  /** A STORE of `cert`'s primary's edit log (its head only: a few entries). */
  const edits = async (cert: EpochCert, list: Entry[]) => {
    let out = '';
    const put = async (ns: Namespace, key: NodeId, v: Uint8Array) => ((out = await values.accept(ns, key, { v, pub: cert.primary, seq: 0, ttl: 60_000 }, false)), { stored: 1 });
    await putEdits({ put, get: async () => undefined }, K, { signer: keyring.signer(cert.primary), cert }, { e: cert.e, s: list.length }, list);
    return out;
  };
  /** The epoch of the certificate whose record the holder holds now. */
  const heldEpoch = (ns: 'chunk' | 'edits' = 'chunk') => {
    const h = store.get(ns, idToHex(K), clock.now());
    return h ? Math.floor(h.version / 2 ** 28) : undefined;
  };
  return { location, edits, heldEpoch, stats };
}

const blocks = (e: number, id: number): Entry[] => [{ key: 16 * 16 + 5, id, e, s: 1 }];

describe('a DHT holder ranks region records of two chains by its own view before their versions', () => {
  it('an honest record replaces the near ids\' record at MAX_EPOCH that a holder with nothing took (before: held for good)', async () => {
    const h = holder();
    expect(await h.location(await nearForged(MAX_EPOCH))).toBe('stored');
    expect(h.heldEpoch()).toBe(MAX_EPOCH);
    expect(await h.location(await honest1())).toBe('stored');
    expect(h.heldEpoch()).toBe(1);
    // The attacker stores its record again: refused (beyond the step a held chain may be re-anchored).
    expect(await h.location(await nearForged(MAX_EPOCH), 7)).toBe('invalid');
    expect(h.heldEpoch()).toBe(1);
  });

  it('nor does a near record within a re-anchoring step of the honest one take its place (before: taken by version)', async () => {
    const h = holder();
    expect(await h.location(await honest1())).toBe('stored');
    expect(await h.location(await nearForged(1_000))).toBe('invalid');
    expect(h.stats.ruleRejects['chunk:outranked']).toBe(1);
    expect(h.heldEpoch()).toBe(1);
  });

  it('an honest record replaces a learnt one signed by keys that are no nodes, below the cap (before: held for good)', async () => {
    const h = holder();
    expect(await h.location(await farForged(LEARN_EPOCH_CAP))).toBe('stored');
    expect(await h.location(await honest1())).toBe('stored');
    expect(h.heldEpoch()).toBe(1);
    expect(await h.location(await farForged(LEARN_EPOCH_CAP), 3)).toBe('invalid');
    expect(h.heldEpoch()).toBe(1);
  });

  it('an honest first certificate replaces the near ids\' one of the same epoch (before: refused as a fork)', async () => {
    const h = holder();
    expect(await h.location(await nearForged(1))).toBe('stored');
    expect(await h.location(await honest1())).toBe('stored');
    expect(h.heldEpoch()).toBe(1);
    expect(await h.location(await nearForged(1), 9)).toBe('invalid');
  });

  it('the edit log is held by the same rule (before: the near ids\' log at MAX_EPOCH kept)', async () => {
    const h = holder();
    expect(await h.edits(await nearForged(MAX_EPOCH), blocks(MAX_EPOCH, 20))).toBe('stored');
    expect(await h.edits(await honest1(), blocks(1, 1))).toBe('stored');
    expect(h.heldEpoch('edits')).toBe(1);
  });

  it('one chain goes by version: a later honest epoch replaces the earlier, never the other way round', async () => {
    const h = holder();
    expect(await h.location(await honest1())).toBe('stored');
    expect(await h.location(await honest2())).toBe('stored');
    expect(await h.location(await honest1(), 0xfffffff)).toBe('stale');
    expect(h.heldEpoch()).toBe(2);
  });

  it('an honest rebase from inside is of the held chain, though the holder\'s view still lists the dead hosts', async () => {
    // H1 and H2 died; H3 rebases over itself and the next live honest nodes, 6th and 7th.
    const h = holder();
    expect(await h.location(await honest1())).toBe('stored');
    const rebase = await certify({ e: 9, primary: H3, hosts: [H3, O6, live[6]!], prev: { e: 1, hosts: [H1, H2, H3] }, rebase: true }, [H3, O6, live[6]!]);
    expect(await h.location(rebase)).toBe('stored');
    expect(h.heldEpoch()).toBe(9);
    // The same set signed by a node outside the held one, whose own record it would be: outranked.
    const outside = await certify({ e: 10, primary: O6, hosts: [O6, live[6]!, live[7]!] }, [O6, live[6]!, live[7]!]);
    const h2 = holder();
    expect(await h2.location(await honest1())).toBe('stored');
    expect(await h2.location(outside)).toBe('invalid');
  });

  it('the model\'s limit: ids 2nd and 3rd nearest are the region for a holder, as for any reader', async () => {
    const h = holder();
    expect(await h.location(await honest1())).toBe('stored');
    // The attacker's two ids among the 3 nearest (H2 and H3 here stand for them) sign a chain of their own.
    const theirs = await certify({ e: 50, primary: H2, hosts: [H2, H3, R] }, [H2, H3, R]);
    expect(await h.location(theirs)).toBe('stored');
  });
});
