import { describe, expect, it } from 'vitest';
import { LruMap } from './lru-map';

describe('LruMap', () => {
  it('forgets the key used least recently past its bound: get and use count as use, peek does not', () => {
    const m = new LruMap<string, number>(3);
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3);
    expect(m.get('a')).toBe(1); // a used: b is now the oldest
    expect(m.peek('b')).toBe(2); // not a use
    m.set('d', 4);
    expect(m.peek('b')).toBeUndefined();
    expect([m.peek('a'), m.peek('c'), m.peek('d')]).toEqual([1, 3, 4]);
    expect(m.use('c', () => 9)).toBe(3); // held: not made again, and used
    expect(m.use('e', () => 5)).toBe(5); // made; a (oldest) forgotten
    expect(m.peek('a')).toBeUndefined();
    expect(m.size).toBe(3);
    m.set('c', 7); // set again: a use, same size
    m.set('f', 6); // d forgotten, not c
    expect([m.peek('c'), m.peek('d'), m.peek('e'), m.peek('f')]).toEqual([7, undefined, 5, 6]);
    expect(m.get('zz')).toBeUndefined();
    m.delete('e');
    expect(m.size).toBe(2);
    m.clear();
    expect([m.size, m.peek('c')]).toEqual([0, undefined]);
  });
});
