// The transport watch's schedule on its own (transport-watch.ts): a probe every
// TRANSPORT_PROBE_MS while watched, the counters' first reading a baseline, a growth the time
// the far end was heard, nothing once the watch ends.
import { describe, expect, it } from 'vitest';
import { isTransportProbe, TRANSPORT_POLL_MS, TRANSPORT_PROBE_MS, TransportWatch } from './transport-watch';

describe('transport watch', () => {
  it('probes every TRANSPORT_PROBE_MS and reads at every tick while watched, and stops when the watch ends', () => {
    const w = new TransportWatch();
    expect(w.extend(1000, 1000)).toBe(false); // an empty watch starts nothing
    expect(w.extend(1000, 1400)).toBe(true);
    expect(w.extend(1100, 1500)).toBe(false); // extended: the timer under way serves it
    const steps: string[] = [];
    for (let t = 1000; t <= 1600; t += TRANSPORT_POLL_MS) steps.push(w.tick(t));
    // 1000, 1125, 1250, 1375, 1500: probes at 1000 and 1250 (200 ms apart at most), over at 1500.
    expect(steps).toEqual(['probe', 'read', 'probe', 'read', 'stop']);
    expect(TRANSPORT_PROBE_MS).toBeLessThan(2 * TRANSPORT_POLL_MS);
    // A new watch probes at once.
    expect(w.extend(2000, 2400)).toBe(true);
    expect(w.tick(2000)).toBe('probe');
  });

  it("hears the far end only when a watch's counter grows past its baseline", () => {
    const w = new TransportWatch();
    w.extend(0, 1000);
    w.sample(0, 500); // the baseline: what came before the watch says nothing
    expect(w.heardAt).toBeUndefined();
    w.sample(125, 500);
    expect(w.heardAt).toBeUndefined();
    w.sample(250, 550); // an acknowledgement of our probe
    expect(w.heardAt).toBe(250);
    w.sample(375, 550);
    expect(w.heardAt).toBe(250);
    // A later watch starts from a new baseline: growth between watches is not heard.
    w.extend(5000, 5400);
    w.sample(5000, 900);
    expect(w.heardAt).toBe(250);
    w.sample(5125, 950);
    expect(w.heardAt).toBe(5125);
  });

  it('tells a link that can be watched from one that cannot', () => {
    expect(isTransportProbe({ watchTransport: () => {}, transportHeardAt: () => undefined })).toBe(true);
    expect(isTransportProbe({ send: () => {} })).toBe(false);
  });
});
