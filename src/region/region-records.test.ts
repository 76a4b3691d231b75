// Signed region records, so no node forges where a region lives or what it holds: the owner rules and the readers,
// with the simulator's keys and two stand-in DHTs: a holder that runs the rules, and a
// lying one that keeps whatever it is sent (a reader must not trust the node it reads from).
import { Encoder } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { compareDistance, idEquals, idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import type { Signer } from '../core/signer';
import { createDhtNode } from '../dht/dht-node';
import type { Dht } from '../dht/dht';
import { NAMESPACE_LIMITS, type Namespace } from '../dht/messages';
import type { RecordRule } from '../dht/record-rules';
import { GLASS, STONE } from '../world/blocks';
import { CHUNK_SIZE } from '../world/coords';
import { signGrant, type ClaimTerms, type EpochCert } from './epoch-cert';
import { CertChecker } from './cert-checker';
import { inChain } from './cert-anchor';
import { HostSim, SIM_DHT, simKeyHash } from '../testing/host-sim';
import { RegionKeys } from './region-key';
import {
  checkEdits,
  compactCert,
  editsBytes,
  editsPartKey,
  editsRule,
  ENTRIES_PER_VALUE,
  getEdits,
  getLocation,
  locationBytes,
  locationRule,
  putEdits,
  putLocation,
  type RecordVerifier,
} from './region-records';
import { encodeEntries, type Entry } from './region-state';
import { SimKeyring } from '../testing/sim-keyring';
import { fixedNearView } from '../testing/near-views';

const rand = seededRandom(9);
const keyring = new SimKeyring('records-test');
const packer = new Encoder({ ignoreUndefined: true });

const [A, B, C, D, X] = [1, 2, 3, 4, 5].map(() => randomId(rand)) as [NodeId, NodeId, NodeId, NodeId, NodeId];
// Every reader here finds A-D nearest the regions' keys (cert-anchor.ts): X is far.
const near = fixedNearView([A, B, C, D]);
const rv: RecordVerifier = { certs: new CertChecker(keyring.verify, near, { idWorkBits: 0 }), verify: keyring.verify };
const rules: Partial<Record<Namespace, RecordRule>> = { chunk: locationRule(rv.certs, rv.verify), edits: editsRule(rv.certs, rv.verify) };
const K = randomId(rand); // the region
const K2 = randomId(rand); // another region
const signer = (id: NodeId) => keyring.signer(id);

/** A certificate for `key` granted by `granters` (the primary's grant first). */
async function certify(key: NodeId, terms: ClaimTerms, granters: NodeId[]): Promise<EpochCert> {
  return { ...terms, grants: await Promise.all(granters.map((g) => signGrant(signer(g), key, terms))) };
}
// A chain's root: granted by every host it names (epoch-cert.ts `chainRoot`).
const cert1 = (key = K) => certify(key, { e: 1, primary: A, hosts: [A, B, C] }, [A, B, C]);
const cert2 = () => certify(K, { e: 2, primary: B, hosts: [B, C, D], prev: { e: 1, hosts: [A, B, C] } }, [B, C, D]);

type Held = { value: Uint8Array; version: number };

/** A DHT of one holder: with `checked`, it runs the rules as every holder does; else it keeps anything. */
function fakeDht(checked: boolean) {
  const held = new Map<string, Held>();
  const dht = {
    stored: 0,
    refused: [] as string[],
    async put(ns: Namespace, key: NodeId, value: Uint8Array) {
      const k = `${ns}:${idToHex(key)}`;
      if (!checked) {
        held.set(k, { value, version: 0 });
        return { stored: 1 };
      }
      const r = await rules[ns]!.check(key, value, X, { view: near });
      const old = held.get(k);
      if (!r.ok) dht.refused.push(r.reason);
      else if (old && old.version >= r.version) dht.refused.push('stale');
      else {
        held.set(k, { value, version: r.version });
        dht.stored++;
        return { stored: 1 };
      }
      return { stored: 0 };
    },
    async get(ns: Namespace, key: NodeId) {
      const h = held.get(`${ns}:${idToHex(key)}`);
      return h && { value: h.value, publisher: X, seq: 0, version: h.version, ttlMs: 1000 };
    },
    raw: (ns: Namespace, key: NodeId, value: Uint8Array) => held.set(`${ns}:${idToHex(key)}`, { value, version: 0 }),
  };
  return dht as typeof dht & Pick<Dht, 'put' | 'get'>;
}

/** Raw record frames (what a forger can send): msgpack [code, body], as recordCodec writes them. */
const frame = (code: number, body: object) => packer.encode([code, body]);

async function forgedLocation(key: NodeId, cert: EpochCert, by: Signer, opts: { r?: number; pk?: boolean } = {}) {
  const r = opts.r ?? 0;
  const sig = await by.sign(locationBytes(key, cert, r));
  return frame(4, { cert, r, ...(opts.pk ? { pk: { a: 0, k: by.publicKey } } : {}), sig });
}

/** Entry key `i` blocks past the floor's last (y = 1 and up: no entry may set a block at y = 0). */
const k = (i: number) => CHUNK_SIZE * CHUNK_SIZE + i;

function entries(n: number, e: number, from = 0): Entry[] {
  return Array.from({ length: n }, (_, i) => ({ key: k(from + i), id: 1 + (i % 4), e, s: 1 + i }));
}

async function forgedEdits(key: NodeId, cert: EpochCert, by: Signer, opts: { i?: number; n?: number; v?: { e: number; s: number }; list?: Entry[] } = {}) {
  const i = opts.i ?? 0, n = opts.n ?? 1, v = opts.v ?? { e: cert.e, s: 1 };
  const body = encodeEntries(opts.list ?? entries(3, cert.e));
  const sig = await by.sign(editsBytes(key, cert, i, n, v, body));
  return frame(5, { key, i, n, v, cert, sig, entries: body });
}

describe('location records', () => {
  it('the certified primary publishes; getLocation returns it', async () => {
    const dht = fakeDht(true);
    const c = await cert1();
    await putLocation(dht, K, { signer: signer(A), cert: c }, 0);
    expect(dht.refused).toEqual([]);
    const rec = await getLocation(dht, K, rv);
    expect(rec && idEquals(rec.primary, A)).toBe(true);
    expect(rec?.epoch).toBe(1);
    expect(rec?.hosts.map(idToHex)).toEqual([A, B, C].map(idToHex));
    // Only the primary may sign with a certificate.
    await expect(putLocation(dht, K, { signer: signer(B), cert: c }, 1)).rejects.toThrow(/primary/);
  });

  it('refuses forgeries: no certificate, another region\'s, a non-primary\'s signature, a re-dated certificate', async () => {
    const c = await cert1();
    const forgeries: [string, Uint8Array][] = [
      ['unsigned (the old format)', frame(1, { primary: X, epoch: 9, hosts: [X] })],
      ['no certificate', frame(4, { r: 0, sig: await signer(X).sign(new Uint8Array(8)) })],
      ['junk', new Uint8Array(40)],
      ['a certificate for another region', await forgedLocation(K, await cert1(K2), signer(A))],
      ['signed by a backup (its own key)', await forgedLocation(K, c, signer(B), { pk: true })],
      ['signed by a backup (the primary\'s key)', await forgedLocation(K, c, signer(B))],
      ['signed by an outsider', await forgedLocation(K, c, signer(X), { pk: true })],
      ['a re-dated certificate', await forgedLocation(K, { ...c, e: 7 }, signer(A))],
      ['a certificate naming another primary', await forgedLocation(K, { ...c, primary: B }, signer(B))],
      ['a certificate with a grant too few', await forgedLocation(K, { ...c, grants: c.grants.slice(0, 1) }, signer(A))],
      ['a tampered revision', (() => {
        // valid signature over r = 0, sent with r = 5
        return forgedLocation(K, c, signer(A)).then(async () => frame(4, { cert: c, r: 5, sig: await signer(A).sign(locationBytes(K, c, 0)) }));
      })()],
    ].map(([what, v]) => [what as string, v as Uint8Array]);
    const resolved = await Promise.all(forgeries.map(async ([what, v]) => [what, await v] as const));
    const rule = locationRule(rv.certs, rv.verify);
    for (const [what, value] of resolved) {
      const r = await rule.check(K, value, X, { view: near });
      expect(r.ok, what).toBe(false);
      // A holder running the rule refuses it; a lying holder serves it, and the reader drops it.
      const holder = fakeDht(true);
      await holder.put('chunk', K, value);
      expect(holder.stored, what).toBe(0);
      const liar = fakeDht(false);
      liar.raw('chunk', K, value);
      expect(await getLocation(liar, K, rv), what).toBeUndefined();
    }
    // The honest record passes the same paths.
    const honest = await forgedLocation(K, c, signer(A));
    expect(await rule.check(K, honest, X, { view: near })).toMatchObject({ ok: true });
    const liar = fakeDht(false);
    liar.raw('chunk', K, honest);
    expect((await getLocation(liar, K, rv))?.epoch).toBe(1);
  });

  it('a newer epoch replaces an older one; an older never replaces a newer; revisions order within an epoch', async () => {
    const dht = fakeDht(true);
    const [c1, c2] = [await cert1(), await cert2()];
    await putLocation(dht, K, { signer: signer(A), cert: c1 }, 0);
    await putLocation(dht, K, { signer: signer(A), cert: c1 }, 5);
    expect((await getLocation(dht, K, rv))?.revision).toBe(5);
    await putLocation(dht, K, { signer: signer(A), cert: c1 }, 3);
    expect((await getLocation(dht, K, rv))?.revision).toBe(5);
    await putLocation(dht, K, { signer: signer(B), cert: c2 }, 0);
    let rec = await getLocation(dht, K, rv);
    expect(rec?.epoch).toBe(2);
    expect(rec && idEquals(rec.primary, B)).toBe(true);
    // The deposed primary keeps publishing, with any revision: it never wins again.
    await putLocation(dht, K, { signer: signer(A), cert: c1 }, 0xffffffff);
    rec = await getLocation(dht, K, rv);
    expect(rec?.epoch).toBe(2);
    expect(dht.refused).toEqual(['stale', 'stale']);
  });

  it('fits the chunk cap: sizes with Ed25519 and P-256 grants', async () => {
    const size = async (c: EpochCert, s: Signer) => {
      let n = 0;
      await putLocation({ put: async (_ns, _k, v) => ((n = v.length), { stored: 1 }), get: async () => undefined }, K, { signer: s, cert: c }, 12345);
      return n;
    };
    const ed = await size(await cert1(), signer(A));
    const edChange = await size(await cert2(), signer(B));
    // P-256: 65-byte keys, 64-byte signatures (sizes only: nothing verifies these).
    const p256 = (c: EpochCert): EpochCert => ({ ...c, grants: c.grants.map((g) => ({ ...g, a: 1, k: new Uint8Array(65).fill(4), s: new Uint8Array(64) })) });
    const pSigner = (id: NodeId): Signer => ({ id, alg: 'ECDSA-P256', publicKey: new Uint8Array(65).fill(4), sign: async () => new Uint8Array(64) });
    const pw = await size(p256(await cert1()), pSigner(A));
    // Worst case at r = 3: a membership change to a disjoint set, a majority of each (4 grants).
    const disjoint = p256(await certify(K, { e: 2, primary: D, hosts: [D, X, C], prev: { e: 1, hosts: [A, B, B.map((b) => b ^ 1)] } }, [D, X, A, B]));
    const worst = await size(disjoint, pSigner(D));
    console.log(`location record bytes: Ed25519 ${ed}, Ed25519 membership change ${edChange}, P-256 ${pw}, P-256 disjoint change ${worst} (cap ${NAMESPACE_LIMITS.chunk.maxValueBytes})`);
    expect(worst).toBeLessThanOrEqual(NAMESPACE_LIMITS.chunk.maxValueBytes);
    // A certificate carries only the grants it needs: a majority of a link's set, every host of a root.
    const full = await certify(K, { e: 2, primary: A, hosts: [A, B, C], prev: { e: 1, hosts: [A, B, C] } }, [A, B, C]);
    expect(compactCert(full).grants.map((g) => idToHex(g.id))).toEqual([A, B].map(idToHex));
    // Given the key, the primary's and then the grants of the hosts nearest it.
    const nearer = compareDistance(B, C, K) < 0 ? B : C;
    expect(compactCert(full, K).grants.map((g) => idToHex(g.id))).toEqual([A, nearer].map(idToHex));
    const reversed = { ...full, grants: [...full.grants].reverse() };
    expect(compactCert(reversed, K).grants.map((g) => idToHex(g.id))).toEqual([A, nearer].map(idToHex));
    expect(compactCert(await cert1()).grants.map((g) => idToHex(g.id))).toEqual([A, B, C].map(idToHex));
  });
});

describe('edit logs', () => {
  it('the certified primary publishes a log in parts; getEdits reads them all', async () => {
    const dht = fakeDht(true);
    const list = entries(ENTRIES_PER_VALUE + 10, 1);
    expect(await putEdits(dht, K, { signer: signer(A), cert: await cert1() }, { e: 1, s: list.length }, list)).toBe(0);
    expect(dht.refused).toEqual([]);
    expect(dht.stored).toBe(2);
    expect((await getEdits(dht, K, rv))?.length).toBe(list.length);
    expect((await getEdits(dht, K))?.length).toBe(list.length);
  });

  it('refuses forged logs and parts; a reader drops them', async () => {
    const c = await cert1();
    const rule = editsRule(rv.certs, rv.verify);
    const p1 = await editsPartKey(K, 1);
    const part = (key: NodeId, i: number, cert = c, by = signer(A)) => forgedEdits(key, cert, by, { i, n: 2, list: entries(2, 1, 900) });
    const cases: [string, NodeId, Uint8Array][] = [
      ['unsigned (the old format)', K, frame(2, { v: { e: 1, s: 1 }, n: 1, entries: encodeEntries(entries(1, 1)) })],
      ['signed by a backup', K, await forgedEdits(K, c, signer(B))],
      ['signed by an outsider with its own key', K, frame(5, { key: K, i: 0, n: 1, v: { e: 1, s: 1 }, cert: c, pk: { a: 0, k: signer(X).publicKey }, sig: await signer(X).sign(editsBytes(K, c, 0, 1, { e: 1, s: 1 }, encodeEntries(entries(3, 1)))), entries: encodeEntries(entries(3, 1)) })],
      ['a certificate for another region', K, await forgedEdits(K, await cert1(K2), signer(A))],
      ['a head naming another region', K, await forgedEdits(K2, await cert1(K2), signer(A))],
      ['a re-dated certificate', K, await forgedEdits(K, { ...c, e: 9 }, signer(A), { v: { e: 9, s: 1 } })],
      ['a stamp past its certificate', K, await forgedEdits(K, c, signer(A), { v: { e: 5, s: 1 } })],
      ['a part stored under the head key', K, await part(K, 1)],
      ['a part under another index\'s key', await editsPartKey(K, 2), await part(K, 1)],
      ['a part of another region under this one\'s part key', p1, await part(K2, 1, await cert1(K2))],
      ['a part signed by a backup', p1, await part(K, 1, c, signer(B))],
      ['a part with its entries swapped', p1, (() => {
        const good = entries(2, 1, 900);
        return signer(A).sign(editsBytes(K, c, 1, 2, { e: 1, s: 1 }, encodeEntries(good))).then((sig) => frame(5, { key: K, i: 1, n: 2, v: { e: 1, s: 1 }, cert: c, sig, entries: encodeEntries(entries(2, 1, 500)) }));
      })()],
    ].map(([w, k, v]) => [w as string, k as NodeId, v as Uint8Array]);
    for (const [what, key, v] of cases) {
      const value = await v;
      expect((await rule.check(key, value, X, { view: near })).ok, what).toBe(false);
      const holder = fakeDht(true);
      await holder.put('edits', key, value);
      expect(holder.stored, what).toBe(0);
    }
    // A lying holder serves a forged head: nothing read. A forged part next to an honest head:
    // the head's entries only.
    const liar = fakeDht(false);
    liar.raw('edits', K, await forgedEdits(K, c, signer(B)));
    expect(await getEdits(liar, K, rv)).toBeUndefined();
    liar.raw('edits', K, await forgedEdits(K, c, signer(A), { n: 2 }));
    liar.raw('edits', p1, await part(K, 1, c, signer(B)));
    expect((await getEdits(liar, K, rv))?.map((e) => e.key)).toEqual([k(0), k(1), k(2)]);
    liar.raw('edits', p1, await part(K2, 1, await cert1(K2)));
    expect((await getEdits(liar, K, rv))?.map((e) => e.key)).toEqual([k(0), k(1), k(2)]);
    expect((await getEdits(liar, K))?.map((e) => e.key)).toEqual([k(0), k(1), k(2)]); // names another region
    liar.raw('edits', p1, await part(K, 1));
    expect((await getEdits(liar, K, rv))?.map((e) => e.key)).toEqual([k(0), k(1), k(2), k(900), k(901)]);
    // Entries stamped after the certificate's epoch are never taken, even from a valid primary.
    liar.raw('edits', K, await forgedEdits(K, c, signer(A), { list: [...entries(1, 1), { key: k(77), id: 3, e: 40, s: 1 }] }));
    expect((await getEdits(liar, K, rv))?.map((e) => e.key)).toEqual([k(0)]);
  });

  it('a reader given its chain takes only parts signed under a certificate of it', async () => {
    const dht = fakeDht(true);
    const [c1, c2] = [await cert1(), await cert2()];
    await putEdits(dht, K, { signer: signer(B), cert: c2 }, { e: 1, s: 3 }, entries(3, 1));
    expect((await getEdits(dht, K, rv, undefined, (c) => inChain(c, c2)))?.length).toBe(3);
    expect((await getEdits(dht, K, undefined, undefined, (c) => inChain(c, c2)))?.length).toBe(3);
    // Held by a primary of epoch 1 only (or one whose chain is another set): not its log.
    expect(await getEdits(dht, K, rv, undefined, (c) => inChain(c, c1))).toBeUndefined();
    expect(await getEdits(dht, K, undefined, undefined, (c) => inChain(c, c1))).toBeUndefined();
  });

  it('a newer epoch\'s log replaces an older one; an older never replaces a newer', async () => {
    const dht = fakeDht(true);
    const [c1, c2] = [await cert1(), await cert2()];
    await putEdits(dht, K, { signer: signer(A), cert: c1 }, { e: 1, s: 3 }, entries(3, 1));
    await putEdits(dht, K, { signer: signer(A), cert: c1 }, { e: 1, s: 4 }, entries(4, 1));
    expect((await getEdits(dht, K, rv))?.length).toBe(4);
    // The new primary's log, before any edit of its own (state version still of epoch 1).
    await putEdits(dht, K, { signer: signer(B), cert: c2 }, { e: 1, s: 4 }, entries(5, 1));
    expect((await getEdits(dht, K, rv))?.length).toBe(5);
    await putEdits(dht, K, { signer: signer(B), cert: c2 }, { e: 2, s: 1 }, [...entries(5, 1), { key: k(99), id: 1, e: 2, s: 1 }]);
    expect((await getEdits(dht, K, rv))?.length).toBe(6);
    // The deposed primary's later publication (more edits in its old epoch) loses.
    await putEdits(dht, K, { signer: signer(A), cert: c1 }, { e: 1, s: 1000 }, entries(1000, 1));
    expect((await getEdits(dht, K, rv))?.length).toBe(6);
    expect(dht.refused).toEqual(['stale']);
    const head = await dht.get('edits', K);
    expect(await checkEdits(rv, K, head!.value)).toMatchObject({ ok: true, rec: { v: { e: 2, s: 1 } } });
  });
});

describe('on the simulator (every node runs the rules)', () => {
  it('honest records pass; a rogue\'s forged location record and edit log are refused by the holders and never read', async () => {
    const sim = new HostSim({ seed: 5 });
    await sim.grow(10);
    const region = { rx: 0, rz: 0 };
    const a = sim.pick();
    await sim.settle(a.client.subscribe(region));
    await sim.settle(a.client.submit(6, 71, 6, STONE, { x: 5, y: 70, z: 5 }));
    await sim.run(5000); // the log is published PUBLISH_MS after the edit
    const key = await new RegionKeys(sim.world, simKeyHash).key(region);
    const primary = sim.primaryOf('0,0')!;
    const reader = sim.live().find((p) => p !== primary)!;
    const srv: RecordVerifier = { certs: new CertChecker(sim.keyring.verify, reader.dht.nearView, { idWorkBits: reader.dht.idWorkBits }), verify: sim.keyring.verify, hash: simKeyHash };
    const loc = await sim.settle(getLocation(reader.dht, key, srv));
    expect(loc && idEquals(loc.primary, primary.dht.selfId)).toBe(true);
    const honest = await sim.settle(getEdits(reader.dht, key, srv));
    expect(honest?.length).toBe(1);
    const rejects = () => sim.live().reduce((n, p) => n + Object.values(p.dht.stats.ruleRejects).reduce((x, y) => x + y, 0), 0);
    expect(rejects()).toBe(0);

    // A rogue node that runs no rules itself stores forgeries at the top seq: the epoch's
    // certificate re-dated, and the real certificate with the rogue's own signature.
    const rogueId = randomId(rand);
    const rogue = createDhtNode({
      selfId: rogueId,
      transport: sim.net.addNode(rogueId),
      clock: sim.clock,
      bootstrap: { peers: [a.dht.selfId], signals: sim.net.relay(rogueId) },
      options: { ...SIM_DHT, random: seededRandom(77), records: {} },
    });
    await sim.settle(rogue.start());
    const me = sim.keyring.signer(rogueId);
    const glass: Entry[] = [{ key: k(77), id: GLASS, e: loc!.epoch + 50, s: 1 }];
    const forged = [
      ['chunk', await forgedLocation(key, { ...loc!.cert, e: loc!.epoch + 50 }, signer(primary.dht.selfId))],
      ['chunk', await forgedLocation(key, loc!.cert, me, { pk: true, r: 0xfffffff })],
      ['edits', await forgedEdits(key, { ...loc!.cert, e: loc!.epoch + 50 }, me, { v: { e: loc!.epoch + 50, s: 1 }, list: glass })],
      ['edits', await forgedEdits(key, loc!.cert, me, { list: [{ ...glass[0]!, e: loc!.epoch }] })],
    ] as const;
    for (const [ns, value] of forged) {
      const r = await sim.settle(rogue.put(ns, key, value, { seq: 0xffffffff }));
      expect(r.stored).toBeLessThanOrEqual(1); // its own copy at most
    }
    expect(rejects()).toBeGreaterThanOrEqual(forged.length);
    for (const p of sim.live()) {
      const l = await sim.settle(getLocation(p.dht, key));
      expect(l && idEquals(l.primary, primary.dht.selfId) && l.epoch === loc!.epoch).toBe(true);
      expect((await sim.settle(getEdits(p.dht, key, undefined, simKeyHash)))?.map((e) => e.id)).toEqual([STONE]);
    }
    rogue.stop();
    sim.stopAll();
  });
});
