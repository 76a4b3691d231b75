// Phones and tablets: the on-screen controls and the page layout for a small touch screen.
// A move stick where the left thumb lands, drag to look, tap to dig, long-press to build
// (touch-gestures.ts decides which), buttons for jump, down (flying), sprint and fly, the
// hotbar tappable, and a pause button in place of Esc. No pointer lock: a touch screen
// has no pointer to lock, so "playing" is simply the pause menu closed. Shown from the
// start on a touch-first device and on the first touch anywhere else (a laptop's screen).
import type { MoveInput } from '../play/physics';
import { addStyleOnce } from './page-style';
import { TouchGestures } from './touch-gestures';

export interface TouchControlActions {
  /** A drag, in mouse pixels (the caller applies sensitivity and invert Y). */
  look(dx: number, dy: number): void;
  dig(): void;
  build(): void;
  toggleFly(): void;
  selectSlot(index: number): void;
  /** Playing started (true: the menu closes) or paused (false: the menu opens). */
  playingChanged(playing: boolean): void;
}

/** A touch-first device: touch points and a coarse primary pointer (phones, tablets). */
export function touchFirst(): boolean {
  return navigator.maxTouchPoints > 0 && (globalThis.matchMedia?.('(pointer: coarse)').matches ?? false);
}

const CSS = `
body.touch #crosshair { width: 22px; height: 22px; margin: -11px 0 0 -11px; }
#touch { position: fixed; inset: 0; pointer-events: none; z-index: 3; user-select: none; -webkit-user-select: none; }
#touch[hidden] { display: none; }
#touch .stick { position: absolute; width: 112px; height: 112px; margin: -56px 0 0 -56px; border-radius: 50%;
  background: rgba(255,255,255,.12); border: 2px solid rgba(255,255,255,.35); }
#touch .stick[hidden] { display: none; }
#touch .knob { position: absolute; left: 32px; top: 32px; width: 48px; height: 48px; border-radius: 50%; background: rgba(255,255,255,.45); }
#touch .buttons { position: absolute; right: 14px; bottom: 84px; display: grid; grid-template-columns: repeat(2, 60px); gap: 10px; pointer-events: auto; }
#touch button { width: 60px; height: 60px; border-radius: 50%; border: 2px solid rgba(255,255,255,.4); background: rgba(0,0,0,.35);
  color: #fff; font: 600 13px system-ui, sans-serif; touch-action: none; padding: 0; }
#touch button[aria-pressed="true"] { background: rgba(255,255,255,.45); color: #000; }
#touch .pause { position: absolute; right: 10px; top: 10px; width: 44px; height: 44px; pointer-events: auto; font-size: 18px; }
body.touch #game canvas { touch-action: none; }
body.touch .hotbar { pointer-events: auto; }
@media (max-width: 640px), (max-height: 480px) {
  body.touch .hud-info { font-size: 9px; padding: 3px 5px; }
  body.touch .hotbar { bottom: 6px; gap: 2px; padding: 2px; }
  body.touch .slot { width: 32px; height: 32px; }
  body.touch .slot-name { font-size: 7px; }
  body.touch #menu .card { padding: 12px 16px; max-width: 92vw; max-height: 86vh; overflow: auto; font-size: 13px; box-sizing: border-box; }
  #touch .buttons { grid-template-columns: repeat(2, 52px); gap: 8px; bottom: 52px; }
  #touch button { width: 52px; height: 52px; }
}
`;

export class TouchControls {
  readonly gestures: TouchGestures;
  /** Touch controls are shown (a touch-first device, or a touch was seen). */
  enabled = false;
  /** The menu is closed and touches play. */
  playing = false;
  /** performance.now() of the last touch: mouse events a browser makes up from a touch are ignored for a while. */
  lastTouchMs = -Infinity;
  private readonly root: HTMLElement;
  private readonly stickEl: HTMLElement;
  private readonly knob: HTMLElement;
  private readonly cleanup: (() => void)[] = [];

