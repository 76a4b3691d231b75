import { describe, expect, it } from 'vitest';
import { whoRows, WHO_MAX_ROWS, type WhoPlayer } from './who-list';

const at = (id: string, name: string, x: number, y = 0, z = 0, colour = 0): WhoPlayer => ({ id, name, colour, x, y, z });
const me = { x: 0, y: 0, z: 0 };

describe('who-list rows', () => {
  it('sorts nearest first, with whole-block distances and a 6-hex short id', () => {
    const rows = whoRows([at('cccccc99', 'far', 30, 0, 40), at('aaaaaa11', 'near', 3, 4, 0), at('bbbbbb22', 'mid', 0, 0, 10.4)], me, []);
    expect(rows.map((r) => [r.name, r.distance, r.shortId])).toEqual([['near', 5, 'aaaaaa'], ['mid', 10, 'bbbbbb'], ['far', 50, 'cccccc']]);
  });

  it('keeps a name with markup as its characters (the overlay shows it as text)', () => {
    const name = '<img src=x onerror="alert(1)">';
    expect(whoRows([at('ab', name, 1)], me, [])[0]!.name).toBe(name);
  });

  it('carries each player\'s colour as CSS for the swatch', () => {
    expect(whoRows([at('a1', 'red', 1, 0, 0, 0), at('b2', 'white', 2, 0, 0, 11)], me, []).map((r) => r.colour)).toEqual(['#e0473c', '#e8e8e8']);
  });

  it('tells apart two players of one name by short id, in a stable order', () => {
    const rows = whoRows([at('ffff0000', 'Ann', 2), at('00001111', 'Ann', -2)], me, []);
    expect(rows.map((r) => r.shortId)).toEqual(['000011', 'ffff00']);
  });

  it('shows the round trip of a direct link, and - without one or before it is measured', () => {
    const rows = whoRows([at('a1', 'linked', 1), at('b2', 'unmeasured', 2), at('c3', 'routed', 3)], me, [{ id: 'a1', rttMs: 23.6 }, { id: 'b2', rttMs: null }, { id: 'zz', rttMs: 5 }]);
    expect(rows.map((r) => [r.rttMs, r.link])).toEqual([[24, '24 ms'], [null, '-'], [null, '-']]);
  });

  it('is bounded to maxRows, keeping the nearest, and puts a position that is not a number last', () => {
    const many = Array.from({ length: 200 }, (_, i) => at(`id${i}`, `p${i}`, 200 - i));
    const rows = whoRows([at('nan', 'broken', NaN), ...many], me, []);
    expect(rows).toHaveLength(WHO_MAX_ROWS);
    expect(rows[0]!.name).toBe('p199');
    expect(rows.some((r) => r.name === 'broken')).toBe(false);
    expect(whoRows([at('nan', 'broken', NaN), at('b', 'ok', 1)], me, []).map((r) => r.name)).toEqual(['ok', 'broken']);
  });

  it('is empty when nobody else is here', () => {
    expect(whoRows([], me, [])).toEqual([]);
  });
});
