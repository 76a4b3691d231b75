// One player in the world: their body, view direction, fly mode and selected block, and
// the per-frame step that moves them through the loaded terrain.
import { PLACEABLE, SOLID, WATER, AIR } from '../world/blocks';
import { chunkOf } from '../world/coords';
import { EYE_HEIGHT, newBody, stepBody, type Body, type MoveInput } from './physics';
import { PLAYER_REACH } from '../world/player-body';
import { lookVector, raycast, type RayHit } from './raycast';
import { UNLOADED, type WorldModel } from './world-model';

/** The crosshair's reach (world/player-body.ts). */
export const REACH = PLAYER_REACH;
const MAX_PITCH = Math.PI / 2 - 0.001;

export class PlayerSession {
  readonly body: Body;
  yaw = 0;
  pitch = 0;
  flying = false;
  /** Index into PLACEABLE (the hotbar). */
  selected = 0;

  constructor(private readonly world: WorldModel, x: number, y: number, z: number) {
    this.body = newBody(x, y, z);
  }

  get selectedBlock(): number {
    return PLACEABLE[this.selected] ?? PLACEABLE[0]!;
  }

  select(index: number): void {
    const n = PLACEABLE.length;
    this.selected = ((index % n) + n) % n;
  }

  look(dYaw: number, dPitch: number): void {
    this.yaw = (this.yaw + dYaw) % (Math.PI * 2);
    this.pitch = Math.max(-MAX_PITCH, Math.min(MAX_PITCH, this.pitch + dPitch));
  }

  get column(): { cx: number; cz: number } {
    return { cx: chunkOf(Math.floor(this.body.x)), cz: chunkOf(Math.floor(this.body.z)) };
  }

  /** Unloaded columns count as solid: the player waits at the edge rather than falling out of the world. */
  private solidAt = (x: number, y: number, z: number): boolean => {
    const id = this.world.blockAt(x, y, z);
    return id === UNLOADED || SOLID[id] === 1;
  };

  step(input: MoveInput, dt: number): void {
    // Hold still until the ground under the player exists.
    if (!this.world.has(this.column.cx, this.column.cz)) return;
    stepBody(this.body, { ...input, flying: this.flying }, this.yaw, dt, this.solidAt);
  }

  eye(): [number, number, number] {
    return [this.body.x, this.body.y + EYE_HEIGHT, this.body.z];
  }

  /** The block under the crosshair within reach (water and air are looked through). */
  target(): RayHit | null {
    const [ox, oy, oz] = this.eye();
    const [dx, dy, dz] = lookVector(this.yaw, this.pitch);
    return raycast((x, y, z) => this.world.blockAt(x, y, z), (id) => id !== AIR && id !== WATER && id !== UNLOADED, ox, oy, oz, dx, dy, dz, REACH);
  }

  teleport(x: number, y: number, z: number): void {
    Object.assign(this.body, { x, y, z, vx: 0, vy: 0, vz: 0, onGround: false });
  }

  /** Puts the player on the highest solid block of their column (spawn, or stuck in terrain). */
  standOnSurface(): boolean {
    const x = Math.floor(this.body.x), z = Math.floor(this.body.z);
    if (!this.world.has(chunkOf(x), chunkOf(z))) return false;
    for (let y = 254; y >= 0; y--) {
      const id = this.world.blockAt(x, y, z);
      if (SOLID[id] || id === WATER) {
        this.teleport(this.body.x, y + 1, this.body.z);
        return true;
      }
    }
    return false;
  }
}
