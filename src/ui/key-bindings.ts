// Which keys do what: the player's key bindings, without a DOM. Each action has up to two
// keys (KeyboardEvent.code, so a binding means the same place on every layout). The model
// refuses what would leave a player stuck or lose the game: a key that belongs to the
// browser (Ctrl and Meta combinations, Ctrl+W closes the tab; Esc, which frees the mouse;
// the F keys a browser keeps for itself), a key another action already has, the hotbar's
// 1-9, and an action left without any key. Stored bindings are checked the same way:
// anything off falls back to the defaults as a whole, so a bad entry never leaves two
// actions on one key. A key is named for a person by what its keyboard prints on it, where
// the browser tells the layout (keyboard-layout.ts), else by its code.
import { printedKey, type LayoutMap } from './keyboard-layout';

export const KEY_ACTIONS = [
  'forward', 'back', 'left', 'right', 'jump', 'sprint', 'fly',
  'chat', 'who', 'dropItem', 'nextItem', 'invite', 'identity', 'fullscreen',
  'renderMore', 'renderLess',
] as const;
export type KeyAction = (typeof KEY_ACTIONS)[number];

/** Keys per action, first the main one. */
export type KeyBindings = Readonly<Record<KeyAction, readonly string[]>>;

/** At most this many keys per action. */
export const KEYS_PER_ACTION = 2;

export const KEY_ACTION_LABELS: Readonly<Record<KeyAction, string>> = {
  forward: 'Forward',
  back: 'Back',
  left: 'Left',
  right: 'Right',
  jump: 'Jump / fly up',
  sprint: 'Sprint / fly down',
  fly: 'Toggle flying',
  chat: 'Chat',
  who: 'Who is here (hold)',
  dropItem: 'Drop item',
  nextItem: 'Next item',
  invite: 'Copy invite link',
  identity: 'Identity export / import',
  fullscreen: 'Fullscreen',
  renderMore: 'Render distance +',
  renderLess: 'Render distance -',
};

export const DEFAULT_KEY_BINDINGS: KeyBindings = {
  forward: ['KeyW', 'ArrowUp'],
  back: ['KeyS', 'ArrowDown'],
  left: ['KeyA', 'ArrowLeft'],
  right: ['KeyD', 'ArrowRight'],
  jump: ['Space'],
  sprint: ['ShiftLeft', 'ShiftRight'],
  fly: ['KeyF'],
  chat: ['KeyT', 'Enter'],
  who: ['Tab'],
  dropItem: ['KeyQ'],
  nextItem: ['KeyE'],
  invite: ['KeyI'],
  identity: ['KeyP'],
  fullscreen: ['KeyO'],
  renderMore: ['Equal', 'NumpadAdd'],
  renderLess: ['Minus', 'NumpadSubtract'],
};

/** Keys that act on their own in a browser (Esc frees the mouse and leaves fullscreen; help, find, reload, address bar, caret browsing, menu, fullscreen, developer tools). */
const BROWSER_KEYS = new Set(['Escape', 'F1', 'F3', 'F5', 'F6', 'F7', 'F10', 'F11', 'F12']);
/** Modifier keys whose combinations are the browser's (Ctrl+W, Ctrl+T, ⌘Q...). */
const BROWSER_MODIFIERS = new Set(['ControlLeft', 'ControlRight', 'MetaLeft', 'MetaRight', 'OSLeft', 'OSRight']);
/** The hotbar's slots: fixed, so 1-9 always choose a slot. */
const HOTBAR_KEY = /^Digit[1-9]$/;
/** What a KeyboardEvent.code looks like ('KeyW', 'ArrowUp', 'Numpad0', 'IntlBackslash'). */
const KEY_CODE = /^[A-Za-z][A-Za-z0-9]{0,23}$/;

/** A key as pressed: its code and the modifiers held with it. */
export interface KeyPress {
  code: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
}

/** Why `press` cannot be bound (for the player, keys named as `layout` prints them), or undefined when it may be. */
export function reservedReason(press: KeyPress, layout?: LayoutMap): string | undefined {
  const { code } = press;
  if (!KEY_CODE.test(code)) return 'That key cannot be told apart from others: choose another';
  if (press.ctrlKey || press.metaKey || BROWSER_MODIFIERS.has(code)) {
    return 'Ctrl and ⌘ combinations belong to the browser (Ctrl+W closes the tab): choose a key without them';
  }
  if (BROWSER_KEYS.has(code)) return `${keyLabel(code, layout)} belongs to the browser: choose another key`;
  if (HOTBAR_KEY.test(code)) return '1-9 choose the hotbar slot: choose another key';
  return undefined;
}

