// Touches to game intent, without a DOM (touch-controls.ts feeds it pointer events): a
// finger that lands on the left part of the screen is a move stick centred where it
// landed; anywhere else it looks around as it drags, digs when it lifts quickly without
// having moved (a tap) and builds when it stays put long enough (a long press, once, and
// then no dig). Buttons (jump, down, sprint, fly) are the DOM's; sprint is a toggle here because
// a phone has no second thumb free to hold it.
import type { MoveInput } from '../play/physics';

/** Share of the screen's width, from the left, where a landing finger becomes the stick. */
const STICK_ZONE = 0.4;
/** Stick travel (px) for a full-speed move. */
export const STICK_RADIUS_PX = 56;
/** Stick deflection (0..1) below which the player stands. */
const DEAD_ZONE = 0.18;
/** A finger that moved more than this many px is dragging, not tapping or pressing. */
const SLOP_PX = 10;
/** A finger lifted within this many ms, unmoved, is a tap (dig). */
export const TAP_MS = 300;
/** A finger held unmoved this long builds (and lifting it then does not dig). */
export const LONG_PRESS_MS = 450;
/** A drag turns like a mouse this many times as far (a thumb travels less than a mouse). */
export const LOOK_SCALE = 2.5;

export interface TouchActions {
  /** Turn by a drag of (dx, dy) px, already scaled to mouse pixels (player-settings lookDelta). */
  look(dx: number, dy: number): void;
  dig(): void;
  build(): void;
}

interface Finger {
  readonly role: 'stick' | 'look';
  readonly x0: number;
  readonly y0: number;
  readonly t0: number;
  x: number;
  y: number;
  moved: boolean;
  built: boolean;
}

export class TouchGestures {
  private readonly fingers = new Map<number, Finger>();
  private jumpHeld = false;
  private descendHeld = false;
  /** Sprint toggled on (the forward stick then runs). */
  sprint = false;

  constructor(private readonly actions: TouchActions) {}

  /** A finger `id` landed at (x, y) px on a screen `width` px wide, at `now` ms. */
  down(id: number, x: number, y: number, width: number, now: number): void {
    const role = x < width * STICK_ZONE && !this.stickFinger() ? 'stick' : 'look';
    this.fingers.set(id, { role, x0: x, y0: y, t0: now, x, y, moved: false, built: false });
  }

  move(id: number, x: number, y: number, now: number): void {
    const f = this.fingers.get(id);
    if (!f) return;
    if (!f.moved && Math.hypot(x - f.x0, y - f.y0) > SLOP_PX) f.moved = true;
    if (f.role === 'look' && f.moved) this.actions.look((x - f.x) * LOOK_SCALE, (y - f.y) * LOOK_SCALE);
    f.x = x;
    f.y = y;
    this.tick(now);
  }

  up(id: number, now: number): void {
    const f = this.fingers.get(id);
    if (!f) return;
    this.fingers.delete(id);
    if (f.role === 'look' && !f.moved && !f.built && now - f.t0 <= TAP_MS) this.actions.dig();
  }

  /** The finger went away without lifting (the browser took it): no tap. */
  cancel(id: number): void {
    this.fingers.delete(id);
  }

  /** Each frame: a look finger held still long enough builds, once. */
  tick(now: number): void {
    for (const f of this.fingers.values()) {
      if (f.role !== 'look' || f.moved || f.built || now - f.t0 < LONG_PRESS_MS) continue;
      f.built = true;
      this.actions.build();
    }
  }

  /** The jump button (up while flying). */
  setJump(held: boolean): void {
    this.jumpHeld = held;
  }

  /** The down button (flying only: there is no Shift on a phone). */
  setDescend(held: boolean): void {
    this.descendHeld = held;
  }

  /** Every finger let go (the page was hidden: their ends will never come). */
  clear(): void {
    this.fingers.clear();
    this.jumpHeld = false;
    this.descendHeld = false;
  }

  /** Where the stick's knob is, -1..1 each way (x right, y down), or null with no stick finger. */
  stick(): { x: number; y: number; x0: number; y0: number } | null {
    const f = this.stickFinger();
    if (!f) return null;
    let dx = (f.x - f.x0) / STICK_RADIUS_PX, dy = (f.y - f.y0) / STICK_RADIUS_PX;
    const len = Math.hypot(dx, dy);
    if (len > 1) {
      dx /= len;
      dy /= len;
    }
    return { x: dx, y: dy, x0: f.x0, y0: f.y0 };
  }

  input(): MoveInput {
    const s = this.stick();
    const live = s && Math.hypot(s.x, s.y) >= DEAD_ZONE;
    const forward = live ? -s.y : 0;
    return {
      forward,
      right: live ? s.x : 0,
      jump: this.jumpHeld,
      descend: this.descendHeld,
      sprint: this.sprint && forward > 0,
      flying: false,
    };
  }

  private stickFinger(): Finger | undefined {
    for (const f of this.fingers.values()) if (f.role === 'stick') return f;
    return undefined;
  }
}
