import { describe, expect, it } from 'vitest';
import { LatencySamples } from '../core/latency-samples';
import { generateIdentity } from '../core/identity';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { VirtualClock } from '../core/virtual-clock';
import { makePlayerPass } from '../region/player-pass';
import type { PlayerWire } from '../region/region-wire';
import { EDIT_PACE, SubmittedEdits } from './submitted-edits';
import { starvedClock } from '../testing/starved-clock';
import { EditRejectedError, type ClientStats } from './region-client-types';

// Edits given to a node that named itself primary before its certificate was checked (the
// takeover shortcut of region-client.ts attach): its answers count only once we attach to it.
function setup() {
  const sent: { to: string; r: number }[] = [];
  const wire = { send: (to: NodeId, m: { r: number }) => void sent.push({ to: idToHex(to), r: m.r }) } as unknown as PlayerWire;
  const stats = { stale: 0, confirmed: 0, rejected: 0, timeouts: 0 } as ClientStats;
  const edits = new SubmittedEdits({ clock: new VirtualClock(), wire, stats, latency: new LatencySamples() });
  return { edits, sent, stats };
}

const region = '1,0';
const at = { x: 70, y: 80, z: 5 };

describe('submitted edits: answers from a primary not yet checked', () => {
  it('holds a CONFIRM from a node we have not attached to, and counts it once we do', async () => {
    const { edits, sent, stats } = setup();
    const next = randomId();
    const hex = idToHex(next);
    let stamp: unknown;
    void edits.add(70, 80, 5, 1, at, undefined).then((s) => (stamp = s));
    edits.sendTo(region, next, hex);
    const r = sent[0]!.r;
    edits.confirm(hex, { t: 'CONFIRM', rx: 1, rz: 0, r, e: 4, s: 9 }, false);
    await Promise.resolve();
    expect(stamp).toBeUndefined();
    expect(stats.confirmed).toBe(0);
    edits.attached(region, hex);
    await Promise.resolve();
    expect(stamp).toEqual({ e: 4, s: 9 });
    expect(stats.confirmed).toBe(1);
  });

  it('drops the held answer when the edit goes to another primary (an impostor cannot confirm)', async () => {
    const { edits, sent, stats } = setup();
    const impostor = randomId(), real = randomId();
    let stamp: unknown;
    void edits.add(70, 80, 5, 1, at, undefined).then((s) => (stamp = s));
    edits.sendTo(region, impostor, idToHex(impostor));
    const r = sent[0]!.r;
    edits.confirm(idToHex(impostor), { t: 'CONFIRM', rx: 1, rz: 0, r, e: 99, s: 1 }, false);
    // Its snapshot failed the certificate check; the real primary's came.
    edits.sendTo(region, real, idToHex(real));
    edits.attached(region, idToHex(real));
    edits.attached(region, idToHex(impostor));
    await Promise.resolve();
    expect(stamp).toBeUndefined();
    expect(sent.map((s) => s.to)).toEqual([idToHex(impostor), idToHex(real)]);
    edits.confirm(idToHex(real), { t: 'CONFIRM', rx: 1, rz: 0, r, e: 5, s: 2 }, true);
    await Promise.resolve();
    expect(stamp).toEqual({ e: 5, s: 2 });
    expect(stats.confirmed).toBe(1);
  });

  it('a final REJECT from an unchecked node fails nothing until we attach to it', async () => {
    const { edits, sent, stats } = setup();
    const next = randomId();
    const hex = idToHex(next);
    let failed: unknown;
    void edits.add(70, 80, 5, 1, at, undefined).catch((e: unknown) => (failed = e));
    edits.sendTo(region, next, hex);
    expect(edits.reject(hex, { t: 'REJECT', rx: 1, rz: 0, r: sent[0]!.r, reason: 'out-of-reach' }, false)).toBe('stale');
    await Promise.resolve();
    expect(failed).toBeUndefined();
    edits.attached(region, hex);
    await Promise.resolve();
    expect(failed).toBeInstanceOf(EditRejectedError);
    expect(stats.rejected).toBe(1);
  });
});

