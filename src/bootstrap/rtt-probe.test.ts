import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { VirtualClock } from '../core/virtual-clock';
import type { ChannelEvents } from '../dht/app-channels';
import { isProbeFrame, RttProbe } from './rtt-probe';

/** Two probes joined by a channel with a fixed one-way delay on the virtual clock. */
function pair(oneWayMs: number) {
  const clock = new VirtualClock();
  const ids = [randomId(), randomId()] as const;
  const ends = ids.map(() => new Emitter<ChannelEvents>());
  const chan = (me: 0 | 1) => ({
    events: ends[me]!,
    send: (to: NodeId, body: Uint8Array) => {
      const other = idToHex(to) === idToHex(ids[0]) ? 0 : 1;
      clock.setTimeout(() => ends[other]!.emit('message', { from: ids[me], body }), oneWayMs);
      return true;
    },
  });
  const probes = ([0, 1] as const).map((me) => new RttProbe({ channel: chan(me), clock, links: () => [{ id: ids[1 - me]!, hex: idToHex(ids[1 - me]!) }], options: { everyMs: 1000 } }));
  return { clock, ids, ends, probes };
}

describe('RttProbe', () => {
  it('measures the round trip of each link, from both ends', async () => {
    const { clock, ids, probes } = pair(15);
    expect(probes[0]!.rttMs(idToHex(ids[1]))).toBeNull();
    await clock.advance(3500);
    expect(probes[0]!.rttMs(idToHex(ids[1]))).toBe(30);
    expect(probes[1]!.rttMs(idToHex(ids[0]))).toBe(30);
    expect(probes[0]!.stats).toMatchObject({ sent: 3, answered: 3, replied: 3, bad: 0 });
  });

  it('ignores text and counts malformed probe frames', async () => {
    const { clock, ids, ends, probes } = pair(5);
    ends[0]!.emit('message', { from: ids[1], body: new TextEncoder().encode('hello') });
    ends[0]!.emit('message', { from: ids[1], body: Uint8Array.of(0xff, 9, 0, 0, 0, 1) });
    ends[0]!.emit('message', { from: ids[1], body: Uint8Array.of(0xff, 2) });
    expect(probes[0]!.stats.bad).toBe(2);
    expect(isProbeFrame(new TextEncoder().encode('ÿ'))).toBe(false); // U+00FF is 0xC3 0xBF in UTF-8
    await clock.advance(1500);
    expect(probes[0]!.rttMs(idToHex(ids[1]))).toBe(10);
    probes[0]!.stop();
    probes[1]!.stop();
  });
});
