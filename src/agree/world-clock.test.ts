import { describe, expect, it } from 'vitest';
import { percentile } from '../core/percentile';
import { VirtualClock } from '../core/virtual-clock';
import { runWorldClockSim as measure } from '../testing/world-clock-sim';
import { WorldClock } from './world-clock';

describe('WorldClock (seeded, virtual time, drifting clocks)', () => {
  it('asymmetric jittery lossy links (5-60 ms each way): the error never exceeds the stated bound, and the bound is about half the best round trip', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const r = measure(seed, { lo: 5, hi: 60, jitterMean: 8, loss: 0.05 });
      expect(r.violations).toBe(0);
      expect(r.errors.length).toBeGreaterThan(600);
      expect(percentile(r.bounds, 0.5)).toBeLessThan(125); // far is two hops away, each at most half a 120 ms round trip
      expect(r.status.samples).toBeGreaterThan(8);
      for (const s of r.skews) expect(s).toBeLessThan(125);
    }
  });

  it('loopback-like links (0.1-1 ms, 0.2 ms jitter): error p99 within 2 ms, an event fires on the same frame everywhere', () => {
    const r = measure(7, { lo: 0.1, hi: 1, jitterMean: 0.2, loss: 0.02 });
    expect(r.violations).toBe(0);
    expect(percentile(r.errors, 0.99)).toBeLessThan(2);
    expect(percentile(r.bounds, 0.99)).toBeLessThan(3);
    expect(r.skews.length).toBeGreaterThan(10);
    expect(Math.max(...r.skews)).toBeLessThan(17);
  });

  it('alone it is its own reference (bound 0); following someone who has not answered, the bound is Infinity', () => {
    const local = new VirtualClock(500);
    const alone = new WorldClock({ local, base: 1000, send: () => {}, references: () => [] });
    alone.start();
    expect(alone.now()).toBe(1500);
    expect(alone.status().bound).toBe(0);
    const waiting = new WorldClock({ local, send: () => {}, references: () => ['h'] });
    waiting.start();
    expect(waiting.status().bound).toBe(Infinity);
    waiting.receive('stranger', { t: 'TIME_REP', n: 1, now: 5 }); // not a reference: ignored
    waiting.receive('h', { t: 'TIME_REP', n: 99, now: 5 }); // answers nothing asked
    expect(waiting.stats.unasked).toBe(1);
    // Unsynchronised itself, it answers nobody's request; alone, it answers with bound 0.
    const said: unknown[] = [];
    const asked = (c: WorldClock) => c.receive('peer', { t: 'TIME_REQ', n: 7 });
    const w2 = new WorldClock({ local, send: (_to, m) => said.push(m), references: () => ['h'] });
    w2.start();
    said.length = 0;
    asked(w2);
    expect(said).toEqual([]);
    const a2 = new WorldClock({ local, base: 1000, send: (_to, m) => said.push(m), references: () => [] });
    asked(a2);
    expect(said).toEqual([{ t: 'TIME_REP', n: 7, now: 1500 }]);
    w2.stop();
    waiting.stop();
  });

  it('a probe round held back by `sendAt` (a drawing page waits for the end of its frame) is timed from when it goes out', () => {
    const local = new VirtualClock(0);
    const held: (() => void)[] = [];
    const out: { n: number; at: number }[] = [];
    const c = new WorldClock({ local, send: (_to, m) => { if (m.t === 'TIME_REQ') out.push({ n: m.n, at: local.now() }); }, references: () => ['h'], sendAt: (go) => held.push(go) });
    c.start();
    expect(out).toHaveLength(0);
    local.advanceSync(40); // the frame's work
    held.shift()!();
    expect(out).toHaveLength(1);
    local.advanceSync(1); // an answer that found the page idle: the reference read 10,000 half-way
    c.receive('h', { t: 'TIME_REP', n: out[0]!.n, now: 10_000 });
    expect(c.status().minRtt).toBeCloseTo(1, 2); // not 41: the 40 ms of the frame are not in it
    expect(Math.abs(c.now() - 10_000.5)).toBeLessThanOrEqual(0.5);
    c.stop();
    held.shift()?.(); // a round due after stop sends nothing
    expect(out).toHaveLength(1);
  });

  it('a reference that says it draws frames (busy) is followed only when no idle one answered, and never where mayFollow forbids it', () => {
    const local = new VirtualClock(0);
    const sent: { to: string; n: number }[] = [];
    const send = (to: string, m: { t: string; n: number }) => { if (m.t === 'TIME_REQ') sent.push({ to, n: m.n }); };
    const answer = (c: WorldClock, to: string, now: number, busy: boolean) => {
      const q = sent.filter((x) => x.to === to).pop()!;
      c.receive(to, { t: 'TIME_REP', n: q.n, now, busy });
    };
    const player = new WorldClock({ local, send, references: () => ['busy', 'idle'] });
    player.start();
    local.advanceSync(1);
    answer(player, 'busy', 5000, true); // the tighter round trip, but it draws
    local.advanceSync(3);
    answer(player, 'idle', 7000, false);
    expect(player.status().reference).toBe('idle');
    expect(player.isBusy('busy')).toBe(true);
    player.stop();
    // An idle host may not follow a busy one: with only that one, it is its own reference and answers.
    sent.length = 0;
    const said: unknown[] = [];
    const host = new WorldClock({ local, base: 100, send: (to, m) => { said.push(m); send(to, m); }, references: () => ['busy'], mayFollow: (_id, busy) => !busy });
    host.start();
    expect(host.status().bound).toBe(Infinity); // not heard yet: it might be followable
    local.advanceSync(1);
    answer(host, 'busy', 5000, true);
    expect(host.status()).toMatchObject({ bound: 0, reference: undefined });
    expect(host.now()).toBe(local.now() + 100);
    host.receive('peer', { t: 'TIME_REQ', n: 9 });
    expect(said.at(-1)).toEqual({ t: 'TIME_REP', n: 9, now: local.now() + 100 });
    host.stop();
  });
});
