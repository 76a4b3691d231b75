import { describe, expect, it } from 'vitest';
import { defaultPlayerName, isPlayerName, normalisePlayerName, PLAYER_NAME_MAX } from './player-name';

/** Names a hostile peer might send: none is a name. */
const HOSTILE_NAMES = [
  '',
  '   ',
  'x'.repeat(PLAYER_NAME_MAX + 1),
  'y'.repeat(10_000),
  '<img src=x onerror=alert(1)>',
  '<b>Ann</b>',
  'Ann&amp;',
  'Ann\u0000',
  'An\nn',
  'Ann\t',
  '\u001b[31mAnn',
  'Ann\u202e',
  'A\u200dnn',
  'Ann\u200b',
  'a\u0301\u0301\u0301\u0301',
  'Ann 🙂',
  '"Ann"',
  'Ann;drop',
  '\ud800',
];

describe('player names', () => {
  it('letters and digits of any script, space, _ and - pass as they are', () => {
    for (const n of ['Ann', 'bob_2', 'Mary-Jane', 'Jo Lee', 'José', 'Żaneta', 'Иван', '山田太郎', 'x', 'a'.repeat(PLAYER_NAME_MAX), defaultPlayerName('a1b2c3d4')]) {
      expect(isPlayerName(n), n).toBe(true);
      expect(normalisePlayerName(n)).toBe(n);
    }
  });

  it('what a person typed is trimmed, its space runs made one and composed (NFC)', () => {
    expect(normalisePlayerName('  Jo   Lee ')).toBe('Jo Lee');
    // "José" typed with a combining accent (NFD) is the same name as the composed one.
    expect(normalisePlayerName('Jose\u0301')).toBe('José');
    // ...but a receiver cleans nothing: only the exact form passes there.
    expect(isPlayerName('Jose\u0301')).toBe(false);
    expect(isPlayerName(' Ann')).toBe(false);
    expect(isPlayerName('Jo  Lee')).toBe(false);
  });

  it('hostile names are refused: oversize, markup, control and format characters, marks, emoji', () => {
    for (const n of HOSTILE_NAMES) {
      expect(isPlayerName(n), JSON.stringify(n)).toBe(false);
    }
    for (const n of HOSTILE_NAMES.filter((h) => !/^\s*$/.test(h))) {
      const made = normalisePlayerName(n);
      // Typing one of these never yields a name with markup or control characters in it.
      if (made !== undefined) expect(made).toMatch(/^[\p{L}\p{Nd}_ -]{1,16}$/u);
    }
    expect([undefined, 1, null, {}].some((x) => isPlayerName(x))).toBe(false);
    expect(defaultPlayerName('abcdef0123')).toBe('player-abcdef');
  });
});
