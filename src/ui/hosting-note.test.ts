import { describe, expect, it } from 'vitest';
import { hostHereUrl, NO_HOST_MS, noHostReachable } from './hosting-note';

describe('hosting note', () => {
  it('hosting from this device is the same link with ?hosting=on, the world and the rest kept', () => {
    expect(hostHereUrl('https://vp.example/?hosting=play&rd=2#world=w&seed=s')).toBe('https://vp.example/?hosting=on&rd=2#world=w&seed=s');
    expect(hostHereUrl('https://vp.example/#world=w')).toBe('https://vp.example/?hosting=on#world=w');
  });

  it('no host is reachable when none serves a region around the player: at once when alone, else after NO_HOST_MS', () => {
    expect(noHostReachable({ alone: true, anyServed: false, sinceStartMs: 0 })).toBe(true);
    expect(noHostReachable({ alone: false, anyServed: false, sinceStartMs: NO_HOST_MS - 1 })).toBe(false);
    expect(noHostReachable({ alone: false, anyServed: false, sinceStartMs: NO_HOST_MS })).toBe(true);
    expect(noHostReachable({ alone: true, anyServed: true, sinceStartMs: NO_HOST_MS * 9 })).toBe(false);
  });
});
