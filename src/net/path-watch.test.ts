import { describe, expect, it } from 'vitest';
import { connectionCounters, PathWatch } from './path-watch';

const o = { deadMs: 2000, ackDueMs: 1000, maxGapMs: 1500 };

/** Samples every 500 ms from `from`; bytesIn/out per step as given; the first time it says dead (or null). */
function run(w: PathWatch, from: number, steps: [number, number][]): number | null {
  let bin = 1000, bout = 1000;
  for (let i = 0; i < steps.length; i++) {
    bin += steps[i]![0];
    bout += steps[i]![1];
    if (w.sample(from + i * 500, bin, bout)) return from + i * 500;
  }
  return null;
}

describe('PathWatch: a path is dead when we send and nothing at all comes back', () => {
  it('sends unanswered after the last frame: dead once 2 s passed since it', () => {
    const w = new PathWatch(o);
    w.heard(0);
    // From 500 ms on we send every step and nothing comes in.
    expect(run(w, 500, Array.from({ length: 10 }, () => [0, 100] as [number, number]))).toBe(2000);
  });

  it('a far end that sends no frames but acknowledges (a starved tab: its network thread answers) is alive', () => {
    const w = new PathWatch(o);
    w.heard(0);
    expect(run(w, 500, Array.from({ length: 40 }, () => [40, 100] as [number, number]))).toBeNull();
  });

  it('silence both ways (nothing owed) is no death', () => {
    const w = new PathWatch(o);
    w.heard(0);
    expect(run(w, 500, Array.from({ length: 40 }, () => [0, 0] as [number, number]))).toBeNull();
  });

  it('a gap between samples (our own tab starved or suspended) starts the watch afresh', () => {
    const w = new PathWatch(o);
    w.heard(0);
    expect(w.sample(500, 1000, 1000)).toBe(false);
    expect(w.sample(1000, 1000, 1100)).toBe(false);
    // Next sample 5 s later: our absence, not the far end's silence.
    expect(w.sample(6000, 1000, 1200)).toBe(false);
    expect(w.sample(6500, 1000, 1300)).toBe(false);
    expect(w.sample(7000, 1000, 1400)).toBe(false);
    expect(w.sample(7500, 1000, 1500)).toBe(false);
    expect(w.sample(8000, 1000, 1600)).toBe(true); // 2 s after the watch began again
  });

  it('a frame heard meanwhile clears what was owed', () => {
    const w = new PathWatch(o);
    w.heard(0);
    w.sample(500, 0, 0);
    w.sample(1000, 0, 100);
    w.heard(1400);
    expect(w.sample(1500, 0, 100)).toBe(false);
    expect(w.sample(3000, 0, 200)).toBe(false); // owed only since 1500
    expect(w.sample(3400, 0, 200)).toBe(true);
  });
});

describe('connectionCounters', () => {
  it("reads the transport's counters (every pair it used), else the pairs', else none", () => {
    expect(connectionCounters([{ type: 'transport', bytesReceived: 10, bytesSent: 20 }, { type: 'candidate-pair', bytesReceived: 1, bytesSent: 2 }])).toEqual({ bytesIn: 10, bytesOut: 20 });
    expect(connectionCounters([{ type: 'candidate-pair', bytesReceived: 1, bytesSent: 2 }, { type: 'candidate-pair', bytesReceived: 3, bytesSent: 4 }])).toEqual({ bytesIn: 4, bytesOut: 6 });
    expect(connectionCounters([{ type: 'local-candidate' }])).toBeUndefined();
  });

  it('takes no ICE check or answer for an answer: a pair that answers them may carry none of our data', () => {
    // Chromium as bench/lab saw it (e2e/lab.test.ts's path death): the direct pair died; 2.5 s
    // later the relay candidate's pair was checked and answered through the TURN server, and
    // ICE selected it, while the far end kept sending its data to the dead address.
    const report = (relayRes: number, selected: string) => [
      { id: 'T', type: 'transport', bytesReceived: 10, bytesSent: 20, selectedCandidatePairId: selected },
      { id: 'direct', type: 'candidate-pair', bytesReceived: 10, bytesSent: 20, requestsReceived: 5, responsesReceived: 5 },
      { id: 'relay', type: 'candidate-pair', bytesReceived: 0, bytesSent: 0, requestsReceived: 1, responsesReceived: relayRes },
    ];
    const w = new PathWatch(o);
    w.heard(0);
    const verdicts = [500, 1000, 1500, 2000].map((t, i) => {
      const c = connectionCounters(report(i * 3, i < 2 ? 'direct' : 'relay'))!;
      return w.sample(t, c.bytesIn, c.bytesOut + t);
    });
    expect(verdicts).toEqual([false, false, false, true]);
    // Bytes in (data, or the acknowledgements a starved far tab's network thread still sends) are.
    const w2 = new PathWatch(o);
    w2.heard(0);
    const alive = [500, 1000, 1500, 2000, 2500].map((t) => w2.sample(t, 10 + t, 20 + t));
    expect(alive).not.toContain(true);
  });
});
