// First-person movement: an axis-aligned box (0.6 x 1.8 x 0.6) under gravity, moved one
// axis at a time and clamped against solid voxels. Sub-stepping keeps any one move under
// half a block so fast falls cannot tunnel through a floor.

import { EYE_HEIGHT, FLY_SPEED, PLAYER_HALF_WIDTH, PLAYER_HEIGHT, TERMINAL_SPEED } from '../world/player-body';

export { EYE_HEIGHT, FLY_SPEED, PLAYER_HALF_WIDTH, PLAYER_HEIGHT, TERMINAL_SPEED };
export const WALK_SPEED = 4.3;
export const SPRINT_SPEED = 6.5;
export const GRAVITY = 28;
export const JUMP_SPEED = 8.6; // apex ~1.3 blocks: clears one block, not two
const GROUND_ACCEL = 40;
const AIR_ACCEL = 12;
const MAX_SUBSTEP = 0.4;
const EPS = 1e-4;

export interface Body {
  /** Feet centre. */
  x: number;
  y: number;
  z: number;
  vx: number;
  vy: number;
  vz: number;
  onGround: boolean;
}

export interface MoveInput {
  forward: number; // -1..1
  right: number; // -1..1
  jump: boolean;
  /** Fly: up/down on jump/descend, no gravity. */
  flying: boolean;
  descend: boolean;
  sprint: boolean;
}

export const NO_INPUT: MoveInput = { forward: 0, right: 0, jump: false, flying: false, descend: false, sprint: false };

export type SolidAt = (x: number, y: number, z: number) => boolean;

export function newBody(x: number, y: number, z: number): Body {
  return { x, y, z, vx: 0, vy: 0, vz: 0, onGround: false };
}

/** Advances the body by dt seconds (clamped to 0.1 s so a stalled tab does not teleport). */
export function stepBody(body: Body, input: MoveInput, yaw: number, dt: number, solidAt: SolidAt): void {
  dt = Math.min(Math.max(dt, 0), 0.1);
  const speed = input.flying ? FLY_SPEED : input.sprint ? SPRINT_SPEED : WALK_SPEED;
  // Forward is -z at yaw 0 (three.js camera convention), right is +x.
  const fx = -Math.sin(yaw), fz = -Math.cos(yaw);
  const rx = Math.cos(yaw), rz = -Math.sin(yaw);
  let wx = fx * input.forward + rx * input.right;
  let wz = fz * input.forward + rz * input.right;
  const wl = Math.hypot(wx, wz);
  if (wl > 1) { wx /= wl; wz /= wl; }
  const accel = (input.flying || body.onGround ? GROUND_ACCEL : AIR_ACCEL) * dt;
  body.vx = approach(body.vx, wx * speed, accel * speed / WALK_SPEED);
  body.vz = approach(body.vz, wz * speed, accel * speed / WALK_SPEED);
  if (input.flying) {
    const wy = (input.jump ? 1 : 0) - (input.descend ? 1 : 0);
    body.vy = approach(body.vy, wy * speed, GROUND_ACCEL * dt * 2);
  } else {
    if (input.jump && body.onGround) body.vy = JUMP_SPEED;
    body.vy = Math.max(body.vy - GRAVITY * dt, -TERMINAL_SPEED);
  }
  const steps = Math.max(1, Math.ceil((Math.max(Math.abs(body.vx), Math.abs(body.vy), Math.abs(body.vz)) * dt) / MAX_SUBSTEP));
  const h = dt / steps;
  body.onGround = false;
  for (let i = 0; i < steps; i++) {
    moveAxis(body, 0, body.vx * h, solidAt);
    moveAxis(body, 2, body.vz * h, solidAt);
    moveAxis(body, 1, body.vy * h, solidAt);
  }
}

function approach(v: number, target: number, maxDelta: number): number {
  return v < target ? Math.min(v + maxDelta, target) : Math.max(v - maxDelta, target);
}

/** True when the player's box at feet (x, y, z) overlaps any solid voxel. */
export function boxCollides(x: number, y: number, z: number, solidAt: SolidAt): boolean {
  const x0 = Math.floor(x - PLAYER_HALF_WIDTH + EPS), x1 = Math.floor(x + PLAYER_HALF_WIDTH - EPS);
  const y0 = Math.floor(y + EPS), y1 = Math.floor(y + PLAYER_HEIGHT - EPS);
  const z0 = Math.floor(z - PLAYER_HALF_WIDTH + EPS), z1 = Math.floor(z + PLAYER_HALF_WIDTH - EPS);
  for (let by = y0; by <= y1; by++)
    for (let bz = z0; bz <= z1; bz++)
      for (let bx = x0; bx <= x1; bx++) if (solidAt(bx, by, bz)) return true;
  return false;
}

function moveAxis(body: Body, axis: 0 | 1 | 2, delta: number, solidAt: SolidAt): void {
  if (delta === 0) return;
  const pos = [body.x, body.y, body.z] as [number, number, number];
  pos[axis] += delta;
  if (!boxCollides(pos[0], pos[1], pos[2], solidAt)) {
    body.x = pos[0]; body.y = pos[1]; body.z = pos[2];
    return;
  }
  // Blocked: snap flush against the blocking voxel face and stop on this axis.
  if (axis === 1) {
    if (delta < 0) { body.y = Math.floor(body.y + delta) + 1; body.onGround = true; }
    else body.y = Math.ceil(body.y + PLAYER_HEIGHT + delta) - 1 - PLAYER_HEIGHT;
    if (boxCollides(body.x, body.y, body.z, solidAt)) body.y = pos[1] - delta; // could not snap: stay
    body.vy = 0;
  } else {
    const c = axis === 0 ? body.x : body.z;
    const snapped = delta > 0
      ? Math.floor(c + delta + PLAYER_HALF_WIDTH) - PLAYER_HALF_WIDTH - EPS
      : Math.floor(c + delta - PLAYER_HALF_WIDTH) + 1 + PLAYER_HALF_WIDTH + EPS;
    const ok = axis === 0 ? !boxCollides(snapped, body.y, body.z, solidAt) : !boxCollides(body.x, body.y, snapped, solidAt);
    if (ok) { if (axis === 0) body.x = snapped; else body.z = snapped; }
    if (axis === 0) body.vx = 0; else body.vz = 0;
  }
}
