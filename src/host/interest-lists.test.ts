import { describe, expect, it } from 'vitest';
import { decodePositions, quantise, type QPose } from '../region/position-code';
import { sampleLook } from '../testing/sample-look';
import { INTEREST_DEFAULTS, InterestLists, InterestView, nextFrame, type PositionsBody, type Watched } from './interest-lists';

const r = { rx: 0, rz: 0 };
const TICK = 50;
const o = { ...INTEREST_DEFAULTS, nearest: 32 };

function crowd(n: number, t: number): Watched[] {
  // Player i stands i / 2 blocks east of the subscriber's spot and walks north.
  return Array.from({ length: n }, (_, i) => {
    const x = 1 + i / 2, z = 10 + t / 1000;
    return { slot: i, hex: `p${i}`, id: new Uint8Array(20).fill(i), look: sampleLook(`p${i}`), x, z, q: quantise(r, { x, y: 70, z, yaw: 0, pitch: 0 }) };
  });
}

/** What a subscriber holds (as the player side reads frames: region/position-streams.ts). */
class Holder {
  readonly held = new Map<number, QPose>();
  private readonly prev = new Map<number, QPose>();

  read(body: PositionsBody) {
    for (const s of [...(body.gone ?? []), ...(body.roster ?? []).map((x) => x.s)]) {
      this.held.delete(s);
      this.prev.delete(s);
    }
    const entries = decodePositions(body.b, (s) => this.held.get(s), (s) => this.prev.get(s));
    for (const e of entries) {
      const was = this.held.get(e.slot);
      if (was) this.prev.set(e.slot, was);
      else this.prev.delete(e.slot);
      this.held.set(e.slot, e.q);
    }
    return entries;
  }
}

/** What a subscriber standing at (0, 10) holds after each frame (as the player side reads it). */
function follow(view: InterestView, ticks: number, players: (t: number) => Watched[], self = 'me') {
  const holder = new Holder();
  const held = holder.held;
  const sent: { t: number; slots: number[]; bytes: number }[] = [];
  for (let k = 0; k < ticks; k++) {
    const t = k * TICK;
    const body: PositionsBody | undefined = nextFrame(view, players(t), self, { x: 0, z: 10 }, t, TICK, o);
    if (!body) continue;
    const entries = holder.read(body);
    sent.push({ t, slots: entries.map((e) => e.slot), bytes: body.b.length });
  }
  return { held, sent };
}

