import { describe, expect, it } from 'vitest';
import { printedKey, readLayoutMap } from './keyboard-layout';

describe('keyboard layout', () => {
  it("reads the browser's layout map where there is one, and gives none where it is missing or refused", async () => {
    const map = await readLayoutMap({ getLayoutMap: () => Promise.resolve(new Map([['KeyW', 'z']]).entries()) });
    expect(map?.get('KeyW')).toBe('z');
    expect(await readLayoutMap(undefined)).toBeUndefined();
    expect(await readLayoutMap({})).toBeUndefined();
    expect(await readLayoutMap({ getLayoutMap: () => Promise.reject(new DOMException('not allowed', 'NotAllowedError')) })).toBeUndefined();
  });

  it('prints a letter as its capital, other characters as they are, and nothing invisible or long', () => {
    expect(['z', 'é', ')', 'ß', '²', 'ø'].map(printedKey)).toEqual(['Z', 'É', ')', 'ß', '²', 'Ø']);
    for (const bad of [undefined, '', ' ', '\u0000', '\u200b', 'Dead', 'abc']) expect(printedKey(bad), JSON.stringify(bad)).toBeUndefined();
  });
});
