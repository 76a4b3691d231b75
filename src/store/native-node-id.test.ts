import { describe, expect, it } from 'vitest';
import { deriveNodeId } from '../core/key-ids';
import { idToHex } from '../core/node-id';
import { nativeNodeId } from './native-node-id';

describe('nativeNodeId', () => {
  it('derives the same node id as the plain-JS scrypt a tab runs', async () => {
    for (let i = 0; i < 4; i++) {
      const key = new Uint8Array(i % 2 ? 65 : 32).map((_, k) => (k * 13 + i) & 255);
      expect(idToHex(await nativeNodeId(key))).toBe(idToHex(deriveNodeId(key)));
    }
  });
});