/**
 * A key's name for a person: what `layout` says the key prints ('KeyW' -> 'Z' on AZERTY),
 * else from its code ('KeyW' -> 'W', 'ArrowUp' -> '↑', 'ShiftLeft' -> 'Left Shift').
 */
export function keyLabel(code: string, layout?: LayoutMap): string {
  const printed = printedKey(layout?.get(code));
  if (printed !== undefined) return printed;
  const named: Record<string, string> = {
    ArrowUp: '↑', ArrowDown: '↓', ArrowLeft: '←', ArrowRight: '→',
    Equal: '=', Minus: '-', NumpadAdd: 'Num +', NumpadSubtract: 'Num -', Space: 'Space',
    BracketLeft: '[', BracketRight: ']', Semicolon: ';', Quote: "'", Backquote: '`',
    Backslash: '\\', Comma: ',', Period: '.', Slash: '/',
  };
  if (named[code]) return named[code];
  const m = /^(?:Key|Digit)(.+)$/.exec(code);
  if (m) return m[1]!;
  const side = /^(Shift|Control|Alt|Meta)(Left|Right)$/.exec(code);
  if (side) return `${side[2]} ${side[1] === 'Control' ? 'Ctrl' : side[1]}`;
  return code.replace(/^Numpad/, 'Num ');
}

/** The outcome of a change: the new bindings, or why not (for the player). */
export type BindResult = { ok: true; bindings: KeyBindings } | { ok: false; reason: string };

/** The action that has `code`, if any. */
export function actionOf(bindings: KeyBindings, code: string): KeyAction | undefined {
  return KEY_ACTIONS.find((a) => bindings[a].includes(code));
}

/** `action`'s key number `slot` (0: main, 1: second) becomes `press`, unless that key is the browser's or another action's (refusals name keys as `layout` prints them). */
export function bindKey(bindings: KeyBindings, action: KeyAction, slot: number, press: KeyPress, layout?: LayoutMap): BindResult {
  if (!Number.isInteger(slot) || slot < 0 || slot >= KEYS_PER_ACTION) return { ok: false, reason: 'No such key slot' };
  const reason = reservedReason(press, layout);
  if (reason) return { ok: false, reason };
  const owner = actionOf(bindings, press.code);
  if (owner && owner !== action) {
    return { ok: false, reason: `${keyLabel(press.code, layout)} is already the key of "${KEY_ACTION_LABELS[owner]}": change that one first` };
  }
  const keys = [...bindings[action]];
  const had = keys.indexOf(press.code);
  if (had >= 0) {
    // Already this action's key: the two keys swap places (or nothing changes).
    if (slot >= keys.length) return { ok: true, bindings };
    keys[had] = keys[slot]!;
    keys[slot] = press.code;
  } else if (slot < keys.length) {
    keys[slot] = press.code;
  } else {
    keys.push(press.code);
  }
  return { ok: true, bindings: { ...bindings, [action]: keys } };
}

/** `action` loses key number `slot`; refused when it is the action's last key. */
export function unbindKey(bindings: KeyBindings, action: KeyAction, slot: number): BindResult {
  const keys = bindings[action];
  if (slot < 0 || slot >= keys.length) return { ok: true, bindings };
  if (keys.length === 1) return { ok: false, reason: `"${KEY_ACTION_LABELS[action]}" needs a key` };
  return { ok: true, bindings: { ...bindings, [action]: keys.filter((_, i) => i !== slot) } };
}

/** Bindings from anything (stored JSON): every action's keys valid, none reserved or shared, or else the defaults. */
export function parseKeyBindings(raw: unknown): KeyBindings {
  if (typeof raw !== 'object' || raw === null) return DEFAULT_KEY_BINDINGS;
  const r = raw as Record<string, unknown>;
  const out = {} as Record<KeyAction, readonly string[]>;
  const seen = new Set<string>();
  for (const action of KEY_ACTIONS) {
    const keys = r[action];
    // An action added since the bindings were stored starts with its default keys.
    if (keys === undefined) {
      out[action] = DEFAULT_KEY_BINDINGS[action];
    } else {
      if (!Array.isArray(keys) || keys.length < 1 || keys.length > KEYS_PER_ACTION) return DEFAULT_KEY_BINDINGS;
      if (!keys.every((k): k is string => typeof k === 'string' && reservedReason({ code: k }) === undefined)) return DEFAULT_KEY_BINDINGS;
      out[action] = [...keys];
    }
    for (const k of out[action]) {
      if (seen.has(k)) return DEFAULT_KEY_BINDINGS;
      seen.add(k);
    }
  }
  return out;
}