describe('interest lists', () => {
  it('a crowd of 100: the nearest 32 at every change but at most every crowdNearMs, every other player at least every farMs, nobody left out', () => {
    const view = new InterestView();
    const { held, sent } = follow(view, 100, (t) => crowd(100, t));
    const times = (slot: number) => sent.filter((f) => f.slots.includes(slot)).map((f) => f.t);
    // Player 3 is among the nearest: it moved each tick, and goes out every crowdNearMs (every other tick).
    expect(times(3).length).toBe(100 / (o.crowdNearMs / TICK));
    const near = times(3);
    for (let i = 1; i < near.length; i++) expect(near[i]! - near[i - 1]!).toBe(o.crowdNearMs);
    // Player 90 is far: every ~farMs, never more than farMs + a tick apart.
    const far = times(90);
    expect(far.length).toBeGreaterThanOrEqual(5);
    expect(far.length).toBeLessThanOrEqual(8);
    for (let i = 1; i < far.length; i++) expect(far[i]! - far[i - 1]!).toBeLessThanOrEqual(o.farMs + TICK);
    // Everyone reached the subscriber, where it stands now (the near ones exactly).
    expect(held.size).toBe(100);
    expect(held.get(3)).toEqual(crowd(100, 98 * TICK)[3]!.q);
    // Compact: after the first second, a tick's frame is 2 bytes per near player walking on
    // as it walked (a step like the last: head and x/z), plus the far share.
    const later = sent.filter((f) => f.t >= 1000);
    const perTick = later.reduce((n, f) => n + f.bytes, 0) / later.length;
    expect(perTick).toBeLessThan(32 * 2 + 20);
  });

  it('a region with no more than `nearest` players: all at every change, even for a subscriber whose position is unknown', () => {
    const holder = new Holder();
    const view = new InterestView();
    let sent = 0;
    for (let k = 0; k < 20; k++) sent += holder.read(nextFrame(view, crowd(10, k * TICK), 'me', undefined, k * TICK, TICK, o)!).length;
    expect(sent).toBe(200);
  });

  it('introduces each player once, names the ones gone once, never sends a subscriber itself; reset starts afresh, counting on (marked f)', () => {
    const view = new InterestView();
    const players = crowd(3, 0);
    const a = nextFrame(view, players, 'p1', { x: 0, z: 10 }, 0, TICK, o)!;
    expect(a.n).toBe(0);
    expect(a.roster?.map((x) => x.s)).toEqual([0, 2]);
    const b = nextFrame(view, crowd(3, 100).filter((p) => p.slot !== 2), 'p1', { x: 0, z: 10 }, 100, TICK, o)!;
    expect(b).toMatchObject({ n: 1, gone: [2] });
    expect(b.roster).toBeUndefined();
    // Nothing moved, nothing due: no frame.
    expect(nextFrame(view, crowd(3, 100).filter((p) => p.slot !== 2), 'p1', { x: 0, z: 10 }, 150, TICK, o)).toBeUndefined();
    expect(a.f).toBeUndefined();
    expect(b.f).toBeUndefined();
    view.reset();
    const c = nextFrame(view, crowd(3, 100), 'p1', { x: 0, z: 10 }, 200, TICK, o)!;
    // Counting on: frames 0 and 1 may still be on their way; the subscriber drops them, being older than 2.
    expect(c).toMatchObject({ n: 2, f: true });
    expect(c.roster?.map((x) => x.s)).toEqual([0, 2]);
    const d = nextFrame(view, crowd(3, 150), 'p1', { x: 0, z: 10 }, 250, TICK, o)!;
    expect([d.n, d.f]).toEqual([3, undefined]);
  });

  it('a slot reused by another player is named gone and introduced again in the same frame', () => {
    const view = new InterestView();
    nextFrame(view, crowd(2, 0), 'me', undefined, 0, TICK, o);
    const swapped = crowd(2, 0).map((p) => (p.slot === 1 ? { ...p, hex: 'newcomer', look: sampleLook('new') } : p));
    const f = nextFrame(view, swapped, 'me', undefined, 50, TICK, o)!;
    expect(f.gone).toEqual([1]);
    expect(f.roster?.map((x) => x.l?.n)).toEqual(['new']);
  });

  it('serves many subscribers, forgetting the ones no longer served', () => {
    const lists = new InterestLists(TICK);
    const subs = ['a', 'b', 'c'].map((hex) => ({ hex, at: { x: 0, z: 10 } }));
    expect([...lists.frames(subs, crowd(5, 0), 0)].map((f) => f.hex)).toEqual(['a', 'b', 'c']);
    lists.keepOnly((hex) => hex !== 'b');
    expect(lists.size).toBe(2);
    // 'b' comes back: a new view, afresh, counting on from where the last left off.
    expect([...lists.frames(subs, crowd(5, 50), 50)].map((f) => [f.hex, f.body.n, f.body.f])).toEqual([['a', 1, undefined], ['b', 1, true], ['c', 1, undefined]]);
  });

  /** A player standing at x (z = 10) that walks along x at vx blocks a second (its report before was a step back). */
  const walker = (slot: number, x: number, vx = 0): Watched => ({
    slot, hex: `p${slot}`, id: new Uint8Array(20).fill(slot), look: sampleLook(`p${slot}`), x, z: 10,
    q: quantise(r, { x, y: 70, z: 10, yaw: 0, pitch: 0 }), prev: quantise(r, { x: x - vx * 0.1, y: 70, z: 10, yaw: 0, pitch: 0 }),
  });
  /** When a subscriber standing at (0, 10) got `slot` over 12 ticks, the players at t given by `players`. */
  const timesOf = (lists: InterestLists, slot: number, players: (t: number) => Watched[]) => {
    const holder = new Holder();
    const sent: number[] = [];
    for (let k = 0; k < 12; k++) {
      const t = k * TICK;
      for (const f of lists.frames([{ hex: 'me', at: { x: 0, z: 10 } }], players(t), t)) if (holder.read(f.body).some((e) => e.slot === slot)) sent.push(t);
    }
    return sent;
  };
  const from250 = (times: number[]) => times.filter((t) => t >= 250 && t < 500);

  it('a player closing in is among the nearest before it is near: ranked by where it will be aheadMs on, as it walks', () => {
    // nearest 2 of 3: B stands 5 blocks off, C 8; A starts 12 off and runs at the subscriber
    // (standing at 0, 10) at 8 blocks a second: within a second it is the closest. (A near
    // player at every change: crowdNearMs 0.)
    const near = { ...o, nearest: 2, crowdNearMs: 0 };
    const players = (t: number) => [walker(0, 12 - (8 * t) / 1000, -8), walker(1, 5), walker(2, 8)];
    // A goes at every change (each tick here), though still farther than C.
    expect(from250(timesOf(new InterestLists(TICK, near), 0, players))).toEqual([250, 300, 350, 400, 450]);
    // Ranked by where they stand, A (still 8.4 blocks off at 450 ms, past C) waits its round-robin turn.
    expect(from250(timesOf(new InterestLists(TICK, { ...near, aheadMs: 0 }), 0, players))).toEqual([]);
  });

  it('a player walking away gives its place up to one that will be nearer', () => {
    // nearest 2 of 3: A stands 3 blocks off and walks away at 8 blocks a second (11 off a
    // second on), B stands 5 off, C 8 off and steps on the spot (its position changes each
    // tick). C takes A's place: ranked by how close each comes within the second, A (3 now)
    // kept it and C waited its round-robin turn. (A near player at every change: crowdNearMs 0.)
    const near = { ...o, nearest: 2, crowdNearMs: 0 };
    const players = (t: number) => [walker(0, 3 + (8 * t) / 1000, 8), walker(1, 5), { ...walker(2, 8), q: quantise(r, { x: 8 + (t % 100) / 1000, y: 70, z: 10, yaw: 0, pitch: 0 }) }];
    expect(from250(timesOf(new InterestLists(TICK, near), 2, players))).toEqual([250, 300, 350, 400, 450]);
  });

  it('a near player whose two last positions both came since the last frame: the earlier goes now, the later next tick', () => {
    const view = new InterestView();
    const at = (x: number) => quantise(r, { x, y: 70, z: 10, yaw: 0, pitch: 0 });
    const p = (x: number, prev?: number): Watched => ({ slot: 0, hex: 'p0', id: new Uint8Array(20), look: sampleLook('p0'), x, z: 10, q: at(x), ...(prev !== undefined ? { prev: at(prev) } : {}) });
    const holder = new Holder();
    const got = (t: number, w: Watched) => {
      const body = nextFrame(view, [w], 'me', { x: 0, z: 10 }, t, TICK, o);
      return body ? holder.read(body).map((e) => e.q.x) : [];
    };
    expect(got(0, p(5))).toEqual([at(5).x]);
    expect(got(50, p(5.5, 5))).toEqual([at(5.5).x]);
    // 6 and 6.5 both came within the next tick: 6 first, then 6.5.
    expect(got(100, p(6.5, 6))).toEqual([at(6).x]);
    expect(got(150, p(6.5, 6))).toEqual([at(6.5).x]);
    expect(got(200, p(6.5, 6))).toEqual([]);
  });
});
