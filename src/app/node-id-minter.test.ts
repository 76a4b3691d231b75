import { describe, expect, it } from 'vitest';
import { idWorkOk } from '../core/id-work';
import { mintNodeIdentity } from './node-id-minter';

describe('node id minter', () => {
  it('without a Worker (Node) mints on this thread, counting the keypairs drawn', async () => {
    const counts = { tries: 0 };
    const id = await mintNodeIdentity(6, counts);
    expect(idWorkOk(id.id, 6)).toBe(true);
    expect(counts.tries).toBeGreaterThanOrEqual(1);
    expect((await id.toJson()).v).toBe(1);
  });
});
