import { describe, expect, it } from 'vitest';
import type { NodeId } from '../core/node-id';
import type { PlayerWire } from '../region/region-wire';
import { PlayerOutbox } from './player-outbox';

const id = (n: number): NodeId => new Uint8Array(20).fill(n);
const subs = (...ns: number[]): [string, NodeId][] => ns.map((n) => [`s${n}`, id(n)]);
const entries = (n: number, fill: number) => new Uint8Array(12 * n).fill(fill);

/** A wire that records what it sends (to whom, which frame). */
function recorder() {
  const sent: { to: number; t: string; m: Record<string, unknown> }[] = [];
  const wire = { send: (to: NodeId, m: { t: string }) => (sent.push({ to: to[0]!, t: m.t, m }), true) } as unknown as PlayerWire;
  return { sent, wire };
}

describe('PlayerOutbox: deltas, batches ordered and beats ride in the next POSITIONS frame', () => {
  it('a subscriber with a POSITIONS frame gets its deltas (merged) and its beat in it; the others get them alone', () => {
    const box = new PlayerOutbox({ rx: 1, rz: 2 });
    box.delta(3, { from: 5, to: 5, entries: entries(1, 1) }, subs(1, 2), 0);
    box.delta(3, { from: 6, to: 7, entries: entries(2, 2) }, subs(1, 2), 0);
    box.beat(3, 7, subs(1, 2, 3), 0);
    const ride = box.ride('s1', 3);
    expect(ride.d?.[0]).toBe(5);
    expect(ride.d?.[1]).toBe(7);
    expect([...ride.d![2]]).toEqual([...entries(1, 1), ...entries(2, 2)]);
    expect(ride.s).toBe(7);
    // Taken once: a second frame to s1 carries nothing.
    expect(box.ride('s1', 3)).toEqual({});
    const { sent, wire } = recorder();
    box.flush(wire, 0);
    expect(sent.map((f) => `${f.t} ${f.to}`)).toEqual(['DELTA 2', 'DELTA 2', 'HEARTBEAT 2', 'HEARTBEAT 3']);
    expect(sent[0]!.m).toMatchObject({ rx: 1, rz: 2, e: 3, from: 5, to: 5 });
    expect(box.empty).toBe(true);
  });

  it('a beat naming the host set or saying idle, a delta of another epoch, and deltas that do not follow each other never ride', () => {
    const box = new PlayerOutbox({ rx: 0, rz: 0 });
    box.beat(3, 4, subs(1), 0, { hosts: [id(9)] });
    box.beat(3, 4, subs(2), 0, { idle: true });
    box.delta(2, { from: 1, to: 1, entries: entries(1, 1) }, subs(1), 0);
    box.delta(3, { from: 1, to: 1, entries: entries(1, 1) }, subs(2), 0);
    box.delta(3, { from: 3, to: 3, entries: entries(1, 1) }, subs(2), 0);
    expect(box.ride('s1', 3)).toEqual({});
    expect(box.ride('s2', 3)).toEqual({});
    const { sent, wire } = recorder();
    box.flush(wire, 0);
    expect(sent.map((f) => `${f.t} ${f.to}`)).toEqual(['DELTA 1', 'DELTA 2', 'DELTA 2', 'HEARTBEAT 1', 'HEARTBEAT 2']);
    expect(sent[3]!.m.hosts).toEqual([id(9)]);
    expect(sent[4]!.m.idle).toBe(true);
  });

  it('what no frame took waits a tick for the next frames, then goes alone, deltas in order', () => {
    const box = new PlayerOutbox({ rx: 0, rz: 0 });
    box.delta(1, { from: 1, to: 1, entries: entries(1, 1) }, subs(1, 2), 10);
    box.beat(1, 1, subs(1, 2), 30);
    box.delta(1, { from: 2, to: 2, entries: entries(1, 2) }, subs(1, 2), 40);
    const { sent, wire } = recorder();
    box.flush(wire, 50, 50);
    expect(sent).toEqual([]);
    expect(box.ride('s1', 1)).toMatchObject({ d: [1, 2, expect.anything()], s: 1 });
    box.flush(wire, 70, 50);
    expect(sent.map((f) => `${f.t} ${f.to} ${String(f.m.from ?? f.m.s)}`)).toEqual(['DELTA 2 1']);
    box.flush(wire, 100, 50);
    expect(sent.map((f) => `${f.t} ${f.to} ${String(f.m.from ?? f.m.s)}`)).toEqual(['DELTA 2 1', 'DELTA 2 2', 'HEARTBEAT 2 1']);
    expect(box.empty).toBe(true);
  });

  it('an editor gets the deltas owed to it at once, before its confirm', () => {
    const box = new PlayerOutbox({ rx: 0, rz: 0 });
    box.delta(1, { from: 1, to: 1, entries: entries(1, 1) }, subs(1, 2), 0);
    const { sent, wire } = recorder();
    box.sendNow('s1', wire);
    expect(sent.map((f) => `${f.t} ${f.to}`)).toEqual(['DELTA 1']);
    expect(box.ride('s1', 1)).toEqual({});
    expect(box.ride('s2', 1).d?.[0]).toBe(1);
  });

  it('batches ordered ride (merged) in the next tick\'s frame; what none took goes alone as PENDING at that tick, held no longer', () => {
    const box = new PlayerOutbox({ rx: 0, rz: 0 });
    box.pending(2, { from: 8, to: 8, entries: entries(1, 8) }, subs(1, 2), 10);
    box.pending(2, { from: 9, to: 9, entries: entries(1, 9) }, subs(1, 2), 20);
    box.delta(2, { from: 7, to: 7, entries: entries(1, 7) }, subs(1, 2), 20);
    const ride = box.ride('s1', 2);
    expect(ride).toMatchObject({ p: [8, 9, expect.anything()], d: [7, 7, expect.anything()] });
    expect([...ride.p![2]]).toEqual([...entries(1, 8), ...entries(1, 9)]);
    const { sent, wire } = recorder();
    // The tick's flush (deltas may wait another tick; batches ordered do not).
    box.flush(wire, 25, 50);
    expect(sent.map((f) => `${f.t} ${f.to} ${String(f.m.from)}`)).toEqual(['PENDING 2 8', 'PENDING 2 9']);
    expect(box.ride('s2', 2)).toMatchObject({ d: [7, 7, expect.anything()] });
    expect(box.ride('s2', 2).p).toBeUndefined();
    // An editor's confirm: what is owed to it goes first, batches ordered before deltas.
    box.pending(2, { from: 10, to: 10, entries: entries(1, 10) }, subs(1), 30);
    box.delta(2, { from: 8, to: 9, entries: entries(2, 8) }, subs(1), 30);
    box.sendNow('s1', wire);
    expect(sent.slice(2).map((f) => `${f.t} ${f.to} ${String(f.m.from)}`)).toEqual(['PENDING 1 10', 'DELTA 1 8']);
    box.flush(wire, 80, 50);
    expect(sent.length).toBe(4);
    expect(box.empty).toBe(true);
  });

  it('more entries than one frame should carry go as DELTA frames', () => {
    const box = new PlayerOutbox({ rx: 0, rz: 0 });
    box.delta(1, { from: 1, to: 400, entries: entries(400, 1) }, subs(1), 0);
    expect(box.ride('s1', 1).d).toBeUndefined();
    const { sent, wire } = recorder();
    box.flush(wire, 0);
    expect(sent.map((f) => f.t)).toEqual(['DELTA']);
  });
});
