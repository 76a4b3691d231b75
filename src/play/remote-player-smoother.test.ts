import { describe, expect, it } from 'vitest';
import { hashString, mulberry32 } from '../world/terrain-hash';
import { angleDelta, RemotePlayers, wrapAngle } from './remote-player-smoother';

const FRAME_MS = 1000 / 60;
const TICK_MS = 50;
const WALK = 4.3 / 1000; // blocks per ms

/** A player walking with sharp turns every 800 ms: position at time t (ms). */
function walker(seed: string): (t: number) => { x: number; z: number; yaw: number } {
  const rnd = { next: mulberry32(hashString(seed)) };
  const legs: { t: number; x: number; z: number; yaw: number }[] = [{ t: 0, x: 0, z: 0, yaw: 0 }];
  return (t) => {
    while (legs[legs.length - 1]!.t + 800 <= t) {
      const l = legs[legs.length - 1]!;
      legs.push({ t: l.t + 800, x: l.x - Math.sin(l.yaw) * WALK * 800, z: l.z - Math.cos(l.yaw) * WALK * 800, yaw: wrapAngle(l.yaw + (rnd.next() - 0.5) * Math.PI * 1.6) });
    }
    const l = legs[legs.length - 1]!;
    const d = WALK * (t - l.t);
    return { x: l.x - Math.sin(l.yaw) * d, z: l.z - Math.cos(l.yaw) * d, yaw: l.yaw };
  };
}

interface Run { maxStep: number; maxYawStep: number; maxError: number; frames: number }

/** 20 Hz updates through a lossy, jittery network; samples at 60 fps for `ms`. */
function simulate(opts: { loss: number; jitterMs: number; latencyMs: number; ms: number; withSentTime: boolean; seed: string }): Run {
  const rnd = { next: mulberry32(hashString(`${opts.seed}-net`)) };
  const path = walker(opts.seed);
  const arrivals: { at: number; sent: number }[] = [];
  for (let sent = 0; sent < opts.ms; sent += TICK_MS) {
    if (rnd.next() < opts.loss) continue;
    arrivals.push({ at: sent + opts.latencyMs + rnd.next() * opts.jitterMs, sent });
  }
  arrivals.sort((a, b) => a.at - b.at);
  const players = new RemotePlayers();
  let next = 0;
  let prev: { x: number; z: number; yaw: number } | undefined;
  const run: Run = { maxStep: 0, maxYawStep: 0, maxError: 0, frames: 0 };
  for (let now = 0; now < opts.ms; now += FRAME_MS) {
    while (next < arrivals.length && arrivals[next]!.at <= now) {
      const a = arrivals[next++]!;
      const p = path(a.sent);
      players.update('p1', 'Ann', p.x, 64, p.z, p.yaw, 0, a.at, opts.withSentTime ? a.sent : undefined);
    }
    const s = players.sample(now);
    if (!s.length) continue;
    const cur = s[0]!;
    expect(cur.y).toBeCloseTo(64, 9);
    if (prev) {
      run.maxStep = Math.max(run.maxStep, Math.hypot(cur.x - prev.x, cur.z - prev.z));
      run.maxYawStep = Math.max(run.maxYawStep, Math.abs(angleDelta(prev.yaw, cur.yaw)));
    }
    if (now > 1000) {
      const truth = path(now - 100 - opts.latencyMs);
      run.maxError = Math.max(run.maxError, Math.hypot(cur.x - truth.x, cur.z - truth.z));
    }
    prev = cur;
    run.frames++;
  }
  return run;
}