  constructor(private readonly canvas: HTMLElement, private readonly actions: TouchControlActions) {
    addStyleOnce('touch-controls-style', CSS);
    this.gestures = new TouchGestures({ look: actions.look, dig: actions.dig, build: actions.build });
    const root = (this.root = document.createElement('div'));
    root.id = 'touch';
    root.hidden = true;
    this.stickEl = div(root, 'stick');
    this.stickEl.hidden = true;
    this.knob = div(this.stickEl, 'knob');
    const buttons = div(root, 'buttons');
    this.holdButton(buttons, 'Jump', 'jump', (held) => this.gestures.setJump(held));
    this.holdButton(buttons, 'Down', 'down', (held) => this.gestures.setDescend(held));
    this.toggleButton(buttons, 'Run', 'sprint', (on) => { this.gestures.sprint = on; });
    this.toggleButton(buttons, 'Fly', 'fly', () => actions.toggleFly());
    const pause = button(root, '☰', 'pause');
    pause.setAttribute('aria-label', 'pause');
    // On the click, not the touch's start: the menu it opens would otherwise take the
    // click the same tap makes, and play again at once.
    this.listen(pause, 'click', () => this.pause());
    document.body.append(root);

    this.listen(canvas, 'pointerdown', (e) => this.onPointer(e as PointerEvent));
    this.listen(canvas, 'pointermove', (e) => this.onPointer(e as PointerEvent));
    this.listen(canvas, 'pointerup', (e) => this.onPointer(e as PointerEvent));
    this.listen(canvas, 'pointercancel', (e) => this.onPointer(e as PointerEvent));
    // The first touch anywhere (the menu included) turns touch controls on.
    this.listen(window, 'pointerdown', (e) => { if ((e as PointerEvent).pointerType === 'touch') this.enable(); }, { capture: true });
    this.listen(document, 'visibilitychange', () => { if (document.hidden) this.gestures.clear(); });
    this.listen(document.querySelector('.hotbar') ?? document.body, 'pointerdown', (e) => {
      const slot = (e.target as HTMLElement).closest?.('.slot');
      if (!slot?.parentElement || (e as PointerEvent).pointerType !== 'touch') return;
      e.preventDefault();
      this.actions.selectSlot([...slot.parentElement.children].indexOf(slot));
    });
    if (touchFirst()) this.enable();
  }

  enable(): void {
    if (this.enabled) return;
    this.enabled = true;
    document.body.classList.add('touch');
    const hint = document.querySelector('#menu .card > div');
    if (hint?.textContent === 'Click to play') hint.textContent = 'Tap to play';
    this.root.hidden = !this.playing;
  }

  /** The menu was tapped: play. */
  start(): void {
    this.enable();
    this.playing = true;
    this.root.hidden = false;
    this.actions.playingChanged(true);
  }

  pause(): void {
    this.playing = false;
    this.gestures.clear();
    this.root.hidden = true;
    this.stickEl.hidden = true;
    this.actions.playingChanged(false);
  }

  /** The move the touches ask for (each frame: long presses are timed here too). */
  moveInput(now = performance.now()): MoveInput {
    this.gestures.tick(now);
    const s = this.gestures.stick();
    this.stickEl.hidden = !s;
    if (s) {
      this.stickEl.style.left = `${s.x0}px`;
      this.stickEl.style.top = `${s.y0}px`;
      this.knob.style.transform = `translate(${s.x * 32}px, ${s.y * 32}px)`;
    }
    return this.gestures.input();
  }

  private onPointer(e: PointerEvent): void {
    if (e.pointerType !== 'touch') return;
    this.lastTouchMs = performance.now();
    // No mouse events made up from this touch, no scrolling or zooming of the page.
    e.preventDefault();
    if (!this.playing) return;
    const rect = this.canvas.getBoundingClientRect();
    const x = e.clientX - rect.left, y = e.clientY - rect.top;
    // The frame's clock (moveInput times long presses by it), not the event's own stamp.
    const now = performance.now();
    if (e.type === 'pointerdown') this.gestures.down(e.pointerId, x, y, rect.width, now);
    else if (e.type === 'pointermove') this.gestures.move(e.pointerId, x, y, now);
    else if (e.type === 'pointerup') this.gestures.up(e.pointerId, now);
    else this.gestures.cancel(e.pointerId);
  }

  private holdButton(parent: HTMLElement, label: string, cls: string, set: (held: boolean) => void): void {
    const b = button(parent, label, cls);
    this.listen(b, 'pointerdown', (e) => { e.preventDefault(); set(true); });
    for (const type of ['pointerup', 'pointercancel', 'pointerleave']) this.listen(b, type, () => set(false));
  }

  private toggleButton(parent: HTMLElement, label: string, cls: string, set: (on: boolean) => void): void {
    const b = button(parent, label, cls);
    b.setAttribute('aria-pressed', 'false');
    this.listen(b, 'pointerdown', (e) => {
      e.preventDefault();
      const on = b.getAttribute('aria-pressed') !== 'true';
      b.setAttribute('aria-pressed', String(on));
      set(on);
    });
  }

  private listen(t: EventTarget, type: string, fn: (e: Event) => void, opts: AddEventListenerOptions = {}): void {
    t.addEventListener(type, fn, { passive: false, ...opts });
    this.cleanup.push(() => t.removeEventListener(type, fn, opts));
  }

  dispose(): void {
    for (const c of this.cleanup) c();
    this.root.remove();
  }
}

function div(parent: HTMLElement, cls: string): HTMLElement {
  const d = document.createElement('div');
  d.className = cls;
  parent.append(d);
  return d;
}

function button(parent: HTMLElement, label: string, cls: string): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = cls;
  b.textContent = label;
  parent.append(b);
  return b;
}
