import { describe, expect, it } from 'vitest';
import { ICE_SETTINGS_KEY, loadIceSettings, parseUrlList, saveIceSettings, storedIceServers, type IceSettingsStorage } from './ice-settings';
import { memoryStorage } from '../testing/memory-storage';

describe("the player's own ICE servers", () => {
  it('kept and read back as RTCIceServers: STUN bare, TURN with the username and password', () => {
    const s = memoryStorage();
    expect(storedIceServers(s)).toEqual([]);
    const urls = parseUrlList('stun:stun.example.org:3478,\n turn:turn.example.org:3478?transport=udp  turns:turn.example.org:5349');
    expect(saveIceSettings(s, { urls, username: 'ann', credential: 'secret' })).toBeUndefined();
    expect(storedIceServers(s)).toEqual([
      { urls: 'stun:stun.example.org:3478' },
      { urls: ['turn:turn.example.org:3478?transport=udp', 'turns:turn.example.org:5349'], username: 'ann', credential: 'secret' },
    ]);
    expect(saveIceSettings(s, { urls: [], username: '', credential: '' })).toBeUndefined(); // cleared
    expect(storedIceServers(s)).toEqual([]);
  });

  it('refuses what a browser would throw on, saying why, and keeps the last good value', () => {
    const s = memoryStorage();
    expect(saveIceSettings(s, { urls: ['stun:ok.example.org'], username: '', credential: '' })).toBeUndefined();
    expect(saveIceSettings(s, { urls: ['turn:turn.example.org'], username: '', credential: '' })).toMatch(/needs username and credential/);
    expect(saveIceSettings(s, { urls: ['http://example.org'], username: '', credential: '' })).toMatch(/stun:, stuns:, turn: or turns:/);
    expect(saveIceSettings(s, { urls: Array.from({ length: 9 }, (_, i) => `stun:s${i}.example.org`), username: '', credential: '' })).toMatch(/at most 8/);
    expect(storedIceServers(s)).toEqual([{ urls: 'stun:ok.example.org' }]);
  });

  it('a stored value that is no longer valid (a hand edit, an old version) or storage that throws gives none', () => {
    const s = memoryStorage();
    s.map.set(ICE_SETTINGS_KEY, JSON.stringify({ urls: ['turn:x.example.org'] }));
    expect(storedIceServers(s)).toEqual([]);
    s.map.set(ICE_SETTINGS_KEY, '{not json');
    expect(loadIceSettings(s).urls).toEqual([]);
    const refusing: IceSettingsStorage = { getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('quota'); } };
    expect(storedIceServers(refusing)).toEqual([]);
    expect(saveIceSettings(refusing, { urls: ['stun:a.example.org'], username: '', credential: '' })).toMatch(/refused/);
  });
});
