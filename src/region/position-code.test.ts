import { describe, expect, it } from 'vitest';
import { coarsen, decodePositions, dequantise, encodePositions, PositionCodeError, POS_SCALE, quantise, type QPose } from './position-code';

const r = { rx: -2, rz: 3 };
const none = () => undefined;

describe('position code', () => {
  it('quantises to 1/32 block around the region, yaw and pitch to a byte; level looks stay level', () => {
    const p = { x: -100.3, y: 71.25, z: 250.9, yaw: -2.5, pitch: 0 };
    const back = dequantise(r, quantise(r, p));
    for (const k of ['x', 'y', 'z'] as const) expect(Math.abs(back[k] - p[k])).toBeLessThanOrEqual(0.5 / POS_SCALE);
    expect(Math.abs(back.yaw - p.yaw)).toBeLessThan((Math.PI * 2) / 256);
    expect(back.pitch).toBe(0);
    expect(dequantise(r, quantise(r, { ...p, pitch: Math.PI / 2 })).pitch).toBeCloseTo(Math.PI / 2, 6);
  });

  it('codes a first sighting whole, a small move as a few bytes, an unchanged player as two', () => {
    const a: QPose = { x: 20000, y: 19000, z: 18000, yaw: 10, pitch: 127 };
    const first = encodePositions([{ slot: 5, q: a }], none);
    expect(first.length).toBe(1 + 1 + 6 + 2);
    expect(decodePositions(first, none)).toEqual([{ slot: 5, q: a }]);
    const walked = { ...a, x: a.x + 14, z: a.z - 9, yaw: 12 };
    const step = encodePositions([{ slot: 5, q: walked }], () => a);
    expect(step.length).toBe(5);
    expect(decodePositions(step, () => a)).toEqual([{ slot: 5, q: walked }]);
    expect(encodePositions([{ slot: 5, q: a }], () => a).length).toBe(2);
    // A long move goes absolute even with a base.
    const far = { ...a, x: a.x + 900 };
    expect(decodePositions(encodePositions([{ slot: 5, q: far }], () => a), () => a)).toEqual([{ slot: 5, q: far }]);
  });

  it('codes a step like the last as one byte for x and z, against the base and the prev the receiver holds', () => {
    const p: QPose = { x: 20000, y: 19000, z: 18000, yaw: 10, pitch: 127 };
    const b: QPose = { ...p, x: p.x + 14, z: p.z - 9 };
    const base = () => b, prev = () => p;
    // On as before, give or take a quarter block (-8..7 steps of 1/32 each way), yaw turned.
    for (const [dx, dz] of [[0, 0], [7, -8], [-8, 7], [3, 1]] as const) {
      const q = { ...b, x: b.x + 14 + dx, z: b.z - 9 + dz, yaw: 11 };
      const step = encodePositions([{ slot: 9, q }], base, prev);
      expect(step.length).toBe(3);
      expect(decodePositions(step, base, prev)).toEqual([{ slot: 9, q }]);
      // Without the prev it cannot be read (and without one it is not written).
      expect(() => decodePositions(step, base)).toThrow(PositionCodeError);
      expect(encodePositions([{ slot: 9, q }], base).length).toBe(5);
    }
    // Off the step by more, climbing, or past the gap a step carries: coded as before.
    for (const q of [{ ...b, x: b.x + 14 + 8 }, { ...b, x: b.x + 14, z: b.z - 9, y: b.y + 1 }]) {
      const bytes = encodePositions([{ slot: 9, q }], base, prev);
      expect(bytes[0]! & 0x80).toBe(0);
      expect(decodePositions(bytes, base, prev)).toEqual([{ slot: 9, q }]);
    }
    const q = { ...b, x: b.x + 14, z: b.z - 9 };
    expect(encodePositions([{ slot: 32, q }], base, prev)[0]! & 0x80).toBe(0);
    expect(encodePositions([{ slot: 31, q }], base, prev)).toEqual(new Uint8Array([0x80 | 31, 0]));
    // Standing still stays the two bytes of an unchanged player; a step off the range is refused.
    expect(encodePositions([{ slot: 9, q: b }], base, prev).length).toBe(2);
    expect(() => decodePositions(new Uint8Array([0x80, 0x77]), () => ({ ...b, x: 3 }), () => ({ ...b, x: 20 }))).toThrow(/range/);
    expect(() => decodePositions(new Uint8Array([0x80 | 0x20, 0]), base, prev)).toThrow(/truncated/);
  });

  it('codes a far player coarsely: to within a quarter block, in three bytes; the receiver holds what was coded', () => {
    const b: QPose = { x: 20000, y: 19000, z: 18000, yaw: 10, pitch: 127 };
    const q = { ...b, x: b.x + 100, z: b.z - 37, yaw: 40 };
    const c = coarsen(q, b);
    expect(Math.abs(c.x - q.x)).toBeLessThanOrEqual(POS_SCALE / 4);
    expect(Math.abs(c.z - q.z)).toBeLessThanOrEqual(POS_SCALE / 4);
    expect(c).toMatchObject({ y: b.y, yaw: 40, pitch: 127 });
    const bytes = encodePositions([{ slot: 40, q: c }], () => b);
    expect(bytes.length).toBe(3);
    expect(decodePositions(bytes, () => b)).toEqual([{ slot: 40, q: c }]);
    // Past 4 blocks, climbing, a new pitch, or no base: q as it is, coded exactly.
    for (const [far, base] of [[{ ...b, x: b.x + 300 }, b], [{ ...q, y: b.y + 32 }, b], [{ ...q, pitch: 0 }, b], [q, undefined]] as const) expect(coarsen(far, base)).toEqual(far);
    // A gap past 63 is coded as a plain entry.
    expect(decodePositions(encodePositions([{ slot: 64, q: c }], () => b), () => b)).toEqual([{ slot: 64, q: c }]);
  });

  it('codes ascending slots as gaps, up to the last slot', () => {
    const q: QPose = { x: 1, y: 2, z: 3, yaw: 4, pitch: 5 };
    const entries = [0, 1, 200, 40000, 65535].map((slot) => ({ slot, q }));
    expect(decodePositions(encodePositions(entries, none), none)).toEqual(entries);
    expect(() => encodePositions([{ slot: 3, q }, { slot: 3, q }], none)).toThrow(RangeError);
  });

  it('refuses what it cannot read: truncation, a delta or a left-out field without a base, a delta off the range, unknown bits', () => {
    const a: QPose = { x: 10, y: 2, z: 3, yaw: 4, pitch: 5 };
    const step = encodePositions([{ slot: 1, q: { ...a, x: 5 } }], () => a);
    expect(() => decodePositions(step, none)).toThrow(PositionCodeError);
    expect(() => decodePositions(step, () => ({ ...a, x: 0 }))).toThrow(/range/);
    const whole = encodePositions([{ slot: 1, q: a }], none);
    expect(() => decodePositions(whole.subarray(0, whole.length - 1), none)).toThrow(/truncated/);
    expect(() => decodePositions(new Uint8Array([0x40, 0]), () => a)).toThrow(/truncated/);
    expect(() => decodePositions(new Uint8Array([0x40, 0, 0]), none)).toThrow(/base/);
    expect(() => decodePositions(new Uint8Array([0xff, 0xff, 0xff, 0x01, 0]), () => a)).toThrow(PositionCodeError);
  });
});
