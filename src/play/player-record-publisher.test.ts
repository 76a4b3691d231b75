import { describe, expect, it } from 'vitest';
import { generateIdentity } from '../core/identity';
import type { NodeId } from '../core/node-id';
import { VirtualClock } from '../core/virtual-clock';
import { PLAYER_RECORD_EVERY_MS, PlayerRecordPublisher } from './player-record-publisher';

const pose = (x: number) => ({ x, y: 70, z: 3, yaw: 0, pitch: 0 });

/** A DHT holding the last value put per key (the 'player' namespace only). */
function fakeDht(fail = false) {
  const held = new Map<string, Uint8Array>();
  let puts = 0;
  return {
    puts: () => puts,
    put: (_ns: string, key: NodeId, value: Uint8Array) => {
      puts++;
      held.set(key.join(), value);
      return Promise.resolve({ stored: 1 });
    },
    get: (_ns: string, key: NodeId) => (fail ? Promise.reject(new Error('no route')) : Promise.resolve(held.has(key.join()) ? { value: held.get(key.join())! } : undefined)),
  };
}

describe('PlayerRecordPublisher', () => {
  it('puts the record at most every PLAYER_RECORD_EVERY_MS, unless forced, and reads back the newest', async () => {
    const clock = new VirtualClock();
    const dht = fakeDht();
    const rec = new PlayerRecordPublisher(await generateIdentity(), dht as never, clock);
    expect(await rec.fetch()).toBeUndefined();
    await rec.publish(pose(1));
    await rec.publish(pose(2));
    expect(dht.puts()).toBe(1);
    expect((await rec.fetch())?.x).toBe(1);
    await rec.publish(pose(3), true);
    expect(dht.puts()).toBe(2);
    await clock.advance(PLAYER_RECORD_EVERY_MS - 1);
    await rec.publish(pose(4));
    expect(dht.puts()).toBe(2);
    await clock.advance(1);
    await rec.publish(pose(5));
    expect(dht.puts()).toBe(3);
    expect(await rec.fetch()).toMatchObject(pose(5));
  });

  it('reads nothing, without throwing, when the DHT get fails', async () => {
    const rec = new PlayerRecordPublisher(await generateIdentity(), fakeDht(true) as never, new VirtualClock());
    expect(await rec.fetch()).toBeUndefined();
  });
});