// A host that forgot our pass refuses 'unknown-player'; the edit goes once more with the pass,
// and only a refusal of that send fails it.
describe('submitted edits: the pass shown again', () => {
  async function withPass() {
    const sent: { to: string; t: string; r?: number }[] = [];
    const wire = { send: (to: NodeId, m: { t: string; r?: number }) => void sent.push({ to: idToHex(to), t: m.t, r: m.r }) } as unknown as PlayerWire;
    const stats = { stale: 0, confirmed: 0, rejected: 0, timeouts: 0 } as ClientStats;
    const player = await generateIdentity();
    const edits = new SubmittedEdits({ clock: new VirtualClock(), wire, stats, latency: new LatencySamples(), pass: makePlayerPass(player, randomId(), 0) });
    await edits.passWait;
    return { edits, sent, stats };
  }
  const refuse = (r: number) => ({ t: 'REJECT' as const, rx: 1, rz: 0, r, reason: 'unknown-player' as const });

  it('an earlier send\'s refusal, coming after the pass went again, fails nothing; the last send\'s answer counts', async () => {
    const { edits, sent, stats } = await withPass();
    const host = randomId();
    const hex = idToHex(host);
    let outcome: unknown;
    void edits.add(70, 80, 5, 1, at, undefined).then((s) => (outcome = s), (e: unknown) => (outcome = e));
    // Sent, the region detached and attached again to the same primary: sent twice.
    edits.sendTo(region, host, hex);
    edits.unsend(region);
    edits.sendTo(region, host, hex);
    const r = sent.find((s) => s.t === 'EDIT')!.r!;
    expect(sent.map((s) => s.t)).toEqual(['PLAYER', 'EDIT', 'EDIT']);
    expect(edits.reject(hex, refuse(r), true)).toBe('resent');
    expect(sent.map((s) => s.t)).toEqual(['PLAYER', 'EDIT', 'EDIT', 'PLAYER', 'EDIT']);
    // The second send's refusal: judged before the host had the pass again.
    expect(edits.reject(hex, refuse(r), true)).toBe('stale');
    await Promise.resolve();
    expect(outcome).toBeUndefined();
    edits.confirm(hex, { t: 'CONFIRM', rx: 1, rz: 0, r, e: 3, s: 7 }, true);
    await Promise.resolve();
    expect(outcome).toEqual({ e: 3, s: 7 });
    expect(stats).toMatchObject({ confirmed: 1, rejected: 0 });
  });

  it('the next primary that says it knows no pass hears it again too', async () => {
    const { edits, sent } = await withPass();
    const [a, b] = [randomId(), randomId()];
    let outcome: unknown;
    void edits.add(70, 80, 5, 1, at, a).then((s) => (outcome = s), (e: unknown) => (outcome = e));
    const r = sent.find((s) => s.t === 'EDIT')!.r!;
    expect(edits.reject(idToHex(a), refuse(r), true)).toBe('resent');
    // The region moved on to b before a answered; b had forgotten our pass as well.
    edits.unsend(region);
    edits.sendTo(region, b, idToHex(b));
    expect(edits.reject(idToHex(b), refuse(r), true)).toBe('resent');
    expect(sent.slice(-2)).toEqual([{ to: idToHex(b), t: 'PLAYER', r: undefined }, { to: idToHex(b), t: 'EDIT', r }]);
    await Promise.resolve();
    expect(outcome).toBeUndefined();
  });

  it('a refusal while a send to an earlier primary is unanswered fails nothing (that primary may have ordered it)', async () => {
    const { edits, sent, stats } = await withPass();
    const [a, b] = [randomId(), randomId()];
    let outcome: unknown;
    void edits.add(70, 80, 5, 1, at, a).then((s) => (outcome = s), (e: unknown) => (outcome = e));
    const r = sent.find((s) => s.t === 'EDIT')!.r!;
    // a went silent; the region attached to b, which had not seen a's batch.
    edits.unsend(region);
    edits.sendTo(region, b, idToHex(b));
    expect(edits.reject(idToHex(b), { t: 'REJECT', rx: 1, rz: 0, r, reason: 'occupied' }, true)).toBe('stale');
    await Promise.resolve();
    expect(outcome).toBeUndefined();
    expect(stats.rejected).toBe(0);
  });

  it('a refusal of the send that showed the pass again fails the edit', async () => {
    const { edits, sent, stats } = await withPass();
    const host = randomId();
    const hex = idToHex(host);
    let outcome: unknown;
    void edits.add(70, 80, 5, 1, at, host).catch((e: unknown) => (outcome = e));
    const r = sent.find((s) => s.t === 'EDIT')!.r!;
    expect(edits.reject(hex, refuse(r), true)).toBe('resent');
    expect(edits.reject(hex, refuse(r), true)).toBe('failed');
    await Promise.resolve();
    expect(outcome).toBeInstanceOf(EditRejectedError);
    expect(stats.rejected).toBe(1);
  });
});

