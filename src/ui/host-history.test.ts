import { describe, expect, it } from 'vitest';
import { HostHistory } from './host-history';

describe('HostHistory', () => {
  it('turns counters into per-second rates, per region too, and keeps only the last samples', () => {
    const h = new HostHistory({ keep: 3 });
    h.push({ at: 0, links: 1, bytesIn: 0, bytesOut: 0, edits: 0, regionEntries: { '0,0': 5 } });
    expect(h.series.links).toEqual([]);
    h.push({ at: 2000, links: 2, bytesIn: 4096, bytesOut: 2048, edits: 6, regionEntries: { '0,0': 9, '1,0': 3 } });
    expect(h.series).toEqual({ links: [2], inKBps: [2], outKBps: [1], editsPerSec: [3] });
    expect(h.regionRates).toEqual({ '0,0': 2, '1,0': 0 });
    for (let i = 2; i <= 5; i++) h.push({ at: i * 2000, links: i + 1, bytesIn: 4096, bytesOut: 2048, edits: 6, regionEntries: {} });
    expect(h.series.links).toEqual([4, 5, 6]);
    expect(h.latest('inKBps')).toBe(0);
  });

  it('never reports a negative rate when a counter starts over', () => {
    const h = new HostHistory();
    h.push({ at: 0, links: 0, bytesIn: 5000, bytesOut: 5000, edits: 10, regionEntries: {} });
    h.push({ at: 1000, links: 0, bytesIn: 10, bytesOut: 10, edits: 0, regionEntries: {} });
    expect([h.latest('inKBps'), h.latest('outKBps'), h.latest('editsPerSec')]).toEqual([0, 0, 0]);
  });
});
