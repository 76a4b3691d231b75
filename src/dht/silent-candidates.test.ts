import { describe, expect, it } from 'vitest';
import { SilentCandidates } from './silent-candidates';

describe('SilentCandidates', () => {
  it('holds a node given up until it answers or forMs pass, and at most 256 of them', () => {
    let now = 0;
    const s = new SilentCandidates(() => now, 15_000);
    s.gaveUp('a');
    s.gaveUp('b');
    expect(s.has('a')).toBe(true);
    s.answered('a');
    expect(s.has('a')).toBe(false);
    now = 14_999;
    expect(s.has('b')).toBe(true);
    now = 15_000;
    expect(s.has('b')).toBe(false);
    expect(s.size).toBe(0);
    for (let i = 0; i < 300; i++) s.gaveUp(`n${i}`);
    expect(s.size).toBe(256);
    expect(s.has('n0')).toBe(false);
    expect(s.has('n299')).toBe(true);
  });
});
