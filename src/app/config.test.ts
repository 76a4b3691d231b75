import { describe, expect, it } from 'vitest';
import { inviteLink, parsePageConfig } from './config';

describe('page config', () => {
  it('reads world and seed from the fragment, knobs from the query, and rejects junk names', () => {
    expect(parsePageConfig('http://localhost:8080/')).toMatchObject({ world: 'populi', seed: 'populi', renderDistance: undefined, headless: false });
    expect(parsePageConfig('http://x/?rd=3&render=off#world=alps&seed=42')).toMatchObject({ world: 'alps', seed: '42', renderDistance: 3, headless: true });
    expect(parsePageConfig('http://x/?rd=99#world=a%20b<script>').world).toBe('populi');
    expect(parsePageConfig('http://x/?rd=99').renderDistance).toBe(16);
  });

  it('builds invite links that parse back to the same world, relay and inviter', () => {
    const inviter = 'ab'.repeat(20);
    const link = inviteLink('http://127.0.0.1:8080/?rd=3', { world: 'alps', seed: 's 1', relayUrl: 'ws://127.0.0.1:8080/relay' }, inviter);
    expect(parsePageConfig(link)).toMatchObject({ world: 'alps', seed: 's 1', relayUrl: 'ws://127.0.0.1:8080/relay', invitePeer: inviter, net: true });
    expect(parsePageConfig('https://x.org/#peer=zz').invitePeer).toBeUndefined();
    expect(parsePageConfig('https://x.org/').relayUrl).toBe('wss://x.org/relay');
    expect(parsePageConfig('http://x/?relay=javascript:alert(1)').relayUrl).toBe('ws://x/relay');
  });
});
