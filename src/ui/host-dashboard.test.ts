import { describe, expect, it } from 'vitest';
import { countPaths } from '../net/link-path';
import { pathSummary, relayedShare } from './host-dashboard';

describe('the dashboard counts links by how they are carried', () => {
  const links = [
    { hex: 'a', rttMs: 3, path: 'host' as const, bytes: 600 },
    { hex: 'b', rttMs: 40, path: 'relay' as const, bytes: 400 },
    { hex: 'c', rttMs: null },
  ];

  it("the share of the links' bytes that crossed a TURN relay", () => {
    expect(relayedShare(links)).toBeCloseTo(0.4);
    expect(relayedShare([])).toBe(0);
    expect(relayedShare([{ hex: 'a', rttMs: null, path: 'relay', bytes: 0 }])).toBe(0);
  });

  it('says each kind present, TURN always (a host looks for it), and the links not known yet', () => {
    const n = countPaths(links.map((l) => l.path));
    expect(pathSummary(n, relayedShare(links))).toBe('1 direct (host) · 1 through TURN (relay), 40% of link traffic · 1 not known yet');
    expect(pathSummary(countPaths([]), 0)).toBe('0 through TURN (relay), 0% of link traffic');
  });
});
