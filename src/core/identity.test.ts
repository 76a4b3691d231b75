import { describe, expect, it } from 'vitest';
import { idFromSha256, idEquals, ID_BYTES } from './node-id';
import {
  generateIdentity, generateNodeIdentity, hasEd25519, identityFromJson, IdentityError, verifySignature, type IdentityAlg,
} from './identity';
import { deriveNodeId, NODE_ID_CONTEXT, NODE_ID_SCRYPT, publicKeyMatchesId } from './key-ids';
import { scryptSync } from './scrypt';

const data = new TextEncoder().encode('hello voxel');

describe('identity', () => {
  it('prefers Ed25519 when the runtime has it', async () => {
    const id = await generateIdentity();
    expect(id.alg).toBe((await hasEd25519()) ? 'Ed25519' : 'ECDSA-P256');
  });

  for (const alg of ['Ed25519', 'ECDSA-P256'] as IdentityAlg[]) {
    describe(alg, () => {
      it('a player id is the first 160 bits of SHA-256(raw public key)', async () => {
        const id = await generateIdentity({ alg });
        expect(id.publicKey.length).toBe(alg === 'Ed25519' ? 32 : 65);
        expect(id.id.length).toBe(ID_BYTES);
        expect(idEquals(id.id, await idFromSha256(id.publicKey))).toBe(true);
        expect(await publicKeyMatchesId('player', id.publicKey, id.id)).toBe(true);
        expect(await publicKeyMatchesId('node', id.publicKey, id.id)).toBe(false);
      });

      it('a node id is the first 160 bits of scrypt(raw public key, "vp-node-id-v2"), stored or not', async () => {
        const id = await generateNodeIdentity({ alg, bits: 0 });
        expect(id.id.length).toBe(ID_BYTES);
        expect(idEquals(id.id, scryptSync(id.publicKey, NODE_ID_CONTEXT, NODE_ID_SCRYPT).slice(0, ID_BYTES))).toBe(true);
        expect(idEquals(id.id, deriveNodeId(id.publicKey))).toBe(true);
        expect(await publicKeyMatchesId('node', id.publicKey, id.id)).toBe(true);
        expect(await publicKeyMatchesId('player', id.publicKey, id.id)).toBe(false);
        const back = await identityFromJson(await id.toJson(), 'node');
        expect(idEquals(back.id, id.id)).toBe(true);
        // The same key loaded as a player's stands for its SHA-256 id.
        expect(idEquals((await identityFromJson(await id.toJson(), 'player')).id, await idFromSha256(id.publicKey))).toBe(true);
      });

      it('signs and verifies; rejects tampering and the wrong key', async () => {
        const a = await generateIdentity({ alg });
        const b = await generateIdentity({ alg });
        const sig = await a.sign(data);
        expect(await verifySignature(alg, a.publicKey, data, sig)).toBe(true);
        expect(await verifySignature(alg, b.publicKey, data, sig)).toBe(false);
        const bad = sig.slice();
        bad[0]! ^= 1;
        expect(await verifySignature(alg, a.publicKey, data, bad)).toBe(false);
        expect(await verifySignature(alg, new Uint8Array(3), data, sig)).toBe(false);
      });

      it('round-trips through JSON (same id, signatures verify)', async () => {
        const a = await generateIdentity({ alg });
        const json = JSON.parse(JSON.stringify(await a.toJson()));
        const b = await identityFromJson(json, 'player');
        expect(idEquals(a.id, b.id)).toBe(true);
        expect(await verifySignature(alg, a.publicKey, data, await b.sign(data))).toBe(true);
      });
    });
  }

  it('rejects malformed and mismatched JSON', async () => {
    await expect(identityFromJson({ v: 2 }, 'player')).rejects.toBeInstanceOf(IdentityError);
    await expect(identityFromJson(null, 'node')).rejects.toBeInstanceOf(IdentityError);
    const a = await (await generateIdentity({ alg: 'ECDSA-P256' })).toJson();
    const b = await (await generateIdentity({ alg: 'ECDSA-P256' })).toJson();
    await expect(identityFromJson({ ...a, publicJwk: b.publicJwk }, 'player')).rejects.toThrow(/do not match/);
    await expect(identityFromJson({ ...a, privateJwk: { kty: 'EC' } }, 'node')).rejects.toBeInstanceOf(IdentityError);
  });

  it('a non-extractable identity refuses export', async () => {
    const id = await generateIdentity({ extractable: false });
    await expect(id.toJson()).rejects.toBeInstanceOf(IdentityError);
  });
});
