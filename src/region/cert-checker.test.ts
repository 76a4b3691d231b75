// The verifier's chain walk (docs/TRUST.md rule 1): a reader holding an old certificate
// takes a later one whose hosts it cannot place near the key when the sender shows the
// links between, each validly signed and granted by a majority of the hosts of the one
// before, starting from the reader's own. Before, such a reader refused the later
// certificate as unanchored, while the hosts holding it refused every claim that did not
// build on it: a region without a primary for good after a healed split.
import { describe, expect, it } from 'vitest';
import { ID_WORK_BITS, idWorkOk } from '../core/id-work';
import { compareDistance, randomId, sortByDistance, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { fixedNearView } from '../testing/near-views';
import { SimKeyring } from '../testing/sim-keyring';
import { ANCHOR_RANK, forkOf, FRESH_RANK } from './cert-anchor';
import { CertChecker } from './cert-checker';
import { MAX_EPOCH, signGrant, type ClaimTerms, type EpochCert } from './epoch-cert';

const rand = seededRandom(17);
const keyring = new SimKeyring('cert-checker-test');
const [A, B, C, F1, F2, F3, X, Y] = Array.from({ length: 8 }, () => randomId(rand)) as [NodeId, NodeId, NodeId, NodeId, NodeId, NodeId, NodeId, NodeId];
const K = randomId(rand);
// The reader finds A, B, C nearest the key: F1-F3 (hosts filled in from links during churn) and X, Y are far.
const checker = () => new CertChecker(keyring.verify, fixedNearView([A, B, C]), { idWorkBits: 0 });

async function certify(terms: ClaimTerms, granters: NodeId[], key = K): Promise<EpochCert> {
  return { ...terms, grants: await Promise.all(granters.map((g) => signGrant(keyring.signer(g), key, terms))) };
}
// e9: the region's first certificate, a chain's root, granted by every host it names.
const e9 = () => certify({ e: 9, primary: A, hosts: [A, B, C] }, [A, B, C]);
// e10: C and two far nodes, granted by B and C of e9's set (its majority) and by the new set's.
const e10 = () => certify({ e: 10, primary: C, hosts: [C, F1, F2], prev: { e: 9, hosts: [A, B, C] } }, [C, F1, B]);
// e11: during a split, the far side's set, granted by a majority of e10's set.
const e11 = () => certify({ e: 11, primary: F1, hosts: [F1, F2, F3], prev: { e: 10, hosts: [C, F1, F2] } }, [F1, F2, F3]);

describe('the certificate chain a sender shows', () => {
  it('takes a later certificate reached link by link from the one the reader holds, and refuses it without the links', async () => {
    const [held, mid, top] = [await e9(), await e10(), await e11()];
    const c = checker();
    expect(await c.check(K, top, { known: held, fresh: 'learn' })).toBe('unanchored');
    expect(await c.check(K, top, { known: held, chain: [mid], fresh: 'learn' })).toBeNull();
    expect(c.chained).toBe(1);
    // Links in any order, with links the reader does not need beside them.
    expect(await checker().check(K, top, { known: held, chain: [mid, held], fresh: 'near' })).toBeNull();
  });

  it('refuses links an attacker signed with its own keys, a link with a bad signature, and a link of another region', async () => {
    const [held, mid, top] = [await e9(), await e10(), await e11()];
    // The attacker names our hosts as e10's previous set, but only its keys granted it.
    const forgedMid = await certify({ e: 10, primary: X, hosts: [X, Y, F1], prev: { e: 9, hosts: [A, B, C] } }, [X, Y]);
    const forgedTop = await certify({ e: 11, primary: X, hosts: [X, Y, F3], prev: { e: 10, hosts: [X, Y, F1] } }, [X, Y]);
    expect(await checker().check(K, forgedTop, { known: held, chain: [forgedMid], fresh: 'learn' })).toBe('unanchored');
    // The real e10's grants, with the list of grant ids claiming B and C, but a signature broken.
    const broken = { ...mid, grants: mid.grants.map((g, i) => (i === 2 ? { ...g, s: new Uint8Array(g.s.length) } : g)) };
    expect(await checker().check(K, top, { known: held, chain: [broken], fresh: 'learn' })).toBe('unanchored');
    // A real chain of another region (signed over its key) is no link of this one.
    const K2 = randomId(rand);
    const otherMid = await certify({ e: 10, primary: C, hosts: [C, F1, F2], prev: { e: 9, hosts: [A, B, C] } }, [C, F1, B], K2);
    expect(await checker().check(K, top, { known: held, chain: [otherMid], fresh: 'learn' })).toBe('unanchored');
  });

  it('a link never stands in for the last step: the certificate itself must be granted by the link before it', async () => {
    const [held, mid] = [await e9(), await e10()];
    // A rebase over e10 by one of its hosts: certified by its new set alone, not by a majority of e10's.
    const lone = await certify({ e: 11, primary: F1, hosts: [F1, X, Y], prev: { e: 10, hosts: [C, F1, F2] }, rebase: true }, [F1, X, Y]);
    expect(await checker().check(K, lone, { known: held, chain: [mid], fresh: 'learn' })).toBe('unanchored');
  });

  it('a learnt certificate anchors nothing: its hosts chain no later one, and one anchored near the key replaces it after a fresh look', async () => {
    const view = fixedNearView([A, B, C]);
    const c = new CertChecker(keyring.verify, view, { idWorkBits: 0 });
    // Learnt: granted by keys nobody finds near (the attacker's), at an epoch above the region's.
    const learnt = await certify({ e: 12, primary: X, hosts: [X, Y] }, [X, Y]);
    expect(await c.hold(K, learnt, { fresh: 'learn' })).toBe('learnt');
    const top = await certify({ e: MAX_EPOCH, primary: X, hosts: [X, Y], prev: { e: MAX_EPOCH - 1, hosts: [X, Y] } }, [X, Y]);
    expect(await c.hold(K, top, { known: learnt, learnt: true, fresh: 'learn' })).toBe('epoch-range');
    expect(await c.hold(K, top, { known: learnt, fresh: 'learn' }), 'held as anchored, the same chain goes on').toBe('anchored');
    // The region's own certificate, anchored near the key, at a lower epoch: it replaces the learnt one.
    expect(await c.hold(K, await e9(), { known: learnt, learnt: true, fresh: 'learn' })).toBe('anchored');
    expect(view.refreshes).toBe(0);
    // Another forged one: learnt again, after one fresh look at who is near.
    const other = await certify({ e: 13, primary: Y, hosts: [X, Y] }, [X, Y]);
    expect(await c.hold(K, other, { known: learnt, learnt: true, fresh: 'learn' })).toBe('learnt');
    expect(view.refreshes).toBe(1);
  });
});

// A subscriber that hears its primary (cert-checker.ts `live`): a later certificate counts
// only as a link of its own chain. Two attacker ids among the nodes nearest the key (one of
// them a host of the set) anchor a successor of their own by nearness (rule 2) for a reader
// that missed epochs, not for one whose primary is alive.
describe('a reader that hears its primary', () => {
  it('takes a later certificate only from a majority of its hosts, not from two hosts near the key', async () => {
    const held = await e9();
    // B (a host of e9's set) and N (near the key, outside the set): a rebase over e9's set,
    // and a certificate two epochs on, that only they granted.
    const N = randomId(rand);
    const spliced = await certify({ e: 10, primary: B, hosts: [B, N], prev: { e: 9, hosts: [A, B, C] }, rebase: true }, [B, N]);
    const skipped = await certify({ e: 11, primary: B, hosts: [B, N], prev: { e: 10, hosts: [B, N] } }, [B, N]);
    const view = fixedNearView([A, B, C, N]);
    const c = new CertChecker(keyring.verify, view, { idWorkBits: 0 });
    for (const x of [spliced, skipped]) {
      expect(await c.check(K, x, { known: held }), 'missed epochs: near hosts re-anchor it').toBeNull();
      expect(await c.check(K, x, { known: held, live: true }), 'while the primary of e9 is heard').toBe('unanchored');
    }
    expect(view.refreshes, 'no fresh lookup can make a live reader take it').toBe(0);
    // The real successor (a majority of e9's set granted it), and one reached through links.
    expect(await c.check(K, await e10(), { known: held, live: true })).toBeNull();
    expect(await c.check(K, await e11(), { known: held, chain: [await e10()], live: true })).toBeNull();
  });
});

describe('ids without work are far', () => {
  // Id work at a few bits, so the test mints ids fast; production asks ID_WORK_BITS.
  const BITS = 6;
  const r = seededRandom(41);
  const worked = (): NodeId => {
    for (;;) {
      const id = randomId(r);
      if (idWorkOk(id, BITS)) return id;
    }
  };
  const key = randomId(r);
  // 40 honest nodes, every id showing the work; the reader's view is the 8 nearest the key.
  const honest = sortByDistance(Array.from({ length: 40 }, worked), (x) => x, key);
  const view = honest.slice(0, ANCHOR_RANK);
  // The attacker: 4 keys whose ids it drew until they fell nearer the key than the reader's
  // 3rd nearest node (about 14 draws each here), paying no id work.
  const drawnNear: NodeId[] = [];
  while (drawnNear.length < 4) {
    const id = randomId(r);
    if (compareDistance(id, view[2]!, key) < 0 && !idWorkOk(id, BITS)) drawnNear.push(id);
  }
  const checkerAt = (idWorkBits: number, ids: readonly NodeId[] = view) => new CertChecker(keyring.verify, fixedNearView(ids), { idWorkBits });

  it('a set of drawn keys is far however near their ids lie, so an honest node outside it may rebase over it', async () => {
    // The attacker's certificate over its 4 keys, granted by them: a host holding nothing learns it.
    const forged = await certify({ e: 1, primary: drawnNear[0]!, hosts: drawnNear }, drawnNear, key);
    const c = checkerAt(BITS);
    expect(await c.hold(key, forged, { fresh: 'learn' })).toBe('learnt');
    expect(c.farSet(key, forged.hosts)).toBe(true);
    expect(checkerAt(0).farSet(key, forged.hosts), 'counted by distance alone the drawn set is near').toBe(false);
    // The honest claimant nearest the key rebases over it once it stays silent, with grants of two more.
    const [h0, h1, h2] = view as [NodeId, NodeId, NodeId];
    const rebase = await certify({ e: 2, primary: h0, hosts: [h0, h1, h2], prev: { e: 1, hosts: drawnNear }, rebase: true }, [h0, h1, h2], key);
    expect(await c.hold(key, rebase, { known: forged, learnt: true, fresh: 'learn' })).toBe('anchored');
    expect(await checkerAt(0).hold(key, rebase, { known: forged, learnt: true, fresh: 'learn' }), 'without the work rule the region has no primary for good').toBe('unanchored');
    // An honest set stays near: no stranger rebases over it.
    expect(c.farSet(key, [h0, h1, h2])).toBe(false);
  });

  it('grants of drawn keys anchor nothing near the key, even in a view that lists them', async () => {
    // A view the attacker filled (a DHT asking no work of ids would list them): they sort first.
    const polluted = sortByDistance([...drawnNear, ...view], (x) => x, key).slice(0, ANCHOR_RANK);
    const forged = await certify({ e: 3, primary: drawnNear[0]!, hosts: drawnNear.slice(0, 3) }, drawnNear.slice(0, 3), key);
    expect(await checkerAt(BITS, polluted).check(key, forged)).toBe('unanchored');
    expect(await checkerAt(0, polluted).check(key, forged)).toBeNull();
    // The honest nodes' certificate is anchored as before.
    const real = await certify({ e: 3, primary: view[0]!, hosts: view.slice(0, 3) }, view.slice(0, 3), key);
    expect(await checkerAt(BITS).check(key, real)).toBeNull();
  });

  it('a checker asks production\'s id work unless told', () => {
    expect(new CertChecker(keyring.verify, fixedNearView([])).idWorkBits).toBe(ID_WORK_BITS);
  });
});

// A chain's root (a certificate that builds on no earlier one: a region's first) counts for
// no reader unless every host it names granted it (epoch-cert.ts `chainRoot`). Before, only
// an honest claimant waited for every host: a root granted by a majority (an outdated tab, or
// a claimant whose round took the majority rule) passed every reader, and two such roots over
// sets that share one node forked the region (docs/HOSTING.md "First certificates").
describe("a chain's root", () => {
  it('counts for no reader unless every host it names granted it; a link of the same set needs only a majority', async () => {
    const majority = await certify({ e: 1, primary: A, hosts: [A, B, C] }, [A, B]);
    const view = fixedNearView([A, B, C], [A, B, C]);
    const c = new CertChecker(keyring.verify, view, { idWorkBits: 0 });
    for (const o of [{}, { fresh: 'learn' as const }, { known: await e9() }, { known: await e9(), fresh: 'learn' as const }]) {
      expect(await c.check(K, majority, o), JSON.stringify(Object.keys(o))).toBe('root-needs-every-host');
    }
    expect(view.sweeps + view.refreshes, 'refused on its shape, before any lookup').toBe(0);
    expect(await c.check(K, await certify({ e: 1, primary: A, hosts: [A, B, C] }, [A, B, C]))).toBeNull();
    // A root made to look like a link needs no more than its form: a previous set naming the
    // same hosts asks no further grants. So the rule binds claimants that keep the protocol (and
    // outdated ones), not an attacker; the attacker's link is judged by rules 1 and 2 as any.
    const sameSet = await certify({ e: 2, primary: A, hosts: [A, B, C], prev: { e: 1, hosts: [A, B, C] } }, [A, B]);
    expect(await c.check(K, sameSet)).toBeNull();
  });
});

// A subscriber with no certificate of the region (docs/TRUST.md "A reader with no chain of
// its own"): the attacker holds two live ids among the 8 nodes nearest the key, outside its
// 4 nearest. Before, the reader counted grants among the 8 nearest its table listed, so they
// were the region for it; its table may also list them alone (an eclipsed lookup).
describe('a reader with no certificate of the region', () => {
  const key = randomId(rand);
  // r[0..2] the honest set; the attacker's live ids 5th and 7th nearest; Z a key that is no node.
  const r = sortByDistance(Array.from({ length: 12 }, () => randomId(rand)), (x) => x, key);
  const [a5, a7, Z] = [r[4]!, r[6]!, randomId(rand)];
  const forged = () => certify({ e: 4, primary: a5, hosts: [a5, a7, Z], prev: { e: 3, hosts: [a5, a7, Z] } }, [a5, a7, Z], key);
  const real = () => certify({ e: 3, primary: r[0]!, hosts: r.slice(0, 3) }, r.slice(0, 3), key);

  it(`counts grants only from the ${FRESH_RANK} nodes nearest the key that answered its own lookup by disjoint paths`, async () => {
    // Its table lists the 8 nearest (or, eclipsed, only the attacker's ids); its lookup finds all 12.
    for (const table of [r.slice(0, ANCHOR_RANK), [a5, a7]]) {
      const view = fixedNearView(table, r);
      const c = new CertChecker(keyring.verify, view, { idWorkBits: 0 });
      expect(await c.check(key, await forged()), 'two attacker ids 5th and 7th nearest').toBe('unanchored');
      expect(await c.check(key, await real())).toBeNull();
      expect(view.sweeps, 'each check asked its lookup, the refused one again').toBe(3);
    }
    // After a failover: r[0] is dead (its lookup found the rest), the new set r[1..3] granted by two of it.
    const next = await certify({ e: 4, primary: r[1]!, hosts: r.slice(1, 4), prev: { e: 3, hosts: r.slice(0, 3) } }, r.slice(1, 3), key);
    expect(await new CertChecker(keyring.verify, fixedNearView(r, r.slice(1)), { idWorkBits: 0 }).check(key, next)).toBeNull();
  });

  // Traced in hosting-rebase-hostile.test.ts: the fresh subscriber's lookup ran while routes
  // still led through the killed primary and missed the survivor, the nearest live node; the
  // rebased set it granted was refused on that answer until it aged out (LIVE_MS, 30 s), the
  // region shown to nobody new for 17 s after it had a primary again.
  it('refused on its last lookup, looks again once before it refuses', async () => {
    const next = await certify({ e: 4, primary: r[0]!, hosts: r.slice(0, 3), prev: { e: 3, hosts: r.slice(0, 3) }, rebase: true }, r.slice(0, 2), key);
    let looked = 0;
    const missed = [...r.slice(1)];
    const view = {
      near: () => r.slice(0, ANCHOR_RANK),
      refresh: () => Promise.resolve(false),
      live: (k: NodeId, n: number, again?: boolean) => {
        if (again) {
          looked++;
          missed.unshift(r[0]!);
        }
        return Promise.resolve(sortByDistance([...missed], (x) => x, k).slice(0, n));
      },
    };
    expect(await new CertChecker(keyring.verify, view, { idWorkBits: 0 }).check(key, next)).toBeNull();
    expect(looked).toBe(1);
    // A lookup that finds the same: refused, after one look.
    expect(await new CertChecker(keyring.verify, fixedNearView(r, r.slice(1)), { idWorkBits: 0 }).check(key, next)).toBe('unanchored');
  });

  // The band sybil_1k showed at 1,000 peers (seed 1, region 5,1): none of the 3 nodes nearest
  // the key hostile, the attacker's live ids 4th and 5th; the primary, one of the 3, killed
  // before the fresh subscriber joins. Its lookup finds the two ids 3rd and 4th of the live
  // nodes, a majority of a set of their own among its FRESH_RANK nearest, and it took their
  // certificate. The set leaves out the 2 nearest live nodes: refused.
  it('refuses a set of two ids 3rd and 4th of its live nodes when the nearest died: it leaves out the 2 nearest live ones', async () => {
    const [b4, b5] = [r[3]!, r[4]!];
    const band = await certify({ e: 4, primary: b4, hosts: [b4, b5], prev: { e: 3, hosts: [b4, b5] } }, [b4, b5], key);
    const alive = r.filter((x) => x !== r[0]);
    const view = fixedNearView(r, alive);
    const c = new CertChecker(keyring.verify, view, { idWorkBits: 0 });
    expect(await c.check(key, band), 'two ids 3rd and 4th of the live nodes').toBe('unanchored');
    expect(view.sweeps, 'refused, it looked again once').toBe(2);
    // Naming the two nearest live nodes too: they did not grant, so the ids are no majority.
    const named = await certify({ e: 4, primary: b4, hosts: [b4, b5, r[1]!, r[2]!, Z], prev: { e: 3, hosts: [b4, b5] } }, [b4, b5, Z], key);
    expect(await c.check(key, named)).toBe('unanchored');
    // The honest set after the failover (the 3 nearest live, granted by two of them), and the old one.
    const next = await certify({ e: 4, primary: r[1]!, hosts: r.slice(1, 4), prev: { e: 3, hosts: r.slice(0, 3) } }, [r[1]!, r[2]!, r[3]!], key);
    expect(await c.check(key, next)).toBeNull();
    const old = await certify({ e: 3, primary: r[0]!, hosts: r.slice(0, 3) }, r.slice(0, 3), key);
    expect(await c.check(key, old), 'the dead primary\'s set, granted by the 2 nearest live').toBeNull();
    // A node that joined nearer than the set before the set was handed on: one left out, taken.
    const joined = [randomId(rand), ...r].sort((x, y) => compareDistance(x, y, key));
    expect(await new CertChecker(keyring.verify, fixedNearView(joined, joined.filter((x) => x !== r[0])), { idWorkBits: 0 }).check(key, next)).toBeNull();
    // Two ids 2nd and 3rd of the live nodes are a majority of the region's own set: the model's limit (docs/TRUST.md (a)).
    const limit = fixedNearView(r, alive.filter((x) => x !== r[2]));
    expect(await new CertChecker(keyring.verify, limit, { idWorkBits: 0 }).check(key, band)).toBeNull();
  });

  // Naming one of the two nearest live nodes beside the two ids leaves out only one of the 3
  // nearest, and the ids are a majority of a set of three; but neither of the 2 nearest live
  // nodes granted it (`nearestNamed`). An honest set granted by the 2nd and 4th nearest live
  // nodes is taken: the 1st a hostile member or a node joined nearer, the 3rd promised to a
  // rival claim (adversary.test.ts "a subscriber silent past its primary", seed 4).
  it('refuses two ids 3rd and 4th of its live nodes naming one of the 2 nearest live ones beside them', async () => {
    const [b4, b5] = [r[3]!, r[4]!];
    const hosts = [b4, b5, r[1]!];
    const named = await certify({ e: 4, primary: b4, hosts, prev: { e: 3, hosts } }, [b4, b5], key);
    const view = fixedNearView(r, r.filter((x) => x !== r[0]));
    expect(await new CertChecker(keyring.verify, view, { idWorkBits: 0 }).check(key, named)).toBe('unanchored');
    // Not closed: ids 1st and 4th of the live nodes naming the 2nd look as the honest set below
    // granted by the 2nd and 4th does (docs/TRUST.md "Open gaps").
    const [a1, a4] = [r[1]!, r[4]!];
    const first = await certify({ e: 4, primary: a1, hosts: [a1, a4, r[2]!], prev: { e: 3, hosts: [a1, a4, r[2]!] } }, [a1, a4], key);
    expect(await new CertChecker(keyring.verify, fixedNearView(r, r.filter((x) => x !== r[0])), { idWorkBits: 0 }).check(key, first)).toBeNull();
    const rebased = await certify({ e: 4, primary: r[2]!, hosts: r.slice(2, 5), prev: { e: 3, hosts: r.slice(0, 3) }, rebase: true }, [r[2]!, r[4]!], key);
    expect(await new CertChecker(keyring.verify, fixedNearView(r, r.filter((x) => x !== r[0])), { idWorkBits: 0 }).check(key, rebased), 'the 1st live hostile and left out, the 3rd promised elsewhere').toBeNull();
    // By ranks the two are one: ids 2nd and 4th of the live nodes naming the 3rd beside them,
    // granted by the two, are named 2nd to 4th and granted by the 2nd and 4th as that rebase
    // is. No rule over ranks, names and grants refuses the one and takes the other.
    const second = await certify({ e: 4, primary: r[2]!, hosts: [r[2]!, r[3]!, r[4]!], prev: { e: 3, hosts: [r[2]!, r[3]!, r[4]!] } }, [r[2]!, r[4]!], key);
    expect(await new CertChecker(keyring.verify, fixedNearView(r, r.filter((x) => x !== r[0])), { idWorkBits: 0 }).check(key, second)).toBeNull();
    // The honest set of the 3 nearest live nodes granted by any 2 of them: taken.
    for (const granters of [[r[1]!, r[2]!], [r[1]!, r[3]!], [r[2]!, r[3]!]]) {
      const honest = await certify({ e: 4, primary: granters[0]!, hosts: r.slice(1, 4), prev: { e: 3, hosts: r.slice(1, 4) } }, granters, key);
      expect(await new CertChecker(keyring.verify, fixedNearView(r, r.filter((x) => x !== r[0])), { idWorkBits: 0 }).check(key, honest)).toBeNull();
    }
  });

  it('a previous set of one node is no set: one live id near the key anchors nothing through it', async () => {
    const [a1, k2, k3] = [r[3]!, randomId(rand), randomId(rand)];
    const one = await certify({ e: 4, primary: a1, hosts: [a1, k2, k3], prev: { e: 3, hosts: [a1] } }, [a1, k2, k3], key);
    expect(await new CertChecker(keyring.verify, fixedNearView(r), { idWorkBits: 0 }).check(key, one)).toBe('unanchored');
    expect(await new CertChecker(keyring.verify, fixedNearView(r), { idWorkBits: 0 }).check(key, one, { known: await certify({ e: 2, primary: r[0]!, hosts: r.slice(0, 3) }, r.slice(0, 2), key) })).toBe('unanchored');
  });

  // A subscriber silent past OWN_CHAIN_MS whose region was rebased holds a certificate the
  // new one is no link of: it judges it by nearness as a reader with none does, on its own
  // lookup (adversary.test.ts: a member of the set that withheld its grant at its primary's
  // death and a live id 8th nearest signed a set of their own). Hosts keep the 8 of their table.
  it('a subscriber holding a certificate the new one is no link of judges it as one with none: its lookup, not its table', async () => {
    const held = await certify({ e: 2, primary: r[0]!, hosts: r.slice(0, 3) }, r.slice(0, 3), key);
    const alive = r.slice(1);
    // The member r[1] and a live id 8th nearest, r[7]: near in the table's 8, not among the 4 nearest live.
    const own = await certify({ e: 3, primary: r[1]!, hosts: [r[1]!, r[7]!], prev: { e: 2, hosts: [r[1]!, r[7]!] } }, [r[1]!, r[7]!], key);
    const view = fixedNearView(r.slice(0, ANCHOR_RANK), alive);
    const c = new CertChecker(keyring.verify, view, { idWorkBits: 0 });
    expect(await c.check(key, own, { known: held }), 'a member and an id 8th nearest').toBe('unanchored');
    expect(view.sweeps, 'its lookup, and one more before it refused').toBe(2);
    expect(await c.check(key, own, { known: held, fresh: 'learn' }), "a host still counts its table's 8").toBeNull();
    // The survivor's rebase over the set, hosts the 3 nearest live nodes, granted by all three: taken.
    const rebase = await certify({ e: 3, primary: r[2]!, hosts: [r[2]!, r[3]!, r[4]!], prev: { e: 2, hosts: r.slice(0, 3) }, rebase: true }, [r[2]!, r[3]!, r[4]!], key);
    expect(await new CertChecker(keyring.verify, fixedNearView(r.slice(0, ANCHOR_RANK), alive), { idWorkBits: 0 }).check(key, rebase, { known: held })).toBeNull();
    // A link of its own chain needs no lookup.
    const next = await certify({ e: 3, primary: r[1]!, hosts: r.slice(1, 4), prev: { e: 2, hosts: r.slice(0, 3) } }, r.slice(1, 3), key);
    const quiet = fixedNearView([], []);
    expect(await new CertChecker(keyring.verify, quiet, { idWorkBits: 0 }).check(key, next, { known: held })).toBeNull();
    expect(quiet.sweeps).toBe(0);
  });
});

// Two first claims whose lookups shared no node make two chains of one region, each root
// granted by every host it names (docs/HOSTING.md "First certificates"). The chain whose
// primary lies nearer the key goes on and merges the other into its next epoch.
describe('two chains of one region', () => {
  const key = randomId(rand);
  // n[0..5] the six nodes nearest the key: one lookup found {0, 2, 3}, the other {1, 4, 5}.
  const n = sortByDistance(Array.from({ length: 10 }, () => randomId(rand)), (x) => x, key);
  const near = () => certify({ e: 1, primary: n[0]!, hosts: [n[0]!, n[2]!, n[3]!] }, [n[0]!, n[2]!, n[3]!], key);
  const far = () => certify({ e: 1, primary: n[1]!, hosts: [n[1]!, n[4]!, n[5]!] }, [n[1]!, n[4]!, n[5]!], key);

  it('tells another chain from a link of its own', async () => {
    const [a, b] = [await near(), await far()];
    expect(forkOf(a, b) && forkOf(b, a)).toBe(true);
    expect(forkOf(a, a)).toBe(false);
    // a's next epoch over the nearest three: built on a, so another chain than b; covering b in `pend`, a link of b too.
    const next = await certify({ e: 2, primary: n[0]!, hosts: n.slice(0, 3), prev: { e: 1, hosts: a.hosts } }, [n[0]!, n[2]!], key);
    expect(forkOf(next, a)).toBe(false);
    expect(forkOf(next, b)).toBe(true);
    const merged = await certify({ e: 3, primary: n[0]!, hosts: n.slice(0, 3), prev: { e: 2, hosts: next.hosts }, pend: [{ e: 1, hosts: b.hosts }] }, [n[0]!, n[2]!, n[1]!, n[4]!], key);
    expect(forkOf(merged, b) || forkOf(merged, next)).toBe(false);
    // Each side's readers take the merged certificate as a link of the chain they hold (rule 1), live or not.
    const c = new CertChecker(keyring.verify, fixedNearView(n.slice(0, ANCHOR_RANK)), { idWorkBits: 0 });
    expect(await c.check(key, merged, { known: b, live: true })).toBeNull();
    expect(await c.check(key, merged, { known: next, live: true })).toBeNull();
    // Without the other chain's majority it is no link of that chain.
    const short = await certify({ e: 3, primary: n[0]!, hosts: n.slice(0, 3), prev: { e: 2, hosts: next.hosts }, pend: [{ e: 1, hosts: b.hosts }] }, [n[0]!, n[2]!, n[1]!], key);
    expect(await c.check(key, short, { known: b, live: true })).toBe('no-pending-majority');
  });

  it('tells another chain from a link of its own by the links either side shows, once the chains grew apart', async () => {
    const [a, b] = [await near(), await far()];
    // b's chain moves on over its own set (its primary's re-checks): e2, e3, e4.
    const step = (prev: EpochCert) => certify({ e: prev.e + 1, primary: n[1]!, hosts: b.hosts, prev: { e: prev.e, hosts: b.hosts } }, [n[1]!, n[4]!], key);
    const b2 = await step(b), b3 = await step(b2), b4 = await step(b3);
    // Built on e3, b4 could be a later link of a by its epochs alone: no fork without the links.
    expect(forkOf(b4, a)).toBe(false);
    expect(forkOf(b4, a, [b2, b3]) && forkOf(a, b4, [b3, b2, a])).toBe(true);
    expect(forkOf(b4, b, [b2, b3]) || forkOf(b4, b2, [b3])).toBe(false);
    // A link missing on the way down: the reader may have missed it, so no fork by this test.
    expect(forkOf(b4, a, [b3])).toBe(false);
    // a's chain merges b4 (named in `pend`) and moves on: a link of b's chain through the merged head.
    const a5 = await certify({ e: 5, primary: n[0]!, hosts: a.hosts, prev: { e: 1, hosts: a.hosts }, pend: [{ e: 4, hosts: b.hosts }] }, [n[0]!, n[2]!, n[1]!, n[4]!], key);
    const a6 = await certify({ e: 6, primary: n[0]!, hosts: n.slice(0, 3), prev: { e: 5, hosts: a.hosts } }, [n[0]!, n[2]!], key);
    expect(forkOf(a6, b2, [a5, b4, b3])).toBe(false);
    // (Without b's links below the merged head either may be: no fork.)
    expect(forkOf(a6, b2, [a5])).toBe(false);
    expect(forkOf(a6, a, [a5])).toBe(false);
    // The farther chain's hosts grant the nearer one's merge, and the nearer primary merges the farther chain, judged through the links.
    const c = new CertChecker(keyring.verify, fixedNearView(n.slice(0, ANCHOR_RANK)), { idWorkBits: 0 });
    expect(await c.yieldsTo(key, a, b4)).toBe(false);
    expect(await c.yieldsTo(key, a, b4, undefined, [b2, b3])).toBe(true);
    expect(await c.mergeable(key, b4, a, 3)).toBe(false);
    expect(await c.mergeable(key, b4, a, 3, undefined, [b3, b2])).toBe(true);
  });

  it('the chain whose primary is nearer the key merges the other; never the other way, nor a set of ids outside the 2r nearest', async () => {
    const [a, b] = [await near(), await far()];
    const c = new CertChecker(keyring.verify, fixedNearView(n.slice(0, ANCHOR_RANK)), { idWorkBits: 0 });
    expect(await c.mergeable(key, b, a, 3)).toBe(true);
    expect(await c.mergeable(key, a, b, 3), 'the farther primary does not merge the nearer chain').toBe(false);
    expect(await c.yieldsTo(key, a, b), "the farther chain's hosts grant the nearer one's merge").toBe(true);
    expect(await c.yieldsTo(key, b, a)).toBe(false);
    // Two ids of an attacker among the 8 nearest, one of them just past the nearer chain's
    // primary: a chain of theirs (every host granted it) is no set to merge: fewer than r of
    // its hosts, or hosts outside the 2r nearest.
    const two = await certify({ e: 1, primary: n[1]!, hosts: [n[1]!, n[6]!] }, [n[1]!, n[6]!], key);
    expect(await c.mergeable(key, two, a, 3)).toBe(false);
    const wide = await certify({ e: 1, primary: n[1]!, hosts: [n[1]!, n[6]!, n[7]!] }, [n[1]!, n[6]!, n[7]!], key);
    expect(await c.mergeable(key, wide, a, 3)).toBe(false);
  });
});
