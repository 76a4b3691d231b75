import { describe, expect, it } from 'vitest';
import { pageDoorways, parsePageConfig, touchOnlyDevice } from './config';

describe('page config', () => {
  it('reads world and seed from the fragment, knobs from the query, and rejects junk names', () => {
    expect(parsePageConfig('http://localhost:8080/')).toMatchObject({ world: 'populi', seed: 'populi', renderDistance: undefined, headless: false });
    expect(parsePageConfig('http://x/?rd=3&render=off#world=alps&seed=42')).toMatchObject({ world: 'alps', seed: '42', renderDistance: 3, headless: true });
    expect(parsePageConfig('http://x/?rd=99#world=a%20b<script>').world).toBe('populi');
    expect(parsePageConfig('http://x/?rd=99').renderDistance).toBe(16);
  });

  it('?fps=N limits the frames drawn for the page load, bounded 10-240; anything else leaves the setting', () => {
    expect(parsePageConfig('http://x/?fps=15').maxFps).toBe(15);
    expect(parsePageConfig('http://x/?fps=5').maxFps).toBe(undefined);
    expect(parsePageConfig('http://x/?fps=10').maxFps).toBe(10);
    expect(parsePageConfig('http://x/?fps=999').maxFps).toBe(240);
    for (const bad of ['', 'x', '1e3', '-30', '30.5']) expect(parsePageConfig(`http://x/?fps=${bad}`).maxFps, bad).toBe(undefined);
  });

  it('plays without hosting on ?hosting=play (a read-only DHT node), hosts by default, plays alone on ?hosting=off', () => {
    expect(parsePageConfig('http://x/?hosting=play')).toMatchObject({ hosting: true, playOnly: true });
    expect(parsePageConfig('http://x/')).toMatchObject({ hosting: true, playOnly: false });
    expect(parsePageConfig('http://x/?hosting=off')).toMatchObject({ hosting: false, playOnly: false });
  });

  it('a phone or tablet plays without hosting by default; ?hosting=on or =off overrides it', () => {
    const phone = { touchOnly: true };
    expect(parsePageConfig('http://x/', {}, phone)).toMatchObject({ hosting: true, playOnly: true, hostingChosen: 'touch-device' });
    expect(parsePageConfig('http://x/?hosting=on', {}, phone)).toMatchObject({ hosting: true, playOnly: false, hostingChosen: 'asked' });
    expect(parsePageConfig('http://x/?hosting=off', {}, phone)).toMatchObject({ hosting: false, playOnly: false, hostingChosen: 'asked' });
    expect(parsePageConfig('http://x/?hosting=junk', {}, phone)).toMatchObject({ hosting: true, playOnly: true, hostingChosen: 'touch-device' });
    expect(parsePageConfig('http://x/', {}, { touchOnly: false })).toMatchObject({ hosting: true, playOnly: false, hostingChosen: 'default' });
  });

  it('tells a phone from media queries: a coarse primary pointer and no fine one (a touch laptop has its trackpad)', () => {
    const device = (...matching: string[]) => touchOnlyDevice((q) => matching.includes(q));
    expect(device('(pointer: coarse)')).toBe(true);
    expect(device('(pointer: coarse)', '(any-pointer: fine)')).toBe(false);
    expect(device('(pointer: fine)', '(any-pointer: fine)')).toBe(false);
    expect(device()).toBe(false);
  });

  it('fixes the time of day on ?daytime=F (a fraction of the day), turns the sky otherwise, and ignores junk', () => {
    expect(parsePageConfig('http://x/?daytime=0.5').dayFraction).toBe(0.5);
    expect(parsePageConfig('http://x/?daytime=1').dayFraction).toBe(1);
    expect(parsePageConfig('http://x/').dayFraction).toBeUndefined();
    for (const junk of ['1.5', '-0.2', 'noon', '0.5e3', '']) expect(parsePageConfig(`http://x/?daytime=${junk}`).dayFraction).toBeUndefined();
  });

  it('chooses the doorways: fragment, then query, then build-time defaults, then the page relay', () => {
    expect(parsePageConfig('https://x.org/').relayUrl).toBe('wss://x.org/relay');
    expect(parsePageConfig('http://x/?relay=javascript:alert(1)').relayUrl).toBe('ws://x/relay');
    expect(parsePageConfig('http://x/?relay=ws://q/relay#relay=ws://f/relay').relayUrl).toBe('ws://f/relay');
    expect(parsePageConfig('http://x/', { relay: 'wss://r.example/relay' }).relayUrl).toBe('wss://r.example/relay');
    const peerjsOnly = parsePageConfig('http://x/#relay=none&peerjs=http://127.0.0.1:9000/vp', {});
    expect(peerjsOnly).toMatchObject({ relayUrl: null, peerjsUrl: 'http://127.0.0.1:9000/vp' });
    expect(pageDoorways(peerjsOnly)).toEqual([{ kind: 'peerjs', url: 'http://127.0.0.1:9000/vp' }]);
    expect(pageDoorways(parsePageConfig('http://x/', { peerjs: 'https://b.example/' }))).toEqual([
      { kind: 'relay', url: 'ws://x/relay' }, { kind: 'peerjs', url: 'https://b.example/' },
    ]);
    expect(parsePageConfig('http://x/#peerjs=ftp://nope').peerjsUrl).toBeUndefined();
  });

  it('ICE servers from the deploy only (never a URL); the relay-only policy from the deploy or ?ice=relay, never relaxed by a URL', () => {
    const deploy = { iceServers: [{ urls: 'stun:s.example:3478' }] };
    const fromUrl = parsePageConfig('http://h/?ice=relay&iceServers=x#world=a&iceServers=%5B%5D', deploy);
    expect(fromUrl.iceServers).toEqual(deploy.iceServers);
    expect(fromUrl.icePolicy).toBe('relay');
    expect(parsePageConfig('http://h/#world=a').icePolicy).toBe('all');
    expect(parsePageConfig('http://h/#world=a').iceServers).toEqual([]);
    expect(parsePageConfig('http://h/?ice=all#world=a', { icePolicy: 'relay' }).icePolicy).toBe('relay');
  });
});
