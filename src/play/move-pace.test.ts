import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../world/terrain-hash';
import { MovePace } from './move-pace';

/** MOVEs sent over `frames` (frame times, ms) at 10 Hz. */
function sends(frames: number[]): number[] {
  const pace = new MovePace(10);
  const out: number[] = [];
  for (const t of frames) {
    if (!pace.due(t)) continue;
    pace.sent(t);
    out.push(t);
  }
  return out;
}

const rate = (sent: number[], seconds: number) => sent.length / seconds;

describe('MovePace: MOVE at its rate on the frames a page has', () => {
  it('a page that draws nothing (a 50 ms tick, each frame a little early) sends 10 a second, not 6.7', () => {
    const frames = Array.from({ length: 200 }, (_, i) => i * 49.9);
    expect(rate(sends(frames), 10)).toBeGreaterThanOrEqual(9.9);
  });

  it('a drawing page (60 frames a second, each a little early) sends 10 a second, not 8.6', () => {
    const frames = Array.from({ length: 600 }, (_, i) => i * 16.66);
    expect(rate(sends(frames), 10)).toBeGreaterThanOrEqual(9.9);
  });

  it('never more than its rate on average, nor two within half a period, whatever the frames', () => {
    const rnd = mulberry32(7);
    const frames: number[] = [];
    for (let t = 0; t < 60_000; t += 1 + rnd() * 60 + (rnd() < 0.01 ? 2000 : 0)) frames.push(t);
    const sent = sends(frames);
    expect(rate(sent, 60)).toBeLessThanOrEqual(10.05);
    for (let i = 1; i < sent.length; i++) expect(sent[i]! - sent[i - 1]!).toBeGreaterThanOrEqual(50);
  });

  it('after a stall, one MOVE at once and the schedule again from there: no burst', () => {
    const frames = [0, 50, 100, 3000, 3016, 3033, 3050, 3066, 3083, 3100, 3116, 3150, 3200, 3250];
    expect(sends(frames)).toEqual([0, 100, 3000, 3100, 3200]);
  });
});
