import { describe, expect, it } from 'vitest';
import { idToHex } from '../core/node-id';
import { encodePositions, quantise } from './position-code';
import type { SubscriptionMessageOf } from './subscription-messages';
import { sampleLook } from '../testing/sample-look';
import { ASK_AGAIN_MS, PositionStreams, REORDER_MS } from './position-streams';

const r = { rx: 0, rz: 0 };
const id = (n: number) => new Uint8Array(20).fill(n);
const at = (x: number) => quantise(r, { x, y: 70, z: 10, yaw: 0, pitch: 0 });
type Frame = SubscriptionMessageOf<'POSITIONS'>;
const frame = (n: number, b: Uint8Array, more: Partial<Frame> = {}): Frame => ({ t: 'POSITIONS', ...r, e: 3, n, b, ...more });
const ann = () => frame(0, encodePositions([{ slot: 0, q: at(5) }], () => undefined), { roster: [{ s: 0, id: id(1), l: sampleLook('ann') }] });
const step = (n: number, from: number, to: number) => frame(n, encodePositions([{ slot: 0, q: at(to) }], () => at(from)));

describe('position streams (the player side of POSITIONS)', () => {
  it('reads a stream from n = 0: roster, then deltas against what the host sent; gone players leave; ourselves never come out', () => {
    const s = new PositionStreams(r, idToHex(id(9)));
    const first = s.take('h', frame(0, encodePositions([{ slot: 0, q: at(5) }, { slot: 1, q: at(6) }], () => undefined), { roster: [{ s: 0, id: id(1), l: sampleLook('ann') }, { s: 1, id: id(9), l: sampleLook('me') }] }), 0);
    expect(first).toMatchObject({ lost: false, gone: [] });
    expect(first.players.map((p) => [p.look?.n, p.x])).toEqual([['ann', 5]]);
    const next = s.take('h', frame(1, encodePositions([{ slot: 0, q: at(5.5) }], () => at(5)), { gone: [1] }), 50);
    expect(next.players.map((p) => p.x)).toEqual([5.5]);
    expect(next.gone).toEqual([idToHex(id(9))]);
  });

  it('holds the position before the last for each slot: steps like the last read as the host coded them; a roster starts a slot afresh', () => {
    const s = new PositionStreams(r, 'self');
    s.take('h', ann(), 0);
    expect(s.take('h', step(1, 5, 5.5), 50).players.map((p) => p.x)).toEqual([5.5]);
    // On by the same half block (and a 32nd): one byte for x and z, read against 5.5 and 5.
    const on = encodePositions([{ slot: 0, q: at(6 + 1 / 32) }], () => at(5.5), () => at(5));
    expect(on.length).toBe(2);
    expect(s.take('h', frame(2, on), 100).players.map((p) => p.x)).toEqual([6 + 1 / 32]);
    expect(s.holding('h').get(0)).toMatchObject({ q: at(6 + 1 / 32), prev: at(5.5) });
    // Introduced again (a new player in the slot): no prev, so a step cannot be read.
    s.take('h', frame(3, encodePositions([{ slot: 0, q: at(9) }], () => undefined), { roster: [{ s: 0, id: id(2), l: sampleLook('bob') }] }), 150);
    expect(s.holding('h').get(0)?.prev).toBeUndefined();
    expect(s.take('h', frame(4, encodePositions([{ slot: 0, q: at(9.5) }], () => at(9), () => at(8.5))), 200).lost).toBe(true);
  });

  it('a frame that comes before the one it follows waits for it; copies of applied frames are ignored', () => {
    const s = new PositionStreams(r, 'self');
    expect(s.take('h', step(1, 5, 6), 0)).toEqual({ players: [], gone: [], lost: false }); // before n = 0
    expect(s.take('h', ann(), 10).players.map((p) => p.x)).toEqual([5, 6]);
    expect(s.take('h', step(3, 7, 8), 60)).toEqual({ players: [], gone: [], lost: false });
    expect(s.take('h', step(2, 6, 7), 70).players.map((p) => p.x)).toEqual([7, 8]);
    expect(s.take('h', step(2, 6, 7), 80)).toEqual({ players: [], gone: [], lost: false });
    expect(s.unreadable).toBe(0);
  });

  it('a frame that never comes, an unknown slot or unreadable bytes lose the stream: its host is asked (not too often) to start again', () => {
    const s = new PositionStreams(r, 'self');
    s.take('h', ann(), 0);
    expect(s.take('h', step(2, 6, 7), 10).lost).toBe(false);
    expect(s.take('h', step(3, 7, 8), 10 + REORDER_MS + 1)).toMatchObject({ lost: true, players: [] });
    // Forgotten: the next frames wait for the host's fresh start; asked again only after ASK_AGAIN_MS.
    const lostAt = 10 + REORDER_MS + 1;
    expect(s.take('h', step(4, 8, 9), lostAt + 10).lost).toBe(false);
    expect(s.take('h', step(5, 9, 10), lostAt + 10 + REORDER_MS + 1).lost).toBe(false);
    expect(s.take('h', step(6, 10, 11), lostAt + ASK_AGAIN_MS - 10).lost).toBe(false);
    expect(s.take('h', step(7, 11, 12), lostAt + ASK_AGAIN_MS).lost).toBe(true);
    // A slot never introduced.
    expect(s.take('k', frame(0, encodePositions([{ slot: 7, q: at(1) }], () => undefined)), 0).lost).toBe(true);
    // The fresh start reads normally.
    expect(s.take('h', { ...ann(), n: 8, f: true }, 2000).players.map((p) => p.x)).toEqual([5]);
    expect(s.unreadable).toBe(2);
    expect(s.lostWhy).toEqual({ gap: 1, overflow: 0, unreadable: 1 });
  });

  it('after a loss, frames from before the fresh start (still on their way) are dropped, those after it read: the stream is not lost again', () => {
    const s = new PositionStreams(r, 'self');
    let t = 0;
    s.take('h', ann(), t);
    for (let n = 1; n <= 5; n++) s.take('h', step(n, n + 4, n + 5), (t += 50));
    // n = 6 never comes: 7, 8, ... wait, and the stream is lost.
    let n = 7;
    while (!s.take('h', step(n, n + 4, n + 5), (t += 50)).lost) n++;
    // The host hears of it a trip later: three more of its old frames come, one of them after the fresh start.
    for (let k = 1; k <= 2; k++) expect(s.take('h', step(n + k, n + k + 4, n + k + 5), (t += 50)).lost).toBe(false);
    const start = n + 4;
    // Its next frame overtook the fresh start.
    expect(s.take('h', step(start + 1, 100, 101), (t += 10)).players).toEqual([]);
    expect(s.take('h', { ...ann(), b: encodePositions([{ slot: 0, q: at(100) }], () => undefined), n: start, f: true }, (t += 10)).players.map((p) => p.x)).toEqual([100, 101]);
    expect(s.take('h', step(n + 3, n + 7, n + 8), (t += 10)).players).toEqual([]);
    let got = 0;
    for (let k = 2; k <= 60; k++) {
      const o = s.take('h', step(start + k, 99 + k, 100 + k), (t += 50));
      expect(o.lost).toBe(false);
      got += o.players.length;
    }
    expect(got).toBe(59);
    expect(s.lostWhy).toEqual({ gap: 1, overflow: 0, unreadable: 0 });
    // A fresh mark older than what was read is an older start's: dropped.
    expect(s.take('h', { ...ann(), n: start, f: true }, t + 50).players).toEqual([]);
    expect(s.holding('h').get(0)?.q).toEqual(at(160));
  });

  it('a frame that fails part-way gives nothing of itself, but what came before it stands', () => {
    const s = new PositionStreams(r, 'self');
    s.take('h', ann(), 0);
    const good = encodePositions([{ slot: 0, q: at(6) }], () => at(5));
    const bad = new Uint8Array([...good, 0x05, 0x80]); // slot 6 (never introduced), a delta
    s.take('h', frame(2, bad, { gone: [0] }), 10);
    expect(s.take('h', frame(1, good), 20)).toEqual({ lost: true, gone: [], players: [expect.objectContaining({ x: 6 })] });
  });
});
