import { describe, expect, it } from 'vitest';
import { generateIdentity } from '../core/identity';
import { identityFileName, IdentityImportError, parseIdentityText } from './identity-panel';

describe('identity import text', () => {
  it('accepts an exported identity', async () => {
    const me = await generateIdentity();
    const json = await parseIdentityText(`  ${JSON.stringify(await me.toJson(), null, 2)}\n`);
    expect(json.alg).toBe(me.alg);
  });

  it('explains what is wrong with bad input', async () => {
    await expect(parseIdentityText('   ')).rejects.toThrow(/Paste an exported identity/);
    await expect(parseIdentityText('{"v":1,')).rejects.toThrow(/not JSON/);
    await expect(parseIdentityText('{"hello":"world"}')).rejects.toThrow(/Not a usable identity/);
    await expect(parseIdentityText('x'.repeat(20_000))).rejects.toBeInstanceOf(IdentityImportError);
    const a = await (await generateIdentity()).toJson();
    const b = await (await generateIdentity({ alg: a.alg })).toJson();
    await expect(parseIdentityText(JSON.stringify({ ...a, publicJwk: b.publicJwk }))).rejects.toThrow(/do not match/);
  });

  it('names the file after the player', () => {
    expect(identityFileName('0123456789abcdef')).toBe('voxel-populi-player-01234567.json');
  });
});
