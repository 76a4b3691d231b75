import { describe, expect, it } from 'vitest';
import { controlFrame, FRAME_BYTES, FrameKind, FrameReader, splitMessage } from './frames';

function roundTrip(r: FrameReader, data: Uint8Array) {
  const evs = splitMessage(data).map((f) => r.push(f));
  return evs[evs.length - 1]!;
}

describe('frames', () => {
  it('splits at 16 KiB and reassembles', () => {
    const data = new Uint8Array(50_000).map((_, i) => i & 0xff);
    const frames = splitMessage(data);
    expect(frames.every((f) => f.length <= FRAME_BYTES)).toBe(true);
    expect(frames.length).toBe(4);
    const ev = roundTrip(new FrameReader(), data);
    expect(ev).toEqual({ kind: 'message', data });
  });

  it('handles empty and exact-frame-size messages', () => {
    const r = new FrameReader();
    expect(roundTrip(r, new Uint8Array(0))).toEqual({ kind: 'message', data: new Uint8Array(0) });
    const exact = new Uint8Array(FRAME_BYTES - 1).fill(9);
    expect(splitMessage(exact).length).toBe(1);
    expect(roundTrip(r, exact)).toEqual({ kind: 'message', data: exact });
  });

  it('drops an oversized message whole and recovers for the next', () => {
    const r = new FrameReader(20_000);
    const frames = splitMessage(new Uint8Array(40_000));
    const evs = frames.map((f) => r.push(f));
    expect(evs.filter((e) => e.kind === 'bad').length).toBe(1);
    expect(evs.some((e) => e.kind === 'message')).toBe(false);
    expect(roundTrip(r, new Uint8Array([1, 2]))).toEqual({ kind: 'message', data: new Uint8Array([1, 2]) });
  });

  it('rejects empty, unknown, oversized and non-JSON control frames', () => {
    const r = new FrameReader();
    expect(r.push(new Uint8Array(0)).kind).toBe('bad');
    expect(r.push(new Uint8Array([7, 1])).kind).toBe('bad');
    expect(r.push(new Uint8Array(FRAME_BYTES + 1)).kind).toBe('bad');
    expect(r.push(new Uint8Array([FrameKind.Control, 0xff, 0xfe])).kind).toBe('bad');
    expect(r.push(controlFrame({ t: 'bye', reason: 'x' }))).toEqual({ kind: 'control', msg: { t: 'bye', reason: 'x' } });
  });
});
