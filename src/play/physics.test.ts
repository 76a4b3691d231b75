import { describe, expect, it } from 'vitest';
import { MOTION_RULES } from '../host/motion-tracker';
import { FLY_SPEED, JUMP_SPEED, NO_INPUT, PLAYER_HALF_WIDTH, SPRINT_SPEED, TERMINAL_SPEED, boxCollides, newBody, stepBody, type SolidAt } from './physics';

const floorAt0: SolidAt = (_x, y) => y < 0;
const run = (secs: number, f: () => void) => { for (let t = 0; t < secs; t += 1 / 60) f(); };

describe('physics', () => {
  it('falls under gravity and lands on the floor', () => {
    const b = newBody(0.5, 10, 0.5);
    run(3, () => stepBody(b, NO_INPUT, 0, 1 / 60, floorAt0));
    expect(b.y).toBeCloseTo(0, 5);
    expect(b.onGround).toBe(true);
    expect(b.vy).toBe(0);
  });

  it('does not tunnel through a one-block floor at terminal speed', () => {
    const b = newBody(0.5, 200, 0.5);
    b.vy = -60;
    const thinFloor: SolidAt = (_x, y) => y === 50;
    run(5, () => stepBody(b, NO_INPUT, 0, 0.1, thinFloor));
    expect(b.y).toBeCloseTo(51, 5);
  });

  it('jumps about 1.3 blocks: over one block, not two', () => {
    const b = newBody(0.5, 0, 0.5);
    stepBody(b, NO_INPUT, 0, 1 / 60, floorAt0);
    let apex = 0;
    stepBody(b, { ...NO_INPUT, jump: true }, 0, 1 / 60, floorAt0);
    run(1, () => { stepBody(b, NO_INPUT, 0, 1 / 60, floorAt0); apex = Math.max(apex, b.y); });
    expect(apex).toBeGreaterThan(1.05);
    expect(apex).toBeLessThan(2);
  });

  it('walks forward (-z at yaw 0) and stops flush against a wall', () => {
    const wall: SolidAt = (_x, y, z) => y < 0 || (z === -5 && y < 3);
    const b = newBody(0.5, 0, 0.5);
    run(3, () => stepBody(b, { ...NO_INPUT, forward: 1 }, 0, 1 / 60, wall));
    expect(b.z).toBeCloseTo(-4 + PLAYER_HALF_WIDTH, 2);
    expect(b.x).toBeCloseTo(0.5, 5);
    expect(boxCollides(b.x, b.y, b.z, wall)).toBe(false);
  });

  it('flies without gravity', () => {
    const b = newBody(0.5, 10, 0.5);
    run(1, () => stepBody(b, { ...NO_INPUT, flying: true }, 0, 1 / 60, floorAt0));
    expect(b.y).toBeCloseTo(10, 5);
    run(1, () => stepBody(b, { ...NO_INPUT, flying: true, jump: true }, 0, 1 / 60, floorAt0));
    expect(b.y).toBeGreaterThan(14);
  });

  it('box collision sees blocks at negative coordinates', () => {
    const at: SolidAt = (x, y, z) => x === -1 && y === 0 && z === -1;
    expect(boxCollides(-0.5, 0, -0.5, at)).toBe(true);
    expect(boxCollides(0.5, 0, 0.5, at)).toBe(false);
  });
});

describe('the primary\'s motion check', () => {
  it('allows every speed the physics can produce', () => {
    expect(MOTION_RULES.maxSpeed).toBeGreaterThanOrEqual(Math.max(FLY_SPEED, SPRINT_SPEED, JUMP_SPEED) * 1.2);
    expect(MOTION_RULES.maxFall).toBeGreaterThanOrEqual(TERMINAL_SPEED * 1.1);
  });
});