describe('submitted edits: a backlog paced at a tab whose timers fire late', () => {
  it('sends the held edits with the next answer once their tokens came, not at the late timer', async () => {
    const base = new VirtualClock();
    // Timers run only every 800 ms (a tab drawing frames in software: failover_crash's editor).
    const clock = starvedClock(base, 800);
    const sent: { to: string; r: number; at: number }[] = [];
    const wire = { send: (to: NodeId, m: { t: string; r: number }) => void (m.t === 'EDIT' && sent.push({ to: idToHex(to), r: m.r, at: base.now() })) } as unknown as PlayerWire;
    const stats = { stale: 0, confirmed: 0, rejected: 0, timeouts: 0 } as ClientStats;
    const edits = new SubmittedEdits({ clock, wire, stats, latency: new LatencySamples() });
    await base.advance(1);
    // A failover's backlog: more edits waited for the next primary than the pace's burst.
    const { burst } = EDIT_PACE;
    for (let i = 0; i < burst + 3; i++) void edits.add(70 + (i % 10), 80, 5 + Math.floor(i / 10), 1, at, undefined).catch(() => {});
    const next = randomId();
    edits.sendTo(region, next, idToHex(next));
    expect(sent).toHaveLength(burst);
    // 200 ms on, the first edits' CONFIRMs come: the tokens of that time let 3 more go now.
    await base.advance(200);
    edits.confirm(idToHex(next), { t: 'CONFIRM', rx: 1, rz: 0, r: sent[0]!.r, e: 2, s: 1 }, true);
    expect(sent).toHaveLength(burst + 3);
    expect(sent.slice(burst).every((s) => s.at === 201)).toBe(true);
  });
});

describe('submitted edits: the pace starts again with each new primary duty', () => {
  function paced() {
    const clock = new VirtualClock();
    const sent: { to: string; r: number; at: number }[] = [];
    const wire = { send: (to: NodeId, m: { t: string; r: number }) => void (m.t === 'EDIT' && sent.push({ to: idToHex(to), r: m.r, at: clock.now() })) } as unknown as PlayerWire;
    const stats = { stale: 0, confirmed: 0, rejected: 0, timeouts: 0 } as ClientStats;
    const edits = new SubmittedEdits({ clock, wire, stats, latency: new LatencySamples() });
    const submit = (n: number, from = 0) => {
      for (let i = from; i < from + n; i++) void edits.add(70 + (i % 10), 80, 5 + Math.floor(i / 10), 1, at, undefined).catch(() => {});
    };
    return { clock, sent, edits, submit };
  }

  it('a backlog re-sent to the next primary goes at once up to the burst, though the sends to the one before spent the bucket', async () => {
    const { clock, sent, edits, submit } = paced();
    const { burst } = EDIT_PACE;
    await clock.advance(1);
    // Attached to A (e5): a burst spends our bucket, and A dies before answering any of it.
    const a = randomId(), b = randomId();
    submit(burst + 3);
    edits.newDuty(region, idToHex(a), 5);
    edits.sendTo(region, a, idToHex(a));
    expect(sent.filter((s) => s.to === idToHex(a))).toHaveLength(burst);
    // B takes over (e6): its duty's rate for us starts full, and so does our pace.
    edits.unsend(region);
    edits.newDuty(region, idToHex(b), 6);
    edits.sendTo(region, b, idToHex(b));
    const toB = sent.filter((s) => s.to === idToHex(b));
    // Charged for the sends to A (one pace for every host), nothing would go to B for 60 ms, then one every 60 ms.
    expect(toB).toHaveLength(burst);
    expect(toB.every((s) => s.at === 1)).toBe(true);
    // The rest at the sustained pace, in the order they were made.
    await clock.advance(1000);
    expect(sent.filter((s) => s.to === idToHex(b)).map((s) => s.r)).toEqual(sent.filter((s) => s.to === idToHex(a)).map((s) => s.r).concat(sent.slice(-3).map((s) => s.r)));
  });

  it('counts the edits sent to that host in the last second (a takeover notice\'s sender gets them before its snapshot), and a re-attach to the same duty does not start again', async () => {
    const { clock, sent, edits, submit } = paced();
    const { burst } = EDIT_PACE;
    await clock.advance(1);
    const b = randomId();
    edits.newDuty(region, idToHex(b), 6);
    // The takeover notice's sender gets 10 edits ahead of its snapshot (primary-search.ts).
    submit(10);
    edits.sendTo(region, b, idToHex(b));
    expect(sent).toHaveLength(10);
    // Its snapshot of a later epoch: a new duty, 10 of its burst already spent by us.
    edits.newDuty(region, idToHex(b), 7);
    submit(burst, 10);
    edits.sendTo(region, b, idToHex(b));
    expect(sent).toHaveLength(burst);
    // Ten are confirmed; a re-attach to the same duty (after silence) keeps what they spent.
    for (const s of sent.slice(0, 10)) edits.confirm(idToHex(b), { t: 'CONFIRM', rx: 1, rz: 0, r: s.r, e: 7, s: 1 }, true);
    edits.unsend(region);
    edits.newDuty(region, idToHex(b), 7);
    submit(1, 10 + burst);
    edits.sendTo(region, b, idToHex(b));
    expect(sent).toHaveLength(burst);
    // Its next epoch starts our pace again, less the 15 sent to that host within the last second.
    edits.newDuty(region, idToHex(b), 8);
    edits.sendTo(region, b, idToHex(b));
    expect(sent).toHaveLength(burst);
  });
});
