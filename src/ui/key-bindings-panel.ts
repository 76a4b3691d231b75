// The "Keys" part of the settings: one row per action with its two keys as buttons. A click
// on a key waits for the next key press, which becomes that key; Esc cancels, Delete or
// Backspace removes it. What key-bindings.ts refuses (a browser's key, a Ctrl or ⌘
// combination, a key another action has) is said in words and changes nothing. While it
// waits, the press goes nowhere else: neither to the game nor to the browser's own use of
// Tab. Labels and messages are text nodes only. Keys are named by what the keyboard's
// layout prints on them where the browser says (keyboard-layout.ts), else by their code.
import { bindKey, KEY_ACTION_LABELS, KEY_ACTIONS, keyLabel, KEYS_PER_ACTION, unbindKey, type BindResult, type KeyAction, type KeyBindings, DEFAULT_KEY_BINDINGS } from './key-bindings';
import type { LayoutMap } from './keyboard-layout';
import { addStyleOnce } from './page-style';

const CSS = `
.key-bindings { grid-column: 1 / -1; }
.key-bindings summary { cursor: pointer; }
.key-bindings-grid { display: grid; grid-template-columns: 1fr 6em 6em; gap: 2px 6px; align-items: center; margin-top: 4px; }
.key-bindings-grid button { font: inherit; font-size: 12px; padding: 1px 4px; min-height: 1.6em; }
.key-bindings-grid button.waiting { outline: 2px solid #fc6; }
.key-bindings .keys-said { font-size: 12px; min-height: 1em; color: #f8b; margin: 4px 0; }
`;

export class KeyBindingsPanel {
  readonly root: HTMLDetailsElement;
  private readonly buttons = new Map<KeyAction, HTMLButtonElement[]>();
  private readonly said: HTMLElement;
  private bindings: KeyBindings;
  /** The keyboard's layout, once the browser said it (undefined: keys named by their codes). */
  private layout: LayoutMap | undefined;
  /** The key button waiting for a press, if any. */
  private waiting: { action: KeyAction; slot: number } | null = null;

  constructor(container: HTMLElement, initial: KeyBindings, private readonly onChange: (b: KeyBindings) => void) {
    addStyleOnce('key-bindings-css', CSS);
    this.bindings = initial;
    this.root = document.createElement('details');
    this.root.className = 'key-bindings';
    const summary = document.createElement('summary');
    summary.textContent = 'Keys';
    const grid = document.createElement('div');
    grid.className = 'key-bindings-grid';
    for (const action of KEY_ACTIONS) {
      const label = document.createElement('span');
      label.textContent = KEY_ACTION_LABELS[action];
      grid.append(label);
      const row: HTMLButtonElement[] = [];
      for (let slot = 0; slot < KEYS_PER_ACTION; slot++) {
        const b = document.createElement('button');
        b.type = 'button';
        b.dataset.action = action;
        b.dataset.slot = String(slot);
        b.addEventListener('click', () => this.wait(action, slot));
        // Play started (the pointer taken, the focus dropped) or a click elsewhere: no longer waiting.
        b.addEventListener('blur', () => { if (this.waiting?.action === action && this.waiting.slot === slot) this.show(this.bindings); });
        row.push(b);
        grid.append(b);
      }
      this.buttons.set(action, row);
    }
    this.said = document.createElement('div');
    this.said.className = 'keys-said';
    this.said.setAttribute('role', 'status');
    const reset = document.createElement('button');
    reset.type = 'button';
    reset.className = 'keys-reset';
    reset.textContent = 'Reset keys to defaults';
    reset.addEventListener('click', () => {
      this.apply({ ok: true, bindings: DEFAULT_KEY_BINDINGS });
      this.said.textContent = 'Keys reset to the defaults';
    });
    this.root.append(summary, grid, this.said, reset);
    // Before the game's listeners (window, bubbling) and the browser's defaults.
    addEventListener('keydown', (e) => this.onKeyDown(e), true);
    this.show(initial);
    container.append(this.root);
  }

  /** Keys are named as `layout` prints them from now on. */
  setLayout(layout: LayoutMap | undefined): void {
    this.layout = layout;
    if (!this.waiting) this.show(this.bindings);
  }

  /** The bindings shown (the menu opens, or they changed elsewhere). */
  show(bindings: KeyBindings): void {
    this.bindings = bindings;
    this.waiting = null;
    for (const [action, row] of this.buttons) {
      row.forEach((b, slot) => {
        const code = bindings[action][slot];
        b.textContent = code ? keyLabel(code, this.layout) : '—';
        b.title = code ? `${code}: click, then press the new key (Delete removes it)` : 'Click, then press a second key';
        b.classList.remove('waiting');
      });
    }
  }

  private wait(action: KeyAction, slot: number): void {
    this.show(this.bindings);
    this.waiting = { action, slot };
    const b = this.buttons.get(action)![slot]!;
    b.textContent = 'press a key…';
    b.classList.add('waiting');
    this.said.textContent = '';
  }

  private onKeyDown(e: KeyboardEvent): void {
    const w = this.waiting;
    if (!w) return;
    // Playing again (a browser that does not focus clicked buttons never blurs them): the key is the game's.
    if (document.pointerLockElement) {
      this.show(this.bindings);
      return;
    }
    e.preventDefault();
    e.stopPropagation();
    if (e.code === 'Escape') {
      this.show(this.bindings);
      return;
    }
    if (e.code === 'Delete' || e.code === 'Backspace') {
      this.apply(unbindKey(this.bindings, w.action, w.slot));
      return;
    }
    this.apply(bindKey(this.bindings, w.action, w.slot, { code: e.code, ctrlKey: e.ctrlKey, metaKey: e.metaKey }, this.layout));
  }

  private apply(r: BindResult): void {
    if (!r.ok) {
      this.show(this.bindings);
      this.said.textContent = r.reason;
      return;
    }
    this.said.textContent = '';
    this.show(r.bindings);
    this.onChange(r.bindings);
  }
}

/** Key hints elsewhere on the page (`<kbd data-action="forward">`) name the main key bound now, as `layout` prints it. */
export function showKeyHints(root: ParentNode, keys: KeyBindings, layout?: LayoutMap): void {
  for (const kbd of root.querySelectorAll<HTMLElement>('kbd[data-action]')) {
    const code = keys[kbd.dataset.action as KeyAction]?.[0];
    if (code) kbd.textContent = keyLabel(code, layout);
  }
}
