// NodeNotes: a note lasts its time, a note again starts it over, and a region keeps at most
// its bound, the oldest note dropped first.
import { describe, expect, it } from 'vitest';
import { hexToId } from '../core/node-id';
import { NodeNotes, NOTES_MAX } from './node-notes';

const hex = (i: number) => i.toString(16).padStart(40, '0');

describe('NodeNotes', () => {
  it('a note lasts forMs, and noting again starts it over', () => {
    const notes = new NodeNotes(100);
    notes.note(hex(1), 0);
    expect(notes.noted(hexToId(hex(1)), 99)).toBe(true);
    notes.note(hex(1), 50);
    expect(notes.notedHex(hex(1), 149)).toBe(true);
    expect(notes.notedHex(hex(1), 150)).toBe(false);
    expect(notes.all(150)).toEqual([]);
  });

  it('keeps at most its bound (NOTES_MAX unless given), the oldest dropped first', () => {
    const few = new NodeNotes(1000), many = new NodeNotes(1000, 64);
    for (let i = 1; i <= 70; i++) {
      few.note(hex(i), i);
      many.note(hex(i), i);
    }
    expect(few.all(100)).toEqual([67, 68, 69, 70].map(hex));
    expect(few.all(100)).toHaveLength(NOTES_MAX);
    expect(many.all(100)).toHaveLength(64);
    expect(many.notedHex(hex(6), 100)).toBe(false);
    expect(many.notedHex(hex(7), 100)).toBe(true);
  });
});
