import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/virtual-clock';
import { ProbeFrameGate } from './probe-frame-gate';

describe('ProbeFrameGate', () => {
  it('holds a probe round until the next frame, sends it there and has that frame skipped', () => {
    const clock = new VirtualClock();
    const gate = new ProbeFrameGate(clock, 1000);
    const sent: number[] = [];
    expect(gate.beforeFrame()).toBe(false); // nothing held: the frame is drawn
    gate.sendAt(() => sent.push(clock.now()));
    clock.advanceSync(30);
    expect(sent).toEqual([]); // not before a frame
    expect(gate.beforeFrame()).toBe(true);
    expect(sent).toEqual([30]);
    expect(gate.beforeFrame()).toBe(false); // only the one frame is skipped
    clock.advanceSync(2000);
    expect(sent).toEqual([30]); // its fallback timer was cleared: sent once
    expect(gate.rounds).toEqual({ idle: 1, late: 0 });
  });

  it('sends after waitMs when no frame comes (a hidden page), counted late', () => {
    const clock = new VirtualClock();
    const gate = new ProbeFrameGate(clock, 1000);
    let sent = 0;
    gate.sendAt(() => sent++);
    clock.advanceSync(999);
    expect(sent).toBe(0);
    clock.advanceSync(1);
    expect(sent).toBe(1);
    expect(gate.beforeFrame()).toBe(false);
    expect(gate.rounds).toEqual({ idle: 0, late: 1 });
  });

  it('holds at most 4 rounds: the oldest goes out at once past that', () => {
    const clock = new VirtualClock();
    const gate = new ProbeFrameGate(clock, 1000);
    const sent: number[] = [];
    for (let i = 0; i < 6; i++) gate.sendAt(() => sent.push(i));
    expect(sent).toEqual([0, 1]);
    expect(gate.beforeFrame()).toBe(true);
    expect(sent).toEqual([0, 1, 2, 3, 4, 5]);
    expect(gate.rounds).toEqual({ idle: 4, late: 2 });
  });

  it('keeps the rounds for the next frame when this one must be drawn', () => {
    const clock = new VirtualClock();
    const gate = new ProbeFrameGate(clock, 1000);
    const sent: number[] = [];
    gate.sendAt(() => sent.push(clock.now()));
    clock.advanceSync(20);
    expect(gate.beforeFrame(true)).toBe(false); // drawn: nothing sent
    expect(sent).toEqual([]);
    clock.advanceSync(50);
    expect(gate.beforeFrame()).toBe(true);
    expect(sent).toEqual([70]);
    expect(gate.deferred).toBe(1);
    expect(gate.rounds).toEqual({ idle: 1, late: 0 });
  });
});
