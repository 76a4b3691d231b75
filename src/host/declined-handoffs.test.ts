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

  it('a node declined once that then acks our epoch is handed the region again; one declined twice is not', () => {
    const d = new DeclinedHandoffs(1000);
    const [a, b] = [idToHex(ids[0]!), idToHex(ids[1]!)];
    d.note(a, 0);
    d.note(b, 0);
    d.note(b, 10);
    d.hosted(a, 20);
    d.hosted(b, 20);
    expect(d.declined(ids[0]!, 30)).toBe(false);
    expect(d.declined(ids[1]!, 30)).toBe(true);
    // Declined again after its comeback: twice in a row now, its acks no longer end the note.
    d.note(a, 40);
    d.hosted(a, 50);
    expect(d.declined(ids[0]!, 60)).toBe(true);
  });
});
