// Held keys to a MoveInput, without a DOM (keyboard-mouse-input.ts feeds it key codes).
// Sprint never needs Ctrl: Ctrl+W closes the tab in every desktop browser and a page cannot
// stop it outside fullscreen with keyboard lock, so a player sprinting forward with Ctrl
// lost the game. Sprint is what players of the games this imitates expect instead: a
// double tap of forward (held until forward is let go), or Shift while walking. While
// flying Shift descends, and flight has a speed of its own (physics.ts), so the two uses of
// Shift never meet. Which keys those are is the player's choice (key-bindings.ts); the
// defaults are W A S D and the arrows, Space and Shift.
import type { MoveInput } from '../play/physics';
import { DEFAULT_KEY_BINDINGS, type KeyBindings } from './key-bindings';

/** A second press of the same key within this many ms is a double tap. */
const DOUBLE_TAP_MS = 300;

/** What a key press does beyond being held. */
export type KeyPressAction = 'toggle-fly' | undefined;

export class MoveKeys {
  private readonly held = new Set<string>();
  /** When each double-tap key was last pressed (ms). */
  private readonly lastPress = new Map<string, number>();
  /** Set by a double tap of forward; ends when no forward key is held. */
  private sprintLatched = false;

  constructor(private bindings: KeyBindings = DEFAULT_KEY_BINDINGS) {}

  /** New bindings apply at once; keys held now are let go (their key-ups may mean nothing any more). */
  setBindings(bindings: KeyBindings): void {
    this.bindings = bindings;
    this.clear();
  }

  /** `code` (KeyboardEvent.code) went down at `now` ms; a key already held (auto-repeat) is not a press. */
  press(code: string, now: number): KeyPressAction {
    if (this.held.has(code)) return undefined;
    this.held.add(code);
    const double = now - (this.lastPress.get(code) ?? -Infinity) < DOUBLE_TAP_MS;
    this.lastPress.set(code, now);
    if (this.bindings.forward.includes(code) && double) this.sprintLatched = true;
    // Double-tap jump toggles flight, as in the game this imitates.
    if (this.bindings.jump.includes(code) && double) {
      this.lastPress.delete(code);
      return 'toggle-fly';
    }
    return undefined;
  }

  release(code: string): void {
    this.held.delete(code);
    if (!this.any(this.bindings.forward)) this.sprintLatched = false;
  }

  /** Every key let go (the window lost focus: its key-ups will never come). */
  clear(): void {
    this.held.clear();
    this.sprintLatched = false;
  }

  isHeld(code: string): boolean {
    return this.held.has(code);
  }

  /** The move the held keys ask for (`flying` is the session's to fill in). */
  input(): MoveInput {
    const b = this.bindings;
    const forward = (this.any(b.forward) ? 1 : 0) - (this.any(b.back) ? 1 : 0);
    const sprintKey = this.any(b.sprint);
    return {
      forward,
      right: (this.any(b.right) ? 1 : 0) - (this.any(b.left) ? 1 : 0),
      jump: this.any(b.jump),
      descend: sprintKey,
      // Only forward: nobody sprints backwards or sideways in the games this imitates.
      sprint: forward > 0 && (sprintKey || this.sprintLatched),
      flying: false,
    };
  }

  private any(codes: readonly string[]): boolean {
    return codes.some((c) => this.held.has(c));
  }
}
