import { describe, expect, it } from 'vitest';
import { checkIceServers, iceServersFromUrls, MAX_ICE_SERVERS, mergeIceServers, parseIcePolicy, parseIceServersJson } from './ice-servers';

const turn = (host: string, username = 'u', credential = 'c') => ({ urls: [`turn:${host}:3478?transport=udp`, `turns:${host}:5349?transport=tcp`], username, credential });

describe('ICE server lists', () => {
  it('take STUN and TURN entries as RTCIceServer', () => {
    const list = [{ urls: 'stun:stun.example.org:3478' }, turn('turn.example.org')];
    expect(checkIceServers(list, 'x')).toEqual(list);
    expect(parseIceServersJson(JSON.stringify(list), 'VITE_ICE_SERVERS')).toEqual(list);
    expect(parseIceServersJson(undefined, 'VITE_ICE_SERVERS')).toEqual([]);
    expect(parseIceServersJson('  ', 'VITE_ICE_SERVERS')).toEqual([]);
  });

  it('refuse malformed ones, saying where and why', () => {
    const bad: [unknown, RegExp][] = [
      [{ urls: 'stun:x' }, /x: .*array/i],
      [[{ urls: 'http://x' }], /x\[0\]\.urls.*stun:, stuns:, turn: or turns:/],
      [[{ urls: 'turn:x:3478' }], /x\[0\]: a turn: or turns: server needs username and credential/],
      [[{ urls: ['turn:x:3478'], username: 'u' }], /needs username and credential/],
      [[{ urls: [] }], /urls is empty|urls/],
      [[{ urls: 'stun:x', username: '' }], /username is empty/],
      [[{ urls: 'stun:x', extra: 1 }], /x\[0\]/],
      [[{ urls: 7 }], /urls/],
      [['stun:x'], /x\[0\]/],
    ];
    for (const [value, why] of bad) expect(() => checkIceServers(value, 'x'), JSON.stringify(value)).toThrow(why);
    expect(() => parseIceServersJson('[{urls:1}]', 'VITE_ICE_SERVERS')).toThrow(/VITE_ICE_SERVERS is not JSON/);
  });

  it('refuse oversize ones: too many servers, URLs, or characters', () => {
    expect(() => checkIceServers(Array.from({ length: MAX_ICE_SERVERS + 1 }, (_, i) => ({ urls: `stun:s${i}` })), 'x')).toThrow(/at most 8 ICE servers/);
    expect(() => checkIceServers([{ urls: ['stun:a', 'stun:b', 'stun:c', 'stun:d', 'stun:e'] }], 'x')).toThrow(/at most 4 urls/);
    expect(() => checkIceServers([{ urls: `stun:${'a'.repeat(300)}` }], 'x')).toThrow(/at most 256 characters/);
    expect(() => checkIceServers([turn('x', 'u', 'c'.repeat(257))], 'x')).toThrow(/credential is at most 256/);
  });

  it('policy: relay or all, anything else refused', () => {
    expect(parseIcePolicy(undefined, 'p')).toBe('all');
    expect(parseIcePolicy('relay', 'p')).toBe('relay');
    expect(parseIcePolicy('all', 'p')).toBe('all');
    expect(() => parseIcePolicy('relai', 'VITE_ICE_POLICY')).toThrow(/VITE_ICE_POLICY is 'relay' or 'all'/);
  });

  it('from plain URLs: the user and credential go to the TURN URLs only', () => {
    expect(iceServersFromUrls(['stun:a:3478', 'turn:b:3478?transport=udp', 'turns:b:5349'], 'u', 'p')).toEqual([
      { urls: 'stun:a:3478' },
      { urls: ['turn:b:3478?transport=udp', 'turns:b:5349'], username: 'u', credential: 'p' },
    ]);
    expect(() => iceServersFromUrls(['turn:b:3478'])).toThrow(/--ice\[0\]: a turn: or turns: server needs username and credential/);
  });

  it('merge: own entries first, then granted ones; a granted entry replaces an own one naming the same URL', () => {
    const stun = { urls: 'stun:a:3478' };
    const staleTurn = turn('t', 'old', 'old');
    const freshTurn = turn('t', 'new', 'new');
    const other = turn('o');
    expect(mergeIceServers([stun, staleTurn], [freshTurn])).toEqual([stun, freshTurn]);
    expect(mergeIceServers([stun], [other, freshTurn])).toEqual([stun, other, freshTurn]);
    expect(mergeIceServers([stun], [])).toEqual([stun]);
    expect(mergeIceServers([], [freshTurn])).toEqual([freshTurn]);
    // Over the cap: the granted ones (the TURN relay) stay, own ones are cut.
    const own = Array.from({ length: 7 }, (_, i) => ({ urls: `stun:s${i}` }));
    const merged = mergeIceServers(own, [freshTurn, other]);
    expect(merged).toHaveLength(MAX_ICE_SERVERS);
    expect(merged.slice(-2)).toEqual([freshTurn, other]);
  });
});
