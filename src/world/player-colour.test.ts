import { describe, expect, it } from 'vitest';
import { defaultPlayerColour, isPlayerColour, PLAYER_COLOUR_MAX, PLAYER_COLOUR_NAMES, PLAYER_COLOURS, playerColourCss } from './player-colour';

describe('player colours', () => {
  it('a colour is exactly an index of the palette: nothing else passes, nothing is clamped', () => {
    expect(PLAYER_COLOUR_NAMES).toHaveLength(PLAYER_COLOURS.length);
    for (let c = 0; c <= PLAYER_COLOUR_MAX; c++) expect(isPlayerColour(c)).toBe(true);
    for (const bad of [-1, PLAYER_COLOUR_MAX + 1, 1.5, Number.NaN, Infinity, '3', null, undefined, {}, 0xff0000]) expect(isPlayerColour(bad), String(bad)).toBe(false);
  });

  it('a player who chose none has the colour their id gives, the same everywhere, spread over the palette', () => {
    expect(defaultPlayerColour('aa01bb')).toBe(defaultPlayerColour('aa01bb'));
    const seen = new Set(Array.from({ length: 200 }, (_, i) => defaultPlayerColour(i.toString(16).padStart(40, '0'))));
    expect(seen.size).toBe(PLAYER_COLOURS.length);
    for (const c of seen) expect(isPlayerColour(c)).toBe(true);
  });

  it('shows as CSS', () => {
    expect(playerColourCss(0)).toBe('#e0473c');
    expect(playerColourCss(99)).toBe('#e0473c');
  });
});
