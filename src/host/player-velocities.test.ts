import { describe, expect, it } from 'vitest';
import { quantise } from '../region/position-code';
import { distanceAfter, PlayerVelocities, REPORT_MS, STILL_MS } from './player-velocities';

const r = { rx: 0, rz: 0 };
const at = (x: number, z: number) => quantise(r, { x, y: 70, z, yaw: 0, pitch: 0 });
/** A step at 5 blocks a second, one report's worth. */
const STEP = (5 * REPORT_MS) / 1000;

describe('PlayerVelocities', () => {
  it("is a player's last step over REPORT_MS, whenever the host's tick saw it", () => {
    const v = new PlayerVelocities();
    // Walking east at 5 blocks a second, then (one step) north: the velocity turns at once.
    v.update([{ hex: 'a', q: at(10 + STEP, 5), prev: at(10, 5) }], 0);
    expect(v.of('a')!.vx).toBeCloseTo(5, 9);
    expect(v.of('a')!.vz).toBeCloseTo(0, 5);
    // Next report 150 ms of host time later (jitter, two ticks): still a step of REPORT_MS.
    v.update([{ hex: 'a', q: at(10 + STEP, 5 + STEP), prev: at(10 + STEP, 5) }], 150);
    expect(v.of('a')!.vx).toBeCloseTo(0, 5);
    expect(v.of('a')!.vz).toBeCloseTo(5, 9);
  });

  it('a player whose position stays the same for STILL_MS stands still; a teleport is capped; one gone is forgotten', () => {
    const v = new PlayerVelocities();
    v.update([{ hex: 'a', q: at(10 + STEP, 5), prev: at(10, 5) }, { hex: 'b', q: at(400, 5), prev: at(10, 5) }], 0);
    expect(Math.hypot(v.of('b')!.vx, v.of('b')!.vz)).toBeCloseTo(20, 5);
    v.update([{ hex: 'a', q: at(10 + STEP, 5), prev: at(10, 5) }], STILL_MS - 50);
    expect(v.of('a')!.vx).toBeCloseTo(5, 9);
    expect(v.of('b')).toBeUndefined();
    v.update([{ hex: 'a', q: at(10 + STEP, 5), prev: at(10, 5) }], STILL_MS);
    expect(v.of('a')).toEqual({ vx: 0, vz: 0 });
    // A first report without one before: standing, until it steps.
    v.update([{ hex: 'c', q: at(1, 1) }], 0);
    expect(v.of('c')).toEqual({ vx: 0, vz: 0 });
  });

  it('distanceAfter: where a player will be, as it walks', () => {
    // 10 blocks east, coming back at 8 a second: 2 blocks off in a second, 6 past it in two.
    expect(distanceAfter(10, 0, -8, 0, 1)).toBeCloseTo(2, 9);
    expect(distanceAfter(10, 0, -8, 0, 2)).toBeCloseTo(6, 9);
    expect(distanceAfter(3, 4, 0, 0, 1)).toBeCloseTo(5, 9);
  });
});
