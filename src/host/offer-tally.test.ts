import { describe, expect, it } from 'vitest';
import type { Entry } from '../region/region-state';
import { OfferTally, type OfferSet } from './offer-tally';

const hosts: OfferSet = { name: 'hosts', hosts: ['p', 'a', 'b'] };
const prev: OfferSet = { name: 'prev', hosts: ['a', 'c', 'd', 'e', 'f'] };
const entry = (key: number, s = 1, id = 2): Entry => ({ key, id, e: 3, s });

function tally(perHost = 100, ttlMs = 1000) {
  const stats = { offersUnmatched: 0 };
  return { t: new OfferTally({ perHost, ttlMs }, stats), stats };
}

describe('OfferTally', () => {
  it('adopts an entry only once a majority of one set offered the identical entry', () => {
    const { t } = tally();
    expect(t.add('a', [hosts], [entry(1), entry(2)], 0)).toEqual([]);
    expect(t.add('a', [hosts], [entry(1)], 10), 'the same host again counts once').toEqual([]);
    // Another stamp, or another block id, is another entry.
    expect(t.add('b', [hosts], [entry(2, 2), entry(1, 1, 5)], 20)).toEqual([]);
    expect(t.add('b', [hosts], [entry(1)], 30)).toEqual([entry(1)]);
    expect(t.add('p', [hosts], [entry(1)], 40), 'ended at the majority: a new tally').toEqual([]);
  });

  it('counts a host only in the sets that name it, and each set for itself', () => {
    const { t } = tally();
    const sets = [hosts, prev];
    expect(t.add('x', sets, [entry(1)], 0), 'named by neither').toEqual([]);
    expect(t.add('a', sets, [entry(1)], 0)).toEqual([]);
    // b is of `hosts` only: with a it makes 2 of 3 there.
    expect(t.add('b', sets, [entry(1)], 0)).toEqual([entry(1)]);
    // The previous set needs 3 of its 5: a (tallied before), c, d.
    expect(t.add('c', sets, [entry(1)], 0)).toEqual([]);
    expect(t.add('d', sets, [entry(1)], 0)).toEqual([entry(1)]);
  });

  it('bounds what one host starts, and drops (counted) what no majority offered in time', () => {
    const { t, stats } = tally(2, 1000);
    expect(t.add('a', [hosts], [entry(1), entry(2), entry(3)], 0)).toEqual([]);
    expect(stats.offersUnmatched, 'over its bound').toBe(1);
    expect(t.size).toBe(2);
    expect(t.add('b', [hosts], [entry(3)], 500), 'b starts its own').toEqual([]);
    expect(t.add('a', [hosts], [entry(4)], 500), 'a holds its bound still').toEqual([]);
    expect(stats.offersUnmatched).toBe(2);
    // At 1000 ms a's two tallies age out; b's (500) lives on, and a may start again.
    expect(t.add('a', [hosts], [entry(3)], 1000)).toEqual([entry(3)]);
    expect(stats.offersUnmatched).toBe(4);
    expect(t.size).toBe(0);
    t.add('a', [hosts], [entry(5)], 1000);
    t.clear();
    expect(stats.offersUnmatched).toBe(5);
    expect(t.size).toBe(0);
  });
});
