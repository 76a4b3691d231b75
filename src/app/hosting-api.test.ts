import { describe, expect, it } from 'vitest';
import { presentPlayers } from './hosting-api';

describe('the players standing in a hosted region', () => {
  it('by name, then by the 6 hex of their node id (two of one name told apart)', () => {
    const present = presentPlayers([['ffee00aa11', { name: 'Zed' }], ['aa00000000', { name: 'Ann' }], ['0011223344', { name: 'Ann' }]]);
    expect(present).toEqual([{ name: 'Ann', id: '001122' }, { name: 'Ann', id: 'aa0000' }, { name: 'Zed', id: 'ffee00' }]);
  });
});
