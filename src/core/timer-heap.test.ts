import { describe, expect, it } from 'vitest';
import { randomInt, seededRandom } from './seeded-random';
import { TimerHeap } from './timer-heap';

interface Entry {
  due: number;
  seq: number;
}
const before = (a: Entry, b: Entry) => a.due < b.due || (a.due === b.due && a.seq < b.seq);

describe('TimerHeap', () => {
  it('is empty at first: no size, nothing to peek or pop', () => {
    const h = new TimerHeap<number>((a, b) => a < b);
    expect(h.size).toBe(0);
    expect(h.peek()).toBeUndefined();
    expect(h.pop()).toBeUndefined();
  });

  it('hands entries back in the order `before` gives, pushes and pops interleaved', () => {
    const rand = seededRandom(7);
    const h = new TimerHeap<Entry>(before);
    const model: Entry[] = [];
    let seq = 0;
    const out: Entry[] = [];
    const expected: Entry[] = [];
    for (let step = 0; step < 5000; step++) {
      if (model.length === 0 || rand() < 0.55) {
        // Few distinct dues, so many ties that only `seq` orders.
        const e = { due: randomInt(rand, 0, 40), seq: seq++ };
        h.push(e);
        model.push(e);
      } else {
        model.sort((a, b) => (before(a, b) ? -1 : 1));
        expected.push(model.shift()!);
        expect(h.peek()).toBe(expected[expected.length - 1]);
        out.push(h.pop()!);
      }
      expect(h.size).toBe(model.length);
    }
    while (h.size > 0) out.push(h.pop()!);
    model.sort((a, b) => (before(a, b) ? -1 : 1));
    expected.push(...model);
    expect(out).toEqual(expected);
    expect(out.length).toBe(seq);
  });

  it('retain drops the entries it is told to and keeps the rest in order', () => {
    const rand = seededRandom(11);
    const h = new TimerHeap<number>((a, b) => a < b);
    const all = Array.from({ length: 300 }, () => randomInt(rand, 0, 1_000_000));
    for (const x of all) h.push(x);
    h.retain((x) => x % 3 !== 0);
    const kept = all.filter((x) => x % 3 !== 0).sort((a, b) => a - b);
    expect(h.size).toBe(kept.length);
    const out: number[] = [];
    for (let x = h.pop(); x !== undefined; x = h.pop()) out.push(x);
    expect(out).toEqual(kept);
  });
});
