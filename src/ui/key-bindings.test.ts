import { describe, expect, it } from 'vitest';
import { actionOf, bindKey, DEFAULT_KEY_BINDINGS, KEY_ACTIONS, keyLabel, parseKeyBindings, reservedReason, unbindKey, type BindResult, type KeyBindings } from './key-bindings';

function ok(r: BindResult): KeyBindings {
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r.bindings;
}

function refused(r: BindResult): string {
  if (r.ok) throw new Error('accepted');
  return r.reason;
}

describe('key bindings', () => {
  it('the defaults give every action a key and no key to two actions', () => {
    const all = KEY_ACTIONS.flatMap((a) => DEFAULT_KEY_BINDINGS[a]);
    expect(new Set(all).size).toBe(all.length);
    for (const a of KEY_ACTIONS) expect(DEFAULT_KEY_BINDINGS[a].length).toBeGreaterThan(0);
    expect(parseKeyBindings(DEFAULT_KEY_BINDINGS)).toEqual(DEFAULT_KEY_BINDINGS);
    expect(actionOf(DEFAULT_KEY_BINDINGS, 'ArrowUp')).toBe('forward');
    expect(actionOf(DEFAULT_KEY_BINDINGS, 'KeyZ')).toBeUndefined();
  });

  it('a key replaces the one in its slot, or adds a second', () => {
    const b = ok(bindKey(DEFAULT_KEY_BINDINGS, 'forward', 0, { code: 'KeyK' }));
    expect(b.forward).toEqual(['KeyK', 'ArrowUp']);
    expect(actionOf(b, 'KeyW')).toBeUndefined();
    const j = ok(bindKey(b, 'jump', 1, { code: 'KeyW' }));
    expect(j.jump).toEqual(['Space', 'KeyW']);
    // The action's own other key: the two swap.
    expect(ok(bindKey(b, 'forward', 0, { code: 'ArrowUp' })).forward).toEqual(['ArrowUp', 'KeyK']);
    expect(DEFAULT_KEY_BINDINGS.forward).toEqual(['KeyW', 'ArrowUp']);
  });

  it('Ctrl and Meta combinations, the browser keys and the hotbar digits are refused, in words', () => {
    expect(refused(bindKey(DEFAULT_KEY_BINDINGS, 'forward', 0, { code: 'KeyK', ctrlKey: true }))).toMatch(/Ctrl\+W closes the tab/);
    expect(refused(bindKey(DEFAULT_KEY_BINDINGS, 'forward', 0, { code: 'KeyK', metaKey: true }))).toMatch(/belong to the browser/);
    expect(refused(bindKey(DEFAULT_KEY_BINDINGS, 'sprint', 0, { code: 'ControlLeft', ctrlKey: true }))).toMatch(/Ctrl/);
    for (const code of ['Escape', 'F5', 'F11', 'F12']) expect(reservedReason({ code })).toMatch(/belongs to the browser/);
    expect(refused(bindKey(DEFAULT_KEY_BINDINGS, 'jump', 0, { code: 'Digit3' }))).toMatch(/hotbar/);
    expect(reservedReason({ code: '<b>' })).toBeDefined();
    expect(reservedReason({ code: 'F2' })).toBeUndefined();
  });

  it('a key another action has is refused, naming that action', () => {
    expect(refused(bindKey(DEFAULT_KEY_BINDINGS, 'forward', 0, { code: 'KeyS' }))).toBe('S is already the key of "Back": change that one first');
    expect(refused(bindKey(DEFAULT_KEY_BINDINGS, 'forward', 5, { code: 'KeyK' }))).toMatch(/slot/);
  });

  it('a key can be removed, but not an action\'s last one', () => {
    const b = ok(unbindKey(DEFAULT_KEY_BINDINGS, 'forward', 0));
    expect(b.forward).toEqual(['ArrowUp']);
    expect(refused(unbindKey(b, 'forward', 0))).toMatch(/needs a key/);
    expect(ok(unbindKey(b, 'forward', 1))).toBe(b);
  });

  it('stored bindings: kept when valid; a bad, reserved or shared key gives the defaults', () => {
    const mine = { ...DEFAULT_KEY_BINDINGS, forward: ['KeyK'], jump: ['KeyW', 'Space'] };
    expect(parseKeyBindings(JSON.parse(JSON.stringify(mine)))).toEqual(mine);
    // An action added later than the stored bindings gets its default keys.
    const { fullscreen: _, ...older } = DEFAULT_KEY_BINDINGS;
    expect(parseKeyBindings(older)).toEqual(DEFAULT_KEY_BINDINGS);
    for (const bad of [
      { ...DEFAULT_KEY_BINDINGS, forward: ['KeyS'] },
      { ...DEFAULT_KEY_BINDINGS, forward: ['ControlLeft'] },
      { ...DEFAULT_KEY_BINDINGS, forward: ['KeyK', 'KeyJ', 'KeyL'] },
      { ...DEFAULT_KEY_BINDINGS, forward: [] },
      { ...DEFAULT_KEY_BINDINGS, forward: 'KeyK' },
      { ...DEFAULT_KEY_BINDINGS, forward: [7] },
      null,
      'KeyW',
    ]) expect(parseKeyBindings(bad)).toBe(DEFAULT_KEY_BINDINGS);
  });

  it('keys are named as a person reads them', () => {
    expect(['KeyW', 'ArrowUp', 'ShiftLeft', 'Space', 'Digit0', 'NumpadAdd', 'F2', 'IntlBackslash'].map((c) => keyLabel(c))).toEqual(['W', '↑', 'Left Shift', 'Space', '0', 'Num +', 'F2', 'IntlBackslash']);
    expect(DEFAULT_KEY_BINDINGS.forward.map((c) => keyLabel(c))).toEqual(['W', '↑']);
  });

  it('with the keyboard\'s layout known, keys are named by what is printed on them', () => {
    // Part of what Chromium's getLayoutMap() gives on a French AZERTY keyboard.
    const azerty = new Map([['KeyW', 'z'], ['KeyA', 'q'], ['KeyQ', 'a'], ['Digit2', 'é'], ['Minus', ')'], ['Equal', '='], ['KeyT', 't'], ['Semicolon', 'm']]);
    expect(['KeyW', 'KeyA', 'KeyQ', 'Digit2', 'Minus', 'ArrowUp', 'ShiftLeft', 'Space'].map((c) => keyLabel(c, azerty))).toEqual(['Z', 'Q', 'A', 'É', ')', '↑', 'Left Shift', 'Space']);
    expect(DEFAULT_KEY_BINDINGS.forward.map((c) => keyLabel(c, azerty))).toEqual(['Z', '↑']);
    expect(DEFAULT_KEY_BINDINGS.renderLess.map((c) => keyLabel(c, azerty))).toEqual([')', 'Num -']);
    // Refusals name the key the player pressed as printed.
    const taken = bindKey(DEFAULT_KEY_BINDINGS, 'jump', 0, { code: 'KeyW' }, azerty);
    expect(taken.ok === false && taken.reason).toBe('Z is already the key of "Forward": change that one first');
  });
});
