import { describe, expect, it } from 'vitest';
import { countPaths, pathKind, selectedPath, type LinkPath } from './link-path';

/** Stats as Chromium reports a link: a transport naming its selected pair, and a pair not chosen. */
function chromiumReport(local: string, remote: string, extra: Record<string, unknown> = {}) {
  return [
    { id: 'T01', type: 'transport', selectedCandidatePairId: 'CPa_b' },
    { id: 'CPx_y', type: 'candidate-pair', localCandidateId: 'Ix', remoteCandidateId: 'Iy', nominated: false, state: 'failed' },
    { id: 'CPa_b', type: 'candidate-pair', localCandidateId: 'Ia', remoteCandidateId: 'Ib', nominated: true, state: 'succeeded' },
    { id: 'Ix', type: 'local-candidate', candidateType: 'host', protocol: 'udp' },
    { id: 'Iy', type: 'remote-candidate', candidateType: 'host', protocol: 'udp' },
    { id: 'Ia', type: 'local-candidate', candidateType: local, protocol: 'udp', ...extra },
    { id: 'Ib', type: 'remote-candidate', candidateType: remote, protocol: 'udp' },
  ];
}

describe('selectedPath', () => {
  it("reads the transport's selected pair, not another pair", () => {
    expect(selectedPath(chromiumReport('relay', 'srflx', { relayProtocol: 'tcp' }))).toEqual({ local: 'relay', remote: 'srflx', protocol: 'udp', relayProtocol: 'tcp' });
    expect(selectedPath(chromiumReport('srflx', 'host'))).toEqual({ local: 'srflx', remote: 'host', protocol: 'udp' });
  });

  it("reads Firefox's `selected` pair when no transport names one", () => {
    const r = chromiumReport('host', 'prflx').filter((s) => s.type !== 'transport').map((s) => (s.id === 'CPa_b' ? { ...s, selected: true, nominated: false } : s));
    expect(selectedPath(r)).toEqual({ local: 'host', remote: 'prflx', protocol: 'udp' });
  });

  it('falls back to a nominated pair that succeeded', () => {
    const r = chromiumReport('srflx', 'srflx').filter((s) => s.type !== 'transport');
    expect(selectedPath(r)?.local).toBe('srflx');
  });

  it('is undefined while no pair is chosen, or for a candidate of an unknown type', () => {
    expect(selectedPath(chromiumReport('host', 'host').filter((s) => s.type !== 'transport' && s.id !== 'CPa_b'))).toBeUndefined();
    expect(selectedPath([])).toBeUndefined();
    expect(selectedPath(chromiumReport('bogus', 'host'))).toBeUndefined();
  });
});

describe('pathKind and countPaths', () => {
  it('names a link by the end that costs most: a relay at either end makes it relayed', () => {
    expect(pathKind({ local: 'host', remote: 'relay' })).toBe('relay');
    expect(pathKind({ local: 'srflx', remote: 'prflx' })).toBe('srflx');
    expect(pathKind({ local: 'host', remote: 'prflx' })).toBe('prflx');
    expect(pathKind({ local: 'host', remote: 'host' })).toBe('host');
  });

  it('counts links by kind, the ones without stats as unknown', () => {
    const links: (LinkPath | undefined)[] = [{ local: 'host', remote: 'host', protocol: 'udp' }, { local: 'relay', remote: 'host', protocol: 'udp' }, { local: 'srflx', remote: 'relay', protocol: 'tcp' }, undefined];
    const n = countPaths(links.map((p) => p && pathKind(p)));
    expect(n).toEqual({ host: 1, srflx: 0, prflx: 0, relay: 2, unknown: 1 });
  });
});
