import { describe, expect, it } from 'vitest';
import { ItemAppearances, MAX_APPEARANCES } from './item-appearances';

describe('ItemAppearances', () => {
  it('a tab that draws: the first frame that shows the item; one that does not: when its clock read `at`; learned after `at`: late', () => {
    const origin = 1_000_000;
    const drawing = new ItemAppearances(origin, true);
    const idle = new ItemAppearances(origin, false);
    const a = { id: 'a', at: 5000 };
    // World time = local + 4000 in both tabs; the item is announced before it is due.
    for (const t of [drawing, idle]) t.check([a], 900, 4900);
    expect(drawing.list()).toEqual([]);
    for (const t of [drawing, idle]) t.check([a], 1017, 5017);
    expect(drawing.list()).toEqual([{ id: 'a', at: 5000, shownMs: origin + 1017, late: false, drawn: true }]);
    expect(idle.list()).toEqual([{ id: 'a', at: 5000, shownMs: origin + 1000, late: false, drawn: false }]);
    // Seen once only; a drop makes it appear again at a later `at`.
    idle.check([a, { id: 'a', at: 9000 }, { id: 'b', at: 5500 }], 1600, 5600); // b was never announced here: late
    idle.check([{ id: 'a', at: 9000 }], 5050, 9050);
    expect(idle.list().map((x) => [x.id, x.at, x.shownMs - origin, x.late])).toEqual([['a', 5000, 1000, false], ['b', 5500, 1600, true], ['a', 9000, 5000, false]]);
  });

  it('keeps at most MAX_APPEARANCES, the oldest forgotten', () => {
    const t = new ItemAppearances(0, false);
    for (let i = 0; i < MAX_APPEARANCES + 10; i++) t.check([{ id: `i${i}`, at: i }], i, i);
    expect(t.list()).toHaveLength(MAX_APPEARANCES);
    expect(t.list()[0]!.id).toBe('i10');
  });
});
