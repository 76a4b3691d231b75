import { describe, expect, it } from 'vitest';
import { MoveKeys } from './move-keys';
import { DEFAULT_KEY_BINDINGS } from './key-bindings';

describe('move keys', () => {
  it('W walks, S backs, A and D strafe, Space jumps', () => {
    const k = new MoveKeys();
    k.press('KeyW', 0);
    k.press('KeyD', 0);
    expect(k.input()).toMatchObject({ forward: 1, right: 1, jump: false, sprint: false });
    k.press('KeyS', 0);
    k.press('KeyA', 0);
    k.press('Space', 0);
    expect(k.input()).toMatchObject({ forward: 0, right: 0, jump: true });
  });

  it('Ctrl sprints no more: Ctrl+W closes the tab', () => {
    const k = new MoveKeys();
    k.press('ControlLeft', 0);
    k.press('KeyW', 1000);
    expect(k.input()).toMatchObject({ forward: 1, sprint: false });
  });

  it('Shift with forward sprints on the ground, and descends while flying', () => {
    const k = new MoveKeys();
    k.press('ShiftLeft', 0);
    expect(k.input()).toMatchObject({ sprint: false, descend: true });
    k.press('KeyW', 10);
    expect(k.input()).toMatchObject({ forward: 1, sprint: true, descend: true });
    k.release('ShiftLeft');
    expect(k.input()).toMatchObject({ sprint: false, descend: false });
  });

  it('a double tap of W sprints until W is let go', () => {
    const k = new MoveKeys();
    k.press('KeyW', 0);
    k.release('KeyW');
    k.press('KeyW', 200);
    expect(k.input().sprint).toBe(true);
    // Strafing and auto-repeat keep it.
    k.press('KeyA', 500);
    k.press('KeyW', 600);
    expect(k.input().sprint).toBe(true);
    k.release('KeyW');
    expect(k.input().sprint).toBe(false);
    k.press('KeyW', 5000);
    expect(k.input().sprint).toBe(false);
  });

  it('two taps of W further apart than the double-tap time walk', () => {
    const k = new MoveKeys();
    k.press('KeyW', 0);
    k.release('KeyW');
    k.press('KeyW', 400);
    expect(k.input()).toMatchObject({ forward: 1, sprint: false });
  });

  it('the arrow forward double-taps too; walking backwards never sprints', () => {
    const k = new MoveKeys();
    k.press('ArrowUp', 0);
    k.release('ArrowUp');
    k.press('ArrowUp', 100);
    expect(k.input().sprint).toBe(true);
    k.release('ArrowUp');
    k.press('ShiftRight', 200);
    k.press('KeyS', 200);
    expect(k.input()).toMatchObject({ forward: -1, sprint: false });
  });

  it('a double tap of Space toggles flight, a third tap does not toggle it back', () => {
    const k = new MoveKeys();
    expect(k.press('Space', 0)).toBeUndefined();
    k.release('Space');
    expect(k.press('Space', 250)).toBe('toggle-fly');
    k.release('Space');
    expect(k.press('Space', 400)).toBeUndefined();
  });

  it('clear lets every key go and ends a sprint (the window lost focus)', () => {
    const k = new MoveKeys();
    k.press('KeyW', 0);
    k.release('KeyW');
    k.press('KeyW', 100);
    k.clear();
    expect(k.input()).toMatchObject({ forward: 0, sprint: false });
    k.press('KeyW', 5000);
    expect(k.input().sprint).toBe(false);
  });
});

describe('move keys, rebound', () => {
  it('the bound keys move and double-tap; the old ones no longer do', () => {
    const k = new MoveKeys({ ...DEFAULT_KEY_BINDINGS, forward: ['KeyK'], jump: ['KeyJ'], sprint: ['KeyC'] });
    k.press('KeyW', 0);
    k.press('Space', 0);
    k.press('ShiftLeft', 0);
    expect(k.input()).toMatchObject({ forward: 0, jump: false, sprint: false, descend: false });
    k.press('KeyK', 1000);
    k.release('KeyK');
    k.press('KeyK', 1100);
    expect(k.input()).toMatchObject({ forward: 1, sprint: true });
    k.press('KeyC', 1200);
    expect(k.input()).toMatchObject({ descend: true });
    k.press('KeyJ', 2000);
    k.release('KeyJ');
    expect(k.press('KeyJ', 2100)).toBe('toggle-fly');
  });

  it('new bindings apply at once and let the held keys go', () => {
    const k = new MoveKeys();
    k.press('KeyW', 0);
    k.setBindings({ ...DEFAULT_KEY_BINDINGS, forward: ['KeyK'] });
    expect(k.input().forward).toBe(0);
    k.press('KeyW', 10);
    expect(k.input().forward).toBe(0);
    k.press('KeyK', 20);
    expect(k.input().forward).toBe(1);
  });
});
