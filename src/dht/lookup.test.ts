import { describe, expect, it } from 'vitest';
import { idToHex, randomId, sortByDistance, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { iterativeLookup, type LookupParams, type QueryFn } from './lookup';
import { RoutingTable } from './routing-table';

// A synthetic network: every node's table is filled from the full id list; queries answer
// from that table synchronously-ish (a resolved promise), some nodes are dead.
function world(n: number, seed: number, deadShare = 0) {
  const rand = seededRandom(seed);
  const ids = Array.from({ length: n }, () => randomId(rand));
  const tables = new Map<string, RoutingTable>();
  for (const id of ids) {
    const t = new RoutingTable(id, 20);
    for (const other of ids) t.add(other, 0);
    tables.set(idToHex(id), t);
  }
  const dead = new Set(ids.filter(() => rand() < deadShare).map(idToHex));
  let calls = 0;
  const query: QueryFn = (_id, hex) => {
    calls++;
    if (dead.has(hex)) return Promise.reject(new Error('timeout'));
    return Promise.resolve({ nodes: tables.get(hex)!.closest(target, 20).map((c) => c.id) });
  };
  let target: NodeId = ids[0]!;
  return {
    ids,
    dead,
    tables,
    calls: () => calls,
    run: (from: NodeId, t: NodeId) => {
      target = t;
      return iterativeLookup({
        target: t,
        seeds: tables.get(idToHex(from))!.closest(t, 20),
        query,
        k: 20,
        alpha: 3,
        selfHex: idToHex(from),
        hexOf: idToHex,
      });
    },
  };
}

/** The RPC timeout and stall of the retry tests (the large simulations' values). */
const TIMEOUT = 2000;
const STALL = 600;

/** The retry tests' network, asker and target. */
function retryWorld() {
  const w = world(200, 11);
  return { w, target: w.ids[5]!, from: w.ids[6]! };
}

/**
 * A lookup from `from` for `target` on a virtual clock with the retry settings (stall,
 * window), where every query to `lostHex` is lost (fails at the timeout) but the one
 * numbered `answerOn`; other nodes answer at once. What it found, how long it took, the
 * queries to `lostHex` (attempt, when) and how many went to the others.
 */
async function timedLookup(
  w: ReturnType<typeof world>,
  from: NodeId,
  target: NodeId,
  o: { lostHex: string; answerOn: number; alpha?: number; targetCopies?: number; targetWindows?: number; stallMs: number; timeoutMs: number },
) {
  const clock = new VirtualClock();
  const tries: { attempt: number; at: number }[] = [];
  let others = 0;
  const done = iterativeLookup({
    target,
    seeds: w.tables.get(idToHex(from))!.closest(target, 20),
    query: (_id, hex, _informer, attempt) => {
      if (hex !== o.lostHex) {
        others++;
        return Promise.resolve({ nodes: w.tables.get(hex)!.closest(target, 20).map((c) => c.id) });
      }
      tries.push({ attempt, at: clock.now() });
      return attempt === o.answerOn ? Promise.resolve({ nodes: [] }) : new Promise((_, reject) => clock.setTimeout(() => reject(new Error('timeout')), o.timeoutMs));
    },
    k: 20,
    alpha: o.alpha ?? 3,
    selfHex: idToHex(from),
    hexOf: idToHex,
    attempts: 5,
    targetCopies: o.targetCopies,
    targetWindows: o.targetWindows,
    stallMs: o.stallMs,
    retryWithinMs: o.timeoutMs,
    now: () => clock.now(),
    setTimer: (fn, ms) => void clock.setTimeout(fn, ms),
  });
  const t0 = clock.now();
  let res: Awaited<typeof done> | undefined;
  void done.then((r) => (res = r));
  await clock.runUntil(() => res !== undefined, 60_000);
  return { first: res?.closest[0]?.hex, ms: res ? clock.now() - t0 : Infinity, tries, others };
}

describe('iterativeLookup', () => {
  it('returns the true k closest and terminates once they all answered', async () => {
    const w = world(400, 1);
    const rand = seededRandom(2);
    for (let i = 0; i < 20; i++) {
      const from = w.ids[i]!;
      const target = randomId(rand);
      const res = await w.run(from, target);
      const want = sortByDistance(w.ids.filter((x) => x !== from), (x) => x, target).slice(0, 20).map(idToHex);
      expect(res.closest.map((c) => c.hex)).toEqual(want);
      expect(res.hops).toBeGreaterThanOrEqual(1);
      expect(res.queries).toBeLessThan(80); // far fewer than the network
    }
  });

  // Tables here keep the dead forever, so answers name at most 20 nodes and some are dead:
  // what the lookup can and must find is every live node among the true 20 closest.
  it('skips dead nodes and still ends', async () => {
    const w = world(300, 3, 0.3);
    const rand = seededRandom(4);
    const alive = w.ids.filter((x) => !w.dead.has(idToHex(x)));
    expect(alive.length).toBeLessThan(w.ids.length);
    for (let i = 0; i < 10; i++) {
      const from = alive[i]!;
      const target = randomId(rand);
      const res = await w.run(from, target);
      const want = sortByDistance(w.ids.filter((x) => x !== from), (x) => x, target)
        .slice(0, 20)
        .map(idToHex)
        .filter((h) => !w.dead.has(h));
      const got = res.closest.map((c) => c.hex);
      expect(got.slice(0, want.length)).toEqual(want);
      expect(got.some((h) => w.dead.has(h))).toBe(false);
      expect(res.failures).toBeGreaterThan(0);
    }
  });

  it('ends at once with no seeds, and with fewer than k nodes', async () => {
    const none = await iterativeLookup({ target: randomId(), seeds: [], query: () => Promise.reject(new Error('x')), k: 20, alpha: 3, selfHex: '', hexOf: idToHex });
    expect(none.closest).toEqual([]);
    const w = world(5, 5);
    const res = await w.run(w.ids[0]!, randomId(seededRandom(6)));
    expect(res.closest.length).toBe(4);
  });

  it('stops at the first value for FIND_VALUE', async () => {
    const rand = seededRandom(7);
    const ids = Array.from({ length: 50 }, () => randomId(rand));
    const holder = idToHex(ids[10]!);
    const rec = { v: new Uint8Array([1]), pub: ids[0]!, seq: 1, ttl: 1000 };
    const res = await iterativeLookup({
      target: ids[10]!,
      seeds: ids.slice(20, 25).map((id) => ({ id, hex: idToHex(id) })),
      query: async (_id, hex) => (hex === holder ? { nodes: [], value: rec } : { nodes: ids.slice(0, 15) }),
      k: 20,
      alpha: 3,
      selfHex: 'x',
      hexOf: idToHex,
      wantValue: true,
    });
    expect(res.value?.rec).toEqual(rec);
    expect(idToHex(res.value!.from)).toBe(holder);
  });

  it('FIND_VALUE collects several values and takes the highest version; ends two rounds after the first value', async () => {
    const clock = new VirtualClock();
    const rand = seededRandom(8);
    const ids = Array.from({ length: 50 }, () => randomId(rand));
    const target = randomId(rand);
    const sorted = sortByDistance([...ids], (x) => x, target).map(idToHex);
    const rec = (seq: number) => ({ v: new Uint8Array([seq]), pub: ids[0]!, seq, ttl: 1000 });
    // The three closest hold versions 5, 9 (its wire seq says 1) and 7; each answer takes 100 ms.
    const held = new Map([[sorted[0]!, { value: rec(5), version: 5 }], [sorted[1]!, { value: rec(1), version: 9 }], [sorted[2]!, { value: rec(7), version: 7 }]]);
    const run = (values: number, late = new Set<string>()) => {
      let took = -1;
      const t0 = clock.now();
      const p = iterativeLookup({
        target,
        seeds: ids.map((id) => ({ id, hex: idToHex(id) })),
        query: (_id, hex) => new Promise((resolve) => clock.setTimeout(() => resolve({ nodes: [], ...held.get(hex) }), late.has(hex) ? 5000 : 100)),
        k: 20,
        alpha: 3,
        selfHex: 'self',
        hexOf: idToHex,
        wantValue: true,
        values,
        valueWaitMs: 10_000,
        now: () => clock.now(),
        setTimer: (fn, ms) => void clock.setTimeout(fn, ms),
      }).then((res) => ((took = clock.now() - t0), res));
      return clock.runUntil(() => took >= 0, 60_000).then(async () => ({ res: await p, took }));
    };
    const all = await run(3);
    expect(all.res.values.map((x) => x.version).sort()).toEqual([5, 7, 9]);
    expect(all.res.value?.version).toBe(9);
    expect(all.res.value?.rec.seq).toBe(1);
    expect(all.took).toBe(100);
    // Version 9's holder is slow: the lookup ends 2 rounds (2 x 100 ms) after the first value.
    const slow = await run(3, new Set([sorted[1]!]));
    expect(slow.res.value?.version).toBe(7);
    expect(slow.took).toBe(300);
  });

  it('a query past stallMs frees its parallel slot: dead seeds time out side by side, not one after another', async () => {
    const clock = new VirtualClock();
    const rand = seededRandom(9);
    const ids = Array.from({ length: 40 }, () => randomId(rand));
    const target = randomId(rand);
    const sorted = sortByDistance([...ids], (x) => x, target);
    const dead = new Set(sorted.slice(0, 6).map(idToHex)); // the six closest never answer
    const query: QueryFn = (_id, hex) =>
      new Promise((resolve, reject) => {
        if (dead.has(hex)) clock.setTimeout(() => reject(new Error('timeout')), 2000);
        else clock.setTimeout(() => resolve({ nodes: [] }), 100);
      });
    const timed = async (stallMs: number) => {
      const t0 = clock.now();
      let took = -1;
      const p = iterativeLookup({
        target,
        seeds: ids.map((id) => ({ id, hex: idToHex(id) })),
        query,
        k: 20,
        alpha: 3,
        selfHex: 'self',
        hexOf: idToHex,
        stallMs,
        setTimer: (fn, ms) => void clock.setTimeout(fn, ms),
      }).then((res) => ((took = clock.now() - t0), res));
      await clock.runUntil(() => took >= 0, 60_000);
      return { res: await p, took };
    };
    const without = await timed(0);
    const withStall = await timed(500);
    expect(without.took).toBeGreaterThanOrEqual(4000); // two rounds of three dead seeds
    expect(withStall.took).toBeLessThan(3000); // all six time out together
    for (const r of [without.res, withStall.res]) {
      expect(r.closest.map((c) => c.hex)).toEqual(sorted.slice(6, 26).map(idToHex));
      expect(r.failures).toBe(6);
    }
  });

  // Without lost routes, liars that replay an old value and name only each other do not
  // beat one path here either (it found the newest value 49 times of 49, three paths 46):
  // what this checks is that the paths stay disjoint and still find it.
  it('disjoint paths: no node is asked twice across paths, and the newest value is still found past liars', async () => {
    const rand = seededRandom(9);
    const ids = Array.from({ length: 400 }, () => randomId(rand));
    const liars = new Set(ids.filter(() => rand() < 0.2).map(idToHex));
    const tables = new Map(ids.map((id) => [idToHex(id), new RoutingTable(id, 20)] as const));
    for (const t of tables.values()) for (const other of ids) t.add(other, 0);
    const rec = (seq: number) => ({ v: new Uint8Array([seq]), pub: ids[0]!, seq, ttl: 60_000 });
    const run = async (paths: number) => {
      let newest = 0;
      let asked = 0;
      let reads = 0;
      for (let i = 0; i < 60; i++) {
        const from = ids[i]!;
        const key = randomId(rand);
        if (liars.has(idToHex(from))) continue;
        reads++;
        // The honest nodes among the key's 20 closest hold version 2; every liar answers
        // with version 1 (a replay) and names only liars (an eclipse attempt).
        const holders = new Set(sortByDistance(ids, (x) => x, key).slice(0, 20).map(idToHex));
        const seen = new Set<string>();
        const query: QueryFn = (_id, hex) => {
          expect(seen.has(hex)).toBe(false);
          seen.add(hex);
          if (liars.has(hex)) {
            const nodes = sortByDistance(ids.filter((x) => liars.has(idToHex(x)) && idToHex(x) !== hex), (x) => x, key).slice(0, 20);
            return Promise.resolve({ nodes, value: rec(1), version: 1 });
          }
          const nodes = tables.get(hex)!.closest(key, 20).map((c) => c.id);
          return Promise.resolve(holders.has(hex) ? { nodes, value: rec(2), version: 2 } : { nodes });
        };
        const seeds = tables.get(idToHex(from))!.closest(key, 20);
        const res = await iterativeLookup({ target: key, seeds, query, k: 20, alpha: 3, selfHex: idToHex(from), hexOf: idToHex, wantValue: true, values: 3, paths });
        asked += res.queries;
        if (res.value?.version === 2) newest++;
      }
      return { newest, asked, reads };
    };
    const one = await run(1);
    const three = await run(3);
    expect(three.newest).toBeGreaterThanOrEqual(0.9 * three.reads);
    expect(three.asked).toBeGreaterThan(one.asked);
  });

  it('retries: a node whose first query was lost is asked again by another route (attempt n), not given up', async () => {
    const w = world(200, 11);
    const target = w.ids[5]!;
    const from = w.ids[6]!;
    const run = async (attempts: number) => {
      const tries: number[] = [];
      const res = await iterativeLookup({
        target,
        seeds: w.tables.get(idToHex(from))!.closest(target, 20),
        query: (_id, hex, _informer, attempt) => {
          if (hex !== idToHex(target)) return Promise.resolve({ nodes: w.tables.get(hex)!.closest(target, 20).map((c) => c.id) });
          tries.push(attempt);
          // The target's first two queries are lost on the way.
          return attempt < 2 ? Promise.reject(new Error('timeout')) : Promise.resolve({ nodes: [] });
        },
        k: 20,
        alpha: 3,
        selfHex: idToHex(from),
        hexOf: idToHex,
        attempts,
      });
      return { first: res.closest[0]?.hex, tries };
    };
    const once = await run(1);
    expect(once.first).not.toBe(idToHex(target));
    expect(once.tries).toEqual([0]);
    const thrice = await run(3);
    expect(thrice.first).toBe(idToHex(target));
    expect(thrice.tries).toEqual([0, 1, 2]);
  });

  it('retries only within the first query\'s RPC timeout: a dead node holds the lookup no longer than without retries', async () => {
    const { w, target, from } = retryWorld();
    // Unanswered queries fail at the RPC timeout; `answerOn` is answered at once.
    const run = async (deadHex: string, answerOn: number, alpha = 3) => {
      const res = await timedLookup(w, from, target, { lostHex: deadHex, answerOn, alpha, stallMs: STALL, timeoutMs: TIMEOUT });
      return { ...res, tries: res.tries.map((t) => t.attempt) };
    };
    // Dead: asked at 0, 600, 1200 and 1800 ms (a retry per stall), failed at 2000 ms; the
    // lookup does not wait for the last retry's own timeout (3800 ms).
    const dead = await run(idToHex(target), -1);
    expect(dead.tries).toEqual([0, 1, 2, 3]);
    expect(dead.first).not.toBe(idToHex(target));
    expect(dead.ms).toBeLessThan(TIMEOUT + STALL);
    // One query at a time: the last retry, still holding the slot when the node failed,
    // frees it when it settles, and the lookup goes on (it stopped for good once).
    const narrow = await run(idToHex(target), -1, 1);
    expect(narrow.ms).toBeLessThan(60_000);
    expect(narrow.first).not.toBe(idToHex(target));
    // A retry inside the window that gets through finds it.
    const late = await run(idToHex(target), 3);
    expect(late.first).toBe(idToHex(target));
  });

  it('target copies: the target itself is asked by two routes at once and per stall; another candidate once, and the lookup ends as soon', async () => {
    const { w, target, from } = retryWorld();
    // Every query to the target is lost but the one numbered `answerOn`; other nodes answer.
    const run = (targetCopies: number, answerOn: number) => timedLookup(w, from, target, { lostHex: idToHex(target), answerOn, targetCopies, stallMs: STALL, timeoutMs: TIMEOUT });
    // One copy: four queries fit the window (0, 600, 1200, 1800 ms); the fifth never leaves.
    const one = await run(1, 4);
    expect(one.tries.map((t) => t.attempt)).toEqual([0, 1, 2, 3]);
    expect(one.first).not.toBe(idToHex(target));
    // Two: in pairs, each pair at one moment, so the window holds eight.
    const two = await run(2, 4);
    expect(two.first).toBe(idToHex(target));
    expect(two.tries.slice(0, 4).map((t) => t.at - two.tries[0]!.at)).toEqual([0, 0, STALL, STALL]);
    // Lost for good: eight tries, and the lookup ends when one copy alone would have.
    const lost = await run(2, -1);
    expect(lost.tries).toHaveLength(8);
    expect(lost.first).not.toBe(idToHex(target));
    expect(lost.ms).toBeLessThan(TIMEOUT + STALL);
    // Only the target is doubled: the other nodes are asked as often either way.
    expect(lost.others).toBe((await run(1, -1)).others);
  });

  it('target windows: the target is asked on after its first tries timed out, over a second window', async () => {
    const { w, target, from } = retryWorld();
    const run = (targetWindows: number, answerOn: number) => timedLookup(w, from, target, { lostHex: idToHex(target), answerOn, targetCopies: 2, targetWindows, stallMs: STALL, timeoutMs: TIMEOUT });
    // The ninth try (attempt 8) is the first to get through: one window holds eight, all
    // sent before the first timed out; the second window sends it at 2.4 s.
    const one = await run(1, 8);
    expect(one.tries).toHaveLength(8);
    expect(one.first).not.toBe(idToHex(target));
    const two = await run(2, 8);
    expect(two.first).toBe(idToHex(target));
    expect(two.tries[8]!.at - two.tries[0]!.at).toBeGreaterThan(TIMEOUT);
    // Lost for good: pairs every stall until two windows passed (0 .. 3.6 s: 14 tries), and
    // the lookup ends when the second window does.
    const lost = await run(2, -1);
    expect(lost.tries).toHaveLength(14);
    expect(lost.first).not.toBe(idToHex(target));
    expect(lost.ms).toBeLessThan(2 * TIMEOUT + STALL);
    // Other candidates keep one window: they are asked as often either way.
    expect(lost.others).toBe((await run(1, -1)).others);
  });

  it('gives up on a silent candidate after giveUpMs (two stalls), not its retry window; a live one on slow routes is waited for', async () => {
    const rand = seededRandom(21);
    const ids = Array.from({ length: 30 }, () => randomId(rand));
    const target = randomId(rand);
    const sorted = sortByDistance([...ids], (x) => x, target);
    const silent = new Set(sorted.slice(0, 3).map(idToHex)); // the three closest never answer
    const lateHex = idToHex(sorted[3]!); // the fourth answers 2.5 s after each query
    const run = async (o: { answerMs: number; giveUpMs?: number; silent?: LookupParams['silent'] }) => {
      const clock = new VirtualClock();
      const queried: string[] = [];
      const done = iterativeLookup({
        target,
        seeds: ids.map((id) => ({ id, hex: idToHex(id) })),
        query: (_id, hex) => {
          queried.push(hex);
          return new Promise((resolve, reject) => {
            if (silent.has(hex)) clock.setTimeout(() => reject(new Error('timeout')), 4000);
            else clock.setTimeout(() => resolve({ nodes: [] }), hex === lateHex ? 2500 : o.answerMs);
          });
        },
        k: 20,
        alpha: 3,
        selfHex: 'self',
        hexOf: (id) => idToHex(id),
        attempts: 5,
        stallMs: 1000,
        retryWithinMs: 4000,
        giveUpMs: o.giveUpMs,
        silent: o.silent,
        targetCopies: 2,
        targetWindows: 2,
        now: () => clock.now(),
        setTimer: (fn, ms) => void clock.setTimeout(fn, ms),
      });
      let res: Awaited<typeof done> | undefined;
      void done.then((r) => (res = r));
      await clock.runUntil(() => res !== undefined, 60_000);
      return { res: res!, ms: clock.now(), queried };
    };
    // Without it: the silent ones hold the lookup to their retry window's end (4 s and more).
    const patient = await run({ answerMs: 50 });
    expect(patient.ms).toBeGreaterThanOrEqual(4000);
    // With it, answers in 50 ms: the silent ones are given up 2 s after their first query,
    // each asked twice (one retry by another route, outside the parallel slots); the late one
    // (2.5 s, 50 times the lookup's slowest other answer), first asked at 1 s when the silent
    // ones' stalls freed their slots, is given up at 3 s.
    const quick = await run({ answerMs: 50, giveUpMs: 2000 });
    expect(quick.ms).toBeGreaterThanOrEqual(3000);
    expect(quick.ms).toBeLessThan(3200);
    for (const hex of silent) expect(quick.queried.filter((h) => h === hex)).toHaveLength(2);
    expect(quick.res.closest.map((c) => c.hex)).toEqual(sorted.slice(4, 24).map(idToHex));
    expect(quick.res.failures).toBe(4); // three silent, one late: failed as far as it knows
    // Answers in 700 ms (a busy machine): it waits 4 x 700 ms = 2.8 s, and the late one is in.
    const slow = await run({ answerMs: 700, giveUpMs: 2000 });
    expect(slow.res.closest.map((c) => c.hex)).toEqual(sorted.slice(3, 23).map(idToHex));
    expect(slow.res.failures).toBeGreaterThanOrEqual(3); // the silent ones: their queries timed out meanwhile
    // At or past the retry window it is off: the lookup is the patient one.
    const off = await run({ answerMs: 50, giveUpMs: 4000 });
    expect(off.ms).toBe(patient.ms);
    expect(off.queried).toEqual(patient.queried);
    // Nodes given up lately (`silent`): asked once each, not waited for; the lookup ends with
    // its last live answer. One of them that answers is waited for again.
    const given: string[] = [];
    const heard: string[] = [];
    const silentNow = new Set([...silent, lateHex]);
    const memory = { has: (hex: string) => silentNow.has(hex), gaveUp: (hex: string) => void given.push(hex), answered: (hex: string) => void heard.push(hex) };
    const known = await run({ answerMs: 50, giveUpMs: 2000, silent: memory });
    expect(known.ms).toBeLessThan(1000);
    for (const hex of silentNow) expect(known.queried.filter((h) => h === hex)).toHaveLength(1);
    expect(known.res.closest.map((c) => c.hex)).toEqual(sorted.slice(4, 24).map(idToHex));
    expect(given).toEqual([]); // nothing new given up
    expect(heard).not.toContain(lateHex); // it answered after the lookup ended
  });

  it('never gives up on the target itself: it is asked over its windows, as without giving up', async () => {
    const { w, target, from } = retryWorld();
    const clock = new VirtualClock();
    const tries: number[] = [];
    const done = iterativeLookup({
      target,
      seeds: w.tables.get(idToHex(from))!.closest(target, 20),
      query: (_id, hex) => {
        if (hex !== idToHex(target)) return Promise.resolve({ nodes: w.tables.get(hex)!.closest(target, 20).map((c) => c.id) });
        tries.push(clock.now());
        return new Promise((_, reject) => clock.setTimeout(() => reject(new Error('timeout')), TIMEOUT));
      },
      k: 20,
      alpha: 3,
      selfHex: idToHex(from),
      hexOf: idToHex,
      attempts: 5,
      targetCopies: 2,
      targetWindows: 2,
      stallMs: STALL,
      retryWithinMs: TIMEOUT,
      giveUpMs: 2 * STALL,
      now: () => clock.now(),
      setTimer: (fn, ms) => void clock.setTimeout(fn, ms),
    });
    let ended = -1;
    void done.then(() => (ended = clock.now()));
    await clock.runUntil(() => ended >= 0, 60_000);
    // As in 'target windows' above: pairs every stall over two windows, 14 tries.
    expect(tries).toHaveLength(14);
    expect(ended).toBeGreaterThan(2 * TIMEOUT);
  });
});
