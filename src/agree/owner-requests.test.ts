import { describe, expect, it } from 'vitest';
import { hexToId } from '../core/node-id';
import { SimKeyring } from '../testing/sim-keyring';
import { ItemHostSim, type ItemPeer } from '../testing/item-host-sim';
import type { ProofSig } from './decision-proof';
import type { Item } from './item-ledger';
import type { ItemWireMessage, ItemWireOf } from './item-wire';
import { OwnerRequestChecker, signOwnerRequest, type OwnerAsk, type OwnerRequest } from './owner-request';

const REGION = { rx: 0, rz: 0 };
const AREA = { ax: 0, az: 0 };
const NAME = '0,0';

/** 8 peers, two players in region 0,0; player a picks up the first item there. The region's primary is neither player. */
async function world(seed: number) {
  const sim = new ItemHostSim({ seed, spawnMeanMs: 1500 });
  await sim.grow(8);
  const { a, b, item } = await sim.twoPlayersAndAnItem();
  sim.stand(a.peer.hex, item);
  await sim.run(300);
  expect(await sim.settle(a.player.claim(item.id, item))).toBe(true);
  await sim.run(500);
  return { sim, a, b, item };
}

/** Every record of `id` at the region's hosts and at both players. */
function records(sim: ItemHostSim, players: ItemPeer[], id: string): (Item | undefined)[] {
  return [...sim.hostLedgers(NAME).map((h) => h.items!.ledger.item(id)), ...players.map((p) => p.player.latest(id))];
}

