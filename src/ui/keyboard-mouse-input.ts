// Keyboard and mouse to game intent: held keys become a MoveInput each frame; clicks,
// the wheel and number keys become actions. Pointer lock gives mouse look; where the
// browser refuses it, clicks still act at the crosshair so the game stays playable.
// Which held keys make which move is move-keys.ts, which key is which action the player's
// bindings (key-bindings.ts); how the mouse turns is player-settings.ts.
// On a touch screen (touch-controls.ts, attached with attachTouch) there is no lock: the
// game plays while its pause menu is closed, and the touches' move joins the keys'.
import type { MoveInput } from '../play/physics';
import type { TouchControls } from './touch-controls';
import { MoveKeys } from './move-keys';
import { actionOf, type KeyAction } from './key-bindings';
import { lookDelta, SETTINGS_DEFAULTS, type PlayerSettings } from './player-settings';

export interface InputActions {
  look(dYaw: number, dPitch: number): void;
  breakBlock(): void;
  placeBlock(): void;
  selectSlot(index: number): void;
  scrollSlot(delta: number): void;
  toggleFly(): void;
  changeRenderDistance(delta: number): void;
  lockChanged(locked: boolean): void;
  /** The browser refused the pointer lock a click asked for: `reason` is its words ('' when it gave none). */
  lockRefused?(reason: string): void;
  /** Copy an invite link to this world. */
  invite(): void;
  /** Q: drop the item selected in the inventory bar; E: select the next held item. */
  dropItem?(): void;
  nextItem?(): void;
  /** T or Enter: opens the chat field; false when there is no chat (no network). */
  openChat?(): boolean;
  /** Tab held (true) or let go (false): the list of who is here shows while it is held. */
  holdWho?(held: boolean): void;
  /** 1-9 pressed while Tab is held: a direct message to that row's player (0-based); false when there is none. */
  writeTo?(row: number): boolean;
  /** P: the identity export / import panel. */
  identity?(): void;
  /** O: fullscreen on or off. */
  toggleFullscreen?(): void;
}

/** Keys whose browser default (scrolling the page) would fight the game while they move the player. */
const MOVE_ACTIONS: readonly KeyAction[] = ['forward', 'back', 'left', 'right', 'jump'];

export class KeyboardMouseInput {
  private readonly keys = new MoveKeys();
  private current: PlayerSettings = SETTINGS_DEFAULTS;
  private lockRefused = false;
  /** The browser's requestPointerLock returns a promise, whose refusal says why: its error event (which follows) then adds nothing. */
  private lockPromises = false;
  /** The who key is held: 1-9 pick a row of the list, not a hotbar slot. */
  private whoHeld = false;
  private touch: TouchControls | null = null;
  private readonly cleanup: (() => void)[] = [];

  constructor(private readonly target: HTMLElement, private readonly actions: InputActions) {
    this.listen(window, 'keydown', (e) => this.onKey(e as KeyboardEvent, true));
    this.listen(window, 'keyup', (e) => this.onKey(e as KeyboardEvent, false));
    this.listen(window, 'blur', () => {
      this.keys.clear();
      // The Tab key-up goes elsewhere once the window lost focus.
      this.whoHeld = false;
      this.actions.holdWho?.(false);
    });
    this.listen(target, 'mousedown', (e) => this.onMouseDown(e as MouseEvent));
    this.listen(target, 'contextmenu', (e) => e.preventDefault());
    this.listen(document, 'mousemove', (e) => {
      const m = e as MouseEvent;
      if (this.locked) this.actions.look(...lookDelta(m.movementX, m.movementY, this.current));
    });
    this.listen(target, 'wheel', (e) => {
      e.preventDefault();
      this.actions.scrollSlot(Math.sign((e as WheelEvent).deltaY));
    }, { passive: false });
    this.listen(document, 'pointerlockchange', () => this.actions.lockChanged(this.locked));
    this.listen(document, 'pointerlockerror', () => { if (!this.lockPromises) this.refused(''); });
  }

  /** Sensitivity, invert Y and key bindings (the settings panel replaces them, live). */
  get settings(): PlayerSettings {
    return this.current;
  }

  set settings(s: PlayerSettings) {
    if (s.keys !== this.current.keys) this.keys.setBindings(s.keys);
    this.current = s;
  }

  get locked(): boolean {
    return document.pointerLockElement === this.target;
  }

  /** True when clicks act on the world: with pointer lock, where the browser refuses it, or playing by touch. */
  get active(): boolean {
    return this.locked || this.lockRefused || (this.touch?.playing ?? false);
  }

