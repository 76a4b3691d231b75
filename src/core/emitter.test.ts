import { describe, expect, it } from 'vitest';
import { Emitter } from './emitter';

describe('Emitter', () => {
  it('calls the listeners an emit began with; on and off during it count from the next emit', () => {
    const e = new Emitter<{ x: number }>();
    const log: string[] = [];
    const offB = e.on('x', () => log.push('b'));
    e.on('x', (n) => {
      log.push(`a${n}`);
      if (n === 1) {
        offB();
        e.on('x', () => log.push('c'));
      }
    });
    // b was first, so it ran before a removed it; emit 2 has a and c, not b.
    e.emit('x', 1);
    expect(log).toEqual(['b', 'a1']);
    const offLate = e.on('x', () => log.push('d'));
    offLate();
    e.emit('x', 2);
    expect(log).toEqual(['b', 'a1', 'a2', 'c']);
  });

  it('a listener removed by an earlier one during an emit is still called in it', () => {
    const e = new Emitter<{ x: number }>();
    const log: string[] = [];
    let offB = () => {};
    e.on('x', () => {
      log.push('a');
      offB();
    });
    offB = e.on('x', () => log.push('b'));
    e.emit('x', 1);
    e.emit('x', 2);
    expect(log).toEqual(['a', 'b', 'a']);
    expect(e.has('x')).toBe(true);
    e.removeAll();
    expect(e.has('x')).toBe(false);
  });
});