describe('drop and carry requests signed by the owner', () => {
  it('a hostile primary forging, replaying, altering, moving or reviving an owner\'s request gets no backup\'s signature: nothing changes anywhere, each refusal counted by reason', async () => {
    let w: Awaited<ReturnType<typeof world>> | undefined;
    for (const seed of [41, 42, 43, 44, 45]) {
      w = await world(seed);
      const p = w.sim.primaryItemPeer(NAME)!;
      if (p !== w.a && p !== w.b) break;
      w.sim.stopAll();
      w = undefined;
    }
    const { sim, a, b, item } = w!;
    const hostile = sim.primaryItemPeer(NAME)!;
    const backups = sim.hostLedgers(NAME).map((h) => h.hex).filter((h) => h !== hostile.peer.hex);
    expect(backups.length).toBe(2);
    const e = hostile.peer.host.knownRegions().find((r) => r.name === NAME)!.epoch;

    // a drops the item at X (a real drop: its request captured on the way), and picks it up again: a holds gen 1.
    const captured: ItemWireOf<'ITEM_DROP'>[] = [];
    hostile.wire.events.on('frame', ({ fromHex, msg }) => { if (msg.t === 'ITEM_DROP' && fromHex === a.peer.hex) captured.push(msg); });
    const X = { x: 30.5, y: item.y, z: 30.5 };
    expect(await sim.settle(a.player.drop(item.id, X))).toBe(true);
    await sim.run(500);
    sim.stand(a.peer.hex, X);
    await sim.run(300);
    expect(await sim.settle(a.player.claim(item.id, X))).toBe(true);
    await sim.run(1000);
    expect(captured).toHaveLength(1);
    const held = records(sim, [a, b], item.id);
    for (const r of held) expect(r).toMatchObject({ owner: a.peer.hex, gen: 1 });

    // What the hostile primary asks its backups to sign: a's item dropped (gen 2) at some spot, "by a".
    const dropAt = (q: { x: number; y: number; z: number }): Item => ({ id: item.id, kind: item.kind, ...q, at: a.clock.now(), owner: null, gen: 2 });
    const ask = (q: { x: number; y: number; z: number }, gen = 1): OwnerAsk => ({ kind: 'drop', item: item.id, gen, p: q });
    const Y = { x: 34.5, y: item.y, z: 31.5 };
    const now = () => a.clock.now();
    const attempts: { why: string; rec: Item; req: OwnerRequest }[] = [
      // Forged: a's request signed with the hostile's own key.
      { why: 'bad-signature', rec: dropAt(Y), req: await signOwnerRequest(hostile.signer, AREA, ask(Y), 7, now()) },
      // Replayed: a's real request of gen 0 (the drop at X), for the item a holds again.
      { why: 'other-gen', rec: dropAt(X), req: { r: captured[0]!.r, o: captured[0]!.o } },
      // Altered: a's genuine request to drop at Y, its spot changed to X.
      { why: 'bad-signature', rec: dropAt(X), req: await signOwnerRequest(a.signer, AREA, ask(Y), 8, now()) },
      // Moved: a's genuine request for region 1,0's hosts, shown to 0,0's.
      { why: 'bad-signature', rec: dropAt(Y), req: await signOwnerRequest(a.signer, { ax: 1, az: 0 }, ask(Y), 9, now()) },
      // Revived: a's genuine request, signed 30 s ago and never sent.
      { why: 'expired', rec: dropAt(Y), req: await signOwnerRequest(a.signer, AREA, ask(Y), 10, now() - 30_000) },
    ];
    const stats = () => backups.map((h) => ({ ...sim.items.get(h)!.host.requests.stats }));
    const before = stats();
    const heldSigs = new Map<number, ProofSig[]>();
    hostile.wire.events.on('frame', ({ msg }) => {
      if (msg.t !== 'ITEM_HELD' || msg.item !== item.id) return;
      const i = attempts.findIndex((x) => x.rec.gen === msg.gen);
      heldSigs.set(i, [...(heldSigs.get(i) ?? []), msg.sig]);
    });
    for (const [i, x] of attempts.entries()) {
      for (const to of backups) hostile.wire.send(hexToId(to), { t: 'ITEM_DROPPING', ...REGION, e, by: a.peer.hex, rec: x.rec, ...x.req });
      await sim.run(300);
      // Each backup refused this one, by its reason.
      const after = stats();
      for (const [k, s] of after.entries()) expect(s[x.why as 'expired'], `attempt ${i} at backup ${k}`).toBe(before[k]![x.why as 'expired'] + attempts.slice(0, i + 1).filter((y) => y.why === x.why).length);
    }
    expect([...heldSigs.values()].flat()).toHaveLength(0);

    // Whatever the backups signed, the hostile proves and shows to everyone (with the check removed, a's item would move).
    for (const [i, sigs] of heldSigs) {
      const rec = attempts[i]!.rec, vote = `drop:${item.id}:2`;
      const proof = { e, vote, round: 0, sigs: [await hostile.host.signer.sign(AREA, e, vote, 0, rec), ...sigs] };
      const state = hostile.host.region(NAME)!.ledger.toState();
      const m: ItemWireMessage = { t: 'ITEM_STATE', ...REGION, e, state: { ...state, items: [{ ...rec, proof }] }, cur: true };
      for (const to of [...backups, a.peer.hex, b.peer.hex]) hostile.wire.send(hexToId(to), m);
    }
    // The honest primary's side: a's old drop frame replayed on a's link, and a fresh one altered on the way, refused before it signs.
    const primaryStats = () => ({ ...hostile.host.requests.stats });
    const p0 = primaryStats();
    a.wire.send(hexToId(hostile.peer.hex), captured[0]!);
    const fresh = await signOwnerRequest(a.signer, AREA, ask(Y), 11, now());
    a.wire.send(hexToId(hostile.peer.hex), { t: 'ITEM_DROP', ...REGION, ...fresh, item: item.id, ...X });
    await sim.run(1000);
    expect(primaryStats()['other-gen']).toBe(p0['other-gen'] + 1);
    expect(primaryStats()['bad-signature']).toBe(p0['bad-signature'] + 1);

    for (const r of records(sim, [a, b], item.id)) expect(r).toMatchObject({ owner: a.peer.hex, gen: 1, x: X.x });
    expect(a.player.inventory().map((i) => i.id)).toContain(item.id);
    // a's own, unaltered request still works.
    expect(await sim.settle(a.player.drop(item.id, Y))).toBe(true);
    await sim.run(500);
    for (const r of records(sim, [a, b], item.id)) expect(r).toMatchObject({ owner: null, gen: 2, x: Y.x });
    sim.stopAll();
  });

  it('a primary takes one signed request once: the same signature again is refused as replayed; one too old or too far ahead as expired', async () => {
    const keys = new SimKeyring('owner-requests');
    const owner = keys.signer(hexToId('ab'.repeat(20)));
    const by = 'ab'.repeat(20);
    const checker = new OwnerRequestChecker(keys.verify);
    const ask: OwnerAsk = { kind: 'carry', item: '0,0/3', gen: 4, to: '1,0' };
    const req = await signOwnerRequest(owner, AREA, ask, 1, 50_000);
    expect(await checker.check(AREA, ask, by, req, 50_100)).toBeNull();
    expect(checker.take(req, 50_100)).toBe(true);
    expect(await checker.check(AREA, ask, by, req, 50_200)).toBeNull(); // the signature holds...
    expect(checker.take(req, 50_200)).toBe(false); // ...but it was taken once
    expect(await checker.check(AREA, ask, by, req, 61_000)).toBe('expired');
    expect(await checker.check(AREA, ask, by, req, 47_000)).toBe('expired');
    expect(await checker.check(AREA, { ...ask, to: '2,0' }, by, req, 50_100)).toBe('bad-signature');
    expect(await checker.check(AREA, ask, 'cd'.repeat(20), req, 50_100)).toBe('bad-signature'); // another owner
    expect(await checker.check(AREA, { ...ask, gen: 5 }, by, req, 50_100)).toBe('other-gen');
    expect(checker.stats).toMatchObject({ replayed: 1, expired: 2, 'bad-signature': 2, 'other-gen': 1 });
  });
});
