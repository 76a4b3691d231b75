import { describe, expect, it } from 'vitest';
import { chosenName, loadSettings, lookDelta, parseSettings, saveSettings, SETTINGS_BOUNDS, SETTINGS_DEFAULTS, SETTINGS_KEY, withLook, type SettingsStorage } from './player-settings';
import { memoryStorage } from '../testing/memory-storage';
import { DEFAULT_KEY_BINDINGS } from './key-bindings';

describe('player settings', () => {
  it('round-trip through storage', () => {
    const s = memoryStorage();
    expect(loadSettings(s)).toEqual(SETTINGS_DEFAULTS);
    const keys = { ...DEFAULT_KEY_BINDINGS, forward: ['KeyK'] };
    expect(saveSettings(s, { name: 'Ann', colour: 5, sensitivity: 2.5, invertY: true, fov: 90, volume: 0, keys, maxFps: 30 })).toBe(true);
    expect(loadSettings(s)).toEqual({ name: 'Ann', colour: 5, sensitivity: 2.5, invertY: true, fov: 90, volume: 0, keys, maxFps: 30 });
  });

  it('out-of-bounds and wrong-typed fields fall back one by one', () => {
    expect(parseSettings({ sensitivity: 1e9, invertY: 'yes', fov: 10, volume: -3 })).toEqual({
      name: '', colour: null, sensitivity: SETTINGS_BOUNDS.sensitivity.max, invertY: false, fov: SETTINGS_BOUNDS.fov.min, volume: 0, keys: DEFAULT_KEY_BINDINGS, maxFps: 0,
    });
    expect(parseSettings({ sensitivity: Number.NaN, fov: 80.6 })).toEqual({ ...SETTINGS_DEFAULTS, fov: 81 });
    expect(parseSettings(null)).toEqual(SETTINGS_DEFAULTS);
  });

  it('a stored name is kept normalised, and one outside the rule (a hand edit) is dropped', () => {
    expect(parseSettings({ name: '  Jo   Lee ' }).name).toBe('Jo Lee');
    for (const bad of ['<script>alert(1)</script>', 'Ann\u0000', 'x'.repeat(40), 7]) expect(parseSettings({ name: bad }).name).toBe('');
    expect([chosenName('  '), chosenName(' Ann '), chosenName('<b>Ann</b>')]).toEqual(['', 'Ann', undefined]);
  });

  it('choosing a name or a colour changes that field only, and a refused one changes nothing', () => {
    const s = { ...SETTINGS_DEFAULTS, name: 'Ann', colour: 3 };
    expect(withLook(s, { colour: 9 })).toEqual({ ...s, colour: 9 });
    expect(withLook(s, { colour: null })).toEqual({ ...s, colour: null });
    expect(withLook(s, { name: ' Jo  Lee ' })).toEqual({ ...s, name: 'Jo Lee' });
    for (const bad of [{ colour: 12 }, { colour: -1 }, { colour: 2.5 }, { name: '<b>x</b>' }]) expect(withLook(s, bad), JSON.stringify(bad)).toBeUndefined();
  });

  it('a frame rate limit is one of the choices, anything else none', () => {
    expect(parseSettings({ maxFps: 20 }).maxFps).toBe(20);
    for (const bad of [25, 5, -30, '30', null, Number.POSITIVE_INFINITY]) expect(parseSettings({ maxFps: bad }).maxFps).toBe(0);
  });

  it('a stored colour outside the palette (a hand edit) is none: the one the id gives', () => {
    expect(parseSettings({ colour: 11 }).colour).toBe(11);
    for (const bad of [12, -1, 1.5, '3', null, Number.NaN]) expect(parseSettings({ colour: bad }).colour).toBe(null);
  });

  it('broken stored JSON and a storage that throws give the defaults', () => {
    const s = memoryStorage();
    s.map.set(SETTINGS_KEY, '{not json');
    expect(loadSettings(s)).toEqual(SETTINGS_DEFAULTS);
    const refusing: SettingsStorage = { getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('quota'); } };
    expect(loadSettings(refusing)).toEqual(SETTINGS_DEFAULTS);
    expect(saveSettings(refusing, SETTINGS_DEFAULTS)).toBe(false);
    expect(saveSettings(undefined, SETTINGS_DEFAULTS)).toBe(false);
  });

  it('mouse look: right turns right, up looks up unless inverted, sensitivity scales', () => {
    const [yaw, pitch] = lookDelta(10, -10, SETTINGS_DEFAULTS);
    expect(yaw).toBeLessThan(0);
    expect(pitch).toBeGreaterThan(0);
    const [, inverted] = lookDelta(10, -10, { ...SETTINGS_DEFAULTS, invertY: true });
    expect(inverted).toBeCloseTo(-pitch);
    const [fast] = lookDelta(10, -10, { ...SETTINGS_DEFAULTS, sensitivity: 2 });
    expect(fast).toBeCloseTo(2 * yaw);
  });
});