  attachTouch(touch: TouchControls): void {
    this.touch = touch;
  }

  /**
   * Starts playing: the pointer locked, or on a touch screen just the menu closed. Call it
   * first thing in the click's handler: Chromium refuses a lock asked for more than 5 s after
   * the click (its user activation has expired), and work before it in the same handler
   * (an AudioContext whose audio device is slow to open took 2 s) counts against that.
   */
  requestLock(): void {
    if (this.touch?.enabled) {
      this.touch.start();
      return;
    }
    const request = this.target.requestPointerLock() as unknown as Promise<void> | undefined;
    if (typeof request?.then !== 'function') return;
    this.lockPromises = true;
    request.catch((e: Error) => this.refused(e?.message ?? ''));
  }

  private refused(reason: string): void {
    this.lockRefused = true;
    this.actions.lockRefused?.(reason);
  }

  moveInput(): MoveInput {
    const k = this.keys.input();
    if (!this.touch?.playing) return k;
    const t = this.touch.moveInput();
    const clamp = (v: number) => Math.max(-1, Math.min(1, v));
    return {
      forward: clamp(k.forward + t.forward),
      right: clamp(k.right + t.right),
      jump: k.jump || t.jump,
      descend: k.descend || t.descend,
      sprint: k.sprint || t.sprint,
      flying: false,
    };
  }

  private onKey(e: KeyboardEvent, down: boolean): void {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
    // With the keyboard locked (fullscreen, fullscreen.ts) Esc comes to the page instead of
    // freeing the mouse: it still frees it, so the pause menu stays one key away.
    if (down && e.code === 'Escape' && this.locked) document.exitPointerLock();
    const action = actionOf(this.current.keys, e.code);
    if (action === 'who') {
      // While playing the who key (Tab) shows who is here and must not move the focus out
      // of the game (to the page's buttons); in the pause menu it keeps its usual meaning.
      if (down && this.active) {
        e.preventDefault();
        this.whoHeld = true;
        this.actions.holdWho?.(true);
      } else if (!down) {
        this.whoHeld = false;
        this.actions.holdWho?.(false);
      }
      return;
    }
    const digit = /^Digit([1-9])$/.exec(e.code);
    if (down && digit && this.whoHeld && !e.repeat && this.actions.writeTo?.(Number(digit[1]) - 1)) {
      // The chat field takes the keys from here, as when it opens by its own key.
      e.preventDefault();
      this.whoHeld = false;
      this.actions.holdWho?.(false);
      this.keys.clear();
      return;
    }
    if (down && action === 'chat' && !e.repeat && this.actions.openChat?.()) {
      // The field takes the keys from here: the letter must not land in it, and keys held
      // now would never see their key-up here (it goes to the field), so they are let go.
      e.preventDefault();
      this.keys.clear();
      return;
    }
    if (down) {
      if (!this.keys.isHeld(e.code)) this.onPress(e.code, action);
      if (this.keys.press(e.code, performance.now()) === 'toggle-fly') this.actions.toggleFly();
    } else {
      this.keys.release(e.code);
    }
    if (action && MOVE_ACTIONS.includes(action)) e.preventDefault();
  }

  private onPress(code: string, action: KeyAction | undefined): void {
    const digit = /^Digit([1-9])$/.exec(code);
    if (digit) return this.actions.selectSlot(Number(digit[1]) - 1);
    const a = this.actions;
    switch (action) {
      case 'fly': return a.toggleFly();
      case 'invite': return a.invite();
      case 'identity': return a.identity?.();
      case 'fullscreen': return a.toggleFullscreen?.();
      case 'dropItem': return a.dropItem?.();
      case 'nextItem': return a.nextItem?.();
      case 'renderMore': return a.changeRenderDistance(1);
      case 'renderLess': return a.changeRenderDistance(-1);
      default: return undefined;
    }
  }

  private onMouseDown(e: MouseEvent): void {
    // A browser makes up mouse events after a touch; the touch already acted.
    if (this.touch && performance.now() - this.touch.lastTouchMs < 1000) return;
    if (!this.active) {
      this.requestLock();
      return;
    }
    if (e.button === 0) this.actions.breakBlock();
    else if (e.button === 2) this.actions.placeBlock();
  }

  private listen(t: EventTarget, type: string, fn: (e: Event) => void, opts?: AddEventListenerOptions): void {
    t.addEventListener(type, fn, opts);
    this.cleanup.push(() => t.removeEventListener(type, fn, opts));
  }

  dispose(): void {
    for (const c of this.cleanup) c();
  }
}
