// The transport watch's schedule on its own (transport-watch.ts): a probe every
// TRANSPORT_PROBE_MS while watched, the counters' first reading a baseline, a growth the time
// the far end was heard, nothing once the watch ends; a probe unanswered proven only by
// readings asked and answered on time.
import { describe, expect, it } from 'vitest';
import { isTransportProbe, TRANSPORT_DEAF_MS, TRANSPORT_LATE_MS, TRANSPORT_POLL_MS, TRANSPORT_PROBE_MS, TransportWatch } from './transport-watch';

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
    expect(isTransportProbe({ watchTransport: () => {}, transportHeardAt: () => undefined, transportUnanswered: () => undefined })).toBe(true);
    expect(isTransportProbe({ watchTransport: () => {}, transportHeardAt: () => undefined })).toBe(false);
    expect(isTransportProbe({ send: () => {} })).toBe(false);
  });

  it('proves a probe unanswered only after one sent past the baseline, by readings on time; anything heard clears it', () => {
    const w = new TransportWatch();
    w.extend(0, 5000);
    expect(w.tick(0)).toBe('probe'); // may be acknowledged before the counters are read: proves nothing
    expect(w.sample(5, 100, 0)).toBe(true); // the baseline: a probe goes now (5)
    const read = (asked: number, bytes = 100) => {
      w.tick(asked);
      w.sample(asked + 5, bytes, asked);
    };
    for (const asked of [125, 250, 375]) read(asked);
    expect(w.unanswered).toBeUndefined(); // 370 ms since the probe at 5
    read(500);
    expect(w.unanswered).toEqual({ probedAt: 5, at: 500 });
    expect(500 - 5).toBeGreaterThanOrEqual(TRANSPORT_DEAF_MS);
    read(625, 160); // an acknowledgement after all
    expect(w.unanswered).toBeUndefined();
    expect(w.heardAt).toBe(630);
    // From that reading on, a probe sent after it (the tick at 750) must go unanswered anew.
    for (const asked of [750, 875, 1000, 1125]) read(asked, 160);
    expect(w.unanswered).toBeUndefined();
    read(1250, 160);
    expect(w.unanswered).toEqual({ probedAt: 750, at: 1250 });
    // A new watch forgets it.
    w.extend(9000, 9400);
    expect(w.unanswered).toBeUndefined();
  });

  it('proves nothing by a reading answered late or asked late (our own tab starved): the run begins again from it', () => {
    const late = (answerIn: number, gaps: number[]) => {
      const w = new TransportWatch();
      w.extend(0, 10_000);
      w.tick(0);
      w.sample(5, 100, 0);
      let asked = 0;
      for (const gap of gaps) {
        asked += gap;
        w.tick(asked);
        w.sample(asked + answerIn, 100, asked);
      }
      return w.unanswered;
    };
    const onTime = Array<number>(8).fill(TRANSPORT_POLL_MS);
    expect(late(5, onTime)).toBeDefined();
    expect(late(TRANSPORT_LATE_MS + 1, onTime)).toBeUndefined();
    // Asked more than a poll and TRANSPORT_LATE_MS after the one before, now and then: each such reading starts over.
    expect(late(5, [125, 125, 300, 125, 125, 300, 125, 125, 300])).toBeUndefined();
    // One late reading, then on time again: proven 400 ms after a probe sent past it.
    expect(late(5, [125, 300, ...onTime])).toBeDefined();
  });
});
