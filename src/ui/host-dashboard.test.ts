import { describe, expect, it } from 'vitest';
import { countPaths } from '../net/link-path';
import { pathSummary, presentText, relayedShare } from './host-dashboard';

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

describe('the players standing in a hosted region', () => {
  it('are listed by name then short id; a cut list says how many more; a backup knows no names', () => {
    const present = [{ name: 'Ann', id: '001122' }, { name: 'Ann', id: 'aa0000' }, { name: 'Zed', id: 'ffee00' }];
    expect(presentText({ role: 'primary', present, presentCount: 3 })).toBe('Ann (001122), Ann (aa0000), Zed (ffee00)');
    expect(presentText({ role: 'primary', present: present.slice(0, 1), presentCount: 40 })).toBe('Ann (001122) and 39 more');
    expect(presentText({ role: 'primary', present: [], presentCount: 0 })).toBe('-');
    expect(presentText({ role: 'backup', present: [], presentCount: 0 })).toBe('known to the primary');
  });
});