describe('remote player smoothing', () => {
  // ~0.072 blocks. The drawn path may briefly move faster (catching up after a turn hidden
  // by loss: up to the 12 blocks/s speed cap), never teleport.
  const truePerFrame = WALK * FRAME_MS;

  it('never jumps under 30% loss and jitter (arrival times only)', () => {
    for (const seed of ['a', 'b', 'c', 'd']) {
      const r = simulate({ loss: 0.3, jitterMs: 40, latencyMs: 30, ms: 20_000, withSentTime: false, seed });
      expect(r.frames).toBeGreaterThan(1100);
      expect(r.maxStep).toBeLessThan(truePerFrame * 3.5);
      expect(r.maxError).toBeLessThan(1.2);
    }
  });

  it('never jumps under 30% loss and jitter (sender timestamps)', () => {
    for (const seed of ['a', 'b', 'c', 'd']) {
      const r = simulate({ loss: 0.3, jitterMs: 40, latencyMs: 30, ms: 20_000, withSentTime: true, seed });
      expect(r.maxStep).toBeLessThan(truePerFrame * 3);
      expect(r.maxError).toBeLessThan(1);
    }
  });

  it('turns smoothly: yaw steps stay small', () => {
    const r = simulate({ loss: 0.3, jitterMs: 40, latencyMs: 30, ms: 20_000, withSentTime: true, seed: 'yaw' });
    expect(r.maxYawStep).toBeLessThan(0.6); // a 144-degree turn spread over many frames
  });

  it('interpolates exactly along a straight line with no loss', () => {
    const players = new RemotePlayers({ delayMs: 100 });
    for (let t = 0; t <= 2000; t += 50) players.update('p', 'P', t / 100, 70, 0, 0, 0, t);
    // The warp filter has settled long before: drawn position = true position 100 ms ago.
    for (let now = 0; now <= 2000; now += FRAME_MS) {
      const s = players.sample(now)[0]!;
      if (now > 1000) expect(s.x).toBeCloseTo((now - 100) / 100, 2);
    }
  });

  it('converges after a correction without a jump', () => {
    const players = new RemotePlayers();
    let now = 0;
    const step = (until: number, x: number) => {
      let prevX = players.sample(now)[0]?.x ?? x;
      let maxStep = 0;
      for (; now < until; now += FRAME_MS) {
        if (Math.round(now) % 50 < FRAME_MS) players.update('p', 'P', x, 64, 0, 0, 0, now);
        const s = players.sample(now)[0]!;
        maxStep = Math.max(maxStep, Math.abs(s.x - prevX));
        prevX = s.x;
      }
      return { x: prevX, maxStep };
    };
    expect(step(1000, 0).x).toBeCloseTo(0, 6);
    // The host corrects the player by 2 blocks (a rubber band, not a teleport).
    const r = step(2000, 2);
    expect(r.maxStep).toBeLessThan(0.45);
    expect(r.x).toBeCloseTo(2, 2);
  });

  it('extrapolates for a bounded time only, then holds still', () => {
    const players = new RemotePlayers({ delayMs: 100, maxExtrapolateMs: 250 });
    for (let t = 0; t <= 1000; t += 50) players.update('p', 'P', t / 250, 64, 0, 0, 0, t); // 4 blocks/s
    const xs: number[] = [];
    for (let now = 1000; now <= 3000; now += FRAME_MS) xs.push(players.sample(now)[0]!.x);
    const end = xs[xs.length - 1]!;
    expect(end).toBeGreaterThan(4.5);
    expect(end).toBeLessThan(4 + 4 * 0.25 + 0.3); // at most ~250 ms of extrapolation (+ warp overshoot)
    expect(Math.abs(end - xs[xs.length - 30]!)).toBeLessThan(1e-3); // still
  });

  it('snaps on a teleport', () => {
    const players = new RemotePlayers();
    for (let t = 0; t <= 500; t += 50) players.update('p', 'P', 0, 64, 0, 0, 0, t);
    players.sample(500);
    players.update('p', 'P', 100, 80, -40, 0, 0, 520);
    const s = players.sample(530)[0]!;
    expect([s.x, s.y, s.z]).toEqual([100, 80, -40]);
  });

  it('wraps yaw across +-PI the short way', () => {
    const players = new RemotePlayers();
    players.update('p', 'P', 0, 64, 0, Math.PI - 0.1, 0, 0);
    players.update('p', 'P', 0, 64, 0, -Math.PI + 0.1, 0, 50);
    let prev = players.sample(0)[0]!.yaw;
    for (let now = FRAME_MS; now < 1000; now += FRAME_MS) {
      const y = players.sample(now)[0]!.yaw;
      expect(Math.abs(y)).toBeGreaterThan(Math.PI - 0.11); // never swings through 0
      expect(Math.abs(angleDelta(prev, y))).toBeLessThan(0.1);
      prev = y;
    }
    expect(angleDelta(prev, -Math.PI + 0.1)).toBeCloseTo(0, 3);
    expect(wrapAngle(3 * Math.PI)).toBeCloseTo(Math.PI, 9);
    expect(wrapAngle(-Math.PI)).toBe(Math.PI);
  });

  it('holds many players, forgets silent ones and removes on request', () => {
    const players = new RemotePlayers({ expireMs: 1000 });
    players.update('a', 'A', 0, 64, 0, 0, 0, 0);
    players.update('b', 'B', 5, 64, 5, 0, 0, 0);
    players.update('c', 'C', 9, 64, 9, 0, 0, 0);
    expect(players.sample(10).map((p) => p.id).sort()).toEqual(['a', 'b', 'c']);
    expect(players.remove('c')).toBe(true);
    players.update('a', 'Ann', 0, 64, 0, 0, 0, 900);
    const left = players.sample(1500);
    expect(left.map((p) => [p.id, p.name])).toEqual([['a', 'Ann']]);
    expect(players.size).toBe(1);
    players.update('x', 'X', NaN, 0, 0, 0, 0, 0);
    expect(players.has('x')).toBe(false);
  });
});
