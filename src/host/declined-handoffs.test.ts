import { describe, expect, it } from 'vitest';
import { idToHex, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { DECLINED_MAX, DeclinedHandoffs } from './declined-handoffs';

describe('declined handoffs', () => {
  const rand = seededRandom(5);
  const ids = Array.from({ length: DECLINED_MAX + 2 }, () => randomId(rand));

  it('a noted node is declined for its time, then no more', () => {
    const d = new DeclinedHandoffs(1000);
    d.note(idToHex(ids[0]!), 0);
    expect(d.declined(ids[0]!, 999)).toBe(true);
    expect(d.declined(ids[1]!, 10)).toBe(false);
    expect(d.declined(ids[0]!, 1000)).toBe(false);
  });

  it('keeps at most DECLINED_MAX nodes per region, the oldest noted dropped first', () => {
    const d = new DeclinedHandoffs(1000);
    ids.forEach((id, i) => d.note(idToHex(id), i));
    expect(ids.filter((id) => d.declined(id, 100)).length).toBe(DECLINED_MAX);
    expect(d.declined(ids[0]!, 100)).toBe(false);
    expect(d.declined(ids.at(-1)!, 100)).toBe(true);
  });
});
