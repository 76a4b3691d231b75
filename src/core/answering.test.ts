import { describe, expect, it } from 'vitest';
import { idToHex, randomId, type NodeId } from './node-id';
import { VirtualClock } from './virtual-clock';
import { answering } from './answering';

describe('answering', () => {
  it('resolves as soon as every node answered', async () => {
    const clock = new VirtualClock();
    const ids = [randomId(), randomId()];
    const got = await answering(clock, () => Promise.resolve(true), ids, 200);
    expect(clock.now()).toBe(0);
    expect([...got].sort()).toEqual(ids.map(idToHex).sort());
  });

  it('gives up on the silent after the wait and keeps those that answered', async () => {
    const clock = new VirtualClock();
    const [alive, dead, refusing] = [randomId(), randomId(), randomId()];
    const ping = (id: NodeId): Promise<boolean> =>
      id === dead ? new Promise<boolean>(() => {}) : new Promise<boolean>((resolve) => clock.setTimeout(() => resolve(id === alive), 30));
    let got: Set<string> | undefined;
    void answering(clock, ping, [alive, dead, refusing], 200).then((s) => (got = s));
    await clock.advance(199);
    expect(got).toBeUndefined();
    await clock.advance(1);
    expect(got).toEqual(new Set([idToHex(alive)]));
  });
});
