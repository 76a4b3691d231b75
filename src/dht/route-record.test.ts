import { describe, expect, it } from 'vitest';
import { dhtCodec } from './messages';
import { isRequestFrame, RouteRecord } from './route-record';

describe('RouteRecord', () => {
  it('credits a hop whose replies come back through it, debits one whose do not', () => {
    let now = 0;
    const rec = new RouteRecord(() => now, 2000);
    for (let i = 0; i < 10; i++) {
      rec.sent('s', `d${i}`, 'good');
      rec.sent('s', `e${i}`, 'bad');
      rec.arrived(`d${i}`, 's', 'good'); // the reply, back from the hop the request left by
      rec.arrived(`e${i}`, 's', 'other'); // a message from elsewhere: no credit
    }
    now = 2001;
    expect(rec.score('good')).toBeGreaterThan(0.9);
    expect(rec.score('bad')).toBeLessThan(0.1);
    expect(rec.score('never')).toBe(0.5);
  });

  it('tells its owner which hop lost a request, and when the request left', () => {
    let now = 0;
    const lost: [string, number][] = [];
    const rec = new RouteRecord(() => now, 2000, (hop, at) => lost.push([hop, at]));
    rec.sent('s', 'd1', 'dead');
    now = 500;
    rec.sent('s', 'd2', 'live');
    rec.arrived('d2', 's', 'live');
    now = 2600; // d1's wait is over, not d2's own (answered anyway)
    rec.score('dead');
    expect(lost).toEqual([['dead', 0]]);
  });

  it('reads requests from the first two bytes only', () => {
    expect(isRequestFrame(dhtCodec.encode({ t: 'FIND_NODE', r: 1, target: new Uint8Array(20) }))).toBe(true);
    expect(isRequestFrame(dhtCodec.encode({ t: 'PONG', r: 1 }))).toBe(false);
    expect(isRequestFrame(new Uint8Array([0x92]))).toBe(false);
  });

  it('waits for a bounded number of replies', () => {
    const rec = new RouteRecord(() => 0, 2000, undefined, 4);
    for (let i = 0; i < 100; i++) rec.sent('s', `d${i}`, 'h');
    rec.arrived('d0', 's', 'h'); // forgotten: no credit
    rec.arrived('d99', 's', 'h');
    expect(rec.score('h')).toBeCloseTo(2 / 3);
  });
});
