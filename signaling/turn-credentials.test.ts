import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { IceGrantSchema } from '../src/net/relay-protocol';
import { makeIceGrant, mintTurnCredential, turnConfigFrom, type TurnConfig } from './turn-credentials';

const ID = '0123456789abcdef0123456789abcdef01234567';

describe('TURN credentials (coturn use-auth-secret)', () => {
  it('match coturn\'s REST scheme: username "<expiry>:<name>", credential base64(HMAC-SHA1(secret, username))', () => {
    const c = mintTurnCredential('coturn-shared-secret', ID, 3600, 1_700_000_000_123);
    expect(c.username).toBe(`1700003600:${ID}`);
    // Computed outside Node: printf '%s' USERNAME | openssl dgst -sha1 -hmac SECRET -binary | base64
    expect(c.credential).toBe('plYeR+VmrimdrYh8Etx86+DalhQ=');
    expect(c.credential).toBe(createHmac('sha1', 'coturn-shared-secret').update(c.username).digest('base64'));
  });

  it('expire ttl seconds from now, and change with the time and the name', () => {
    const now = Date.now();
    const c = mintTurnCredential('s', ID, 600, now);
    const expiry = Number(c.username.split(':')[0]);
    expect(expiry - now / 1000).toBeGreaterThan(599);
    expect(expiry - now / 1000).toBeLessThanOrEqual(600);
    expect(mintTurnCredential('s', ID, 600, now + 1000).credential).not.toBe(c.credential);
    expect(mintTurnCredential('s', 'f'.repeat(40), 600, now).credential).not.toBe(c.credential);
  });

  it('a grant: STUN URLs as given, one TURN entry with all TURN URLs and a fresh credential, inside the tab\'s bounds', () => {
    const turn: TurnConfig = { urls: ['stun:t.example:3478', 'turn:t.example:3478?transport=udp', 'turns:t.example:5349?transport=tcp'], secret: 'k', ttlSeconds: 3600 };
    const g = makeIceGrant(turn, ID, 1_700_000_000_000);
    expect(g).toEqual({
      ttl: 3600,
      iceServers: [
        { urls: 'stun:t.example:3478' },
        { urls: ['turn:t.example:3478?transport=udp', 'turns:t.example:5349?transport=tcp'], ...mintTurnCredential('k', ID, 3600, 1_700_000_000_000) },
      ],
    });
    expect(v.safeParse(IceGrantSchema, g).success).toBe(true);
  });

  it('relay options: a secret from a file, refusals said clearly', () => {
    const dir = mkdtempSync(join(tmpdir(), 'turn-'));
    const file = join(dir, 'secret');
    writeFileSync(file, 'from-file\n');
    expect(turnConfigFrom({ urls: [] })).toBeUndefined();
    expect(turnConfigFrom({ urls: ['turn:h:3478,turns:h:5349'], secretFile: file })).toEqual({ urls: ['turn:h:3478', 'turns:h:5349'], secret: 'from-file', ttlSeconds: 86_400 });
    expect(turnConfigFrom({ urls: ['turn:h:3478'], secret: 'env', ttl: '600' })?.ttlSeconds).toBe(600);
    expect(turnConfigFrom({ urls: ['stun:h:3478'] })).toEqual({ urls: ['stun:h:3478'], secret: '', ttlSeconds: 86_400 });
    expect(() => turnConfigFrom({ urls: ['turn:h:3478'] })).toThrow(/needs the secret shared with coturn/);
    expect(() => turnConfigFrom({ urls: ['turn:h:3478'], secretFile: join(dir, 'missing') })).toThrow(/--turn-secret-file .*missing/);
    expect(() => turnConfigFrom({ urls: ['http://h'], secret: 's' })).toThrow(/--turn-url.*stun:, stuns:, turn: or turns:/);
    expect(() => turnConfigFrom({ urls: ['turn:h:3478'], secret: 's', ttl: '30' })).toThrow(/--turn-ttl is whole seconds from 60/);
    expect(() => turnConfigFrom({ urls: [], secret: 's' })).toThrow(/without --turn-url/);
  });
});
