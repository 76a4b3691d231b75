import { describe, expect, it } from 'vitest';
import { presentPlayers } from './hosting-api';

describe('the players standing in a hosted region', () => {
  it('by name, then by the 6 hex of their node id (two of one name told apart)', () => {
    const present = presentPlayers([['ffee00aa11', { look: { n: 'Zed' } }], ['aa00000000', { look: { n: 'Ann' } }], ['0011223344', { look: { n: 'Ann' } }], ['5566778899', { look: undefined }]]);
    expect(present).toEqual([{ name: '? 556677', id: '556677' }, { name: 'Ann', id: '001122' }, { name: 'Ann', id: 'aa0000' }, { name: 'Zed', id: 'ffee00' }]);
  });
});
