import { describe, expect, it } from 'vitest';
import { iceFromFlags, nodeDatachannelIceServers } from './headless-ice';

describe('the headless peer\'s ICE flags', () => {
  it('STUN and TURN URLs, the user and credential for the TURN ones; or JSON', () => {
    expect(iceFromFlags({})).toEqual({ iceServers: [], icePolicy: 'all' });
    expect(iceFromFlags({ ice: 'stun:s:3478' })).toEqual({ iceServers: [{ urls: 'stun:s:3478' }], icePolicy: 'all' });
    expect(iceFromFlags({ ice: 'stun:s:3478,turn:t:3478?transport=udp', user: 'u', credential: 'p', policy: 'relay' })).toEqual({
      iceServers: [{ urls: 'stun:s:3478' }, { urls: ['turn:t:3478?transport=udp'], username: 'u', credential: 'p' }],
      icePolicy: 'relay',
    });
    const json = [{ urls: 'turns:t:5349', username: 'a', credential: 'b' }];
    expect(iceFromFlags({ ice: JSON.stringify(json) }).iceServers).toEqual(json);
  });

  it('refuses what would fail later, saying why', () => {
    expect(() => iceFromFlags({ ice: 'turn:t:3478' })).toThrow(/needs username and credential/);
    expect(() => iceFromFlags({ ice: 'stun:s', user: 'u', credential: 'p' })).toThrow(/need a turn: or turns: URL/);
    expect(() => iceFromFlags({ ice: '[{"urls":"turn:t"}]', user: 'u' })).toThrow(/in a JSON --ice write username/);
    expect(() => iceFromFlags({ ice: 'http://x' })).toThrow(/--ice\[0\]\.urls/);
    expect(() => iceFromFlags({ policy: 'none' })).toThrow(/--ice-policy is 'relay' or 'all'/);
  });

  it('percent-encodes username and credential for node-datachannel (its URL form splits at ":"), reversibly', () => {
    const s = { urls: ['turn:t:3478'], username: '1700003600:0123abcd', credential: 'plYeR+Vmr/mdrYh8Etx86+DalhQ=' };
    const [enc] = nodeDatachannelIceServers([s, { urls: 'stun:s' }]);
    expect(enc!.username).toBe('1700003600%3A0123abcd');
    expect(enc!.username).not.toMatch(/[:@]/);
    expect(enc!.credential).not.toMatch(/[:@/+=]/);
    expect(decodeURIComponent(enc!.credential!)).toBe(s.credential);
    expect(nodeDatachannelIceServers([{ urls: 'stun:s' }])).toEqual([{ urls: 'stun:s' }]);
  });
});
