import { describe, expect, it } from 'vitest';
import { measureFailover } from './host-bench';

describe('failover benchmark (simulated)', () => {
  it('recovers within a few seconds of a primary kill and loses no confirmed edit', async () => {
    const f = await measureFailover({ seed: 2, nodes: 16, kills: 5 });
    console.log(JSON.stringify(f));
    expect(f.failoverMs.length).toBe(5);
    expect(f.lostEdits).toBe(0);
    expect(f.p50).toBeLessThan(4000);
  });
});
