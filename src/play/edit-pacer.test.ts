import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/virtual-clock';
import { EditPacer } from './edit-pacer';
import { starvedClock } from '../testing/starved-clock';

function setup(perSec = 10, burst = 3) {
  const clock = new VirtualClock();
  const sent: [number, number][] = [];
  const pacer = new EditPacer(clock, { perSec, burst }, (r) => void sent.push([r, clock.now()]));
  return { clock, sent, pacer };
}

describe('edit pacer', () => {
  it('lets a burst go at once, then holds the rest and sends them in order at the pace', async () => {
    const { clock, sent, pacer } = setup();
    const now = [1, 2, 3, 4, 5, 6].map((r) => pacer.admit('0,0', r));
    expect(now).toEqual([true, true, true, false, false, false]);
    expect(pacer.holds('0,0', 4)).toBe(true);
    await clock.advance(1000);
    expect(sent).toEqual([[4, 100], [5, 200], [6, 300]]);
    expect(pacer.holds('0,0', 4)).toBe(false);
  });

  it('a new edit waits behind the held ones even when a token has come', async () => {
    const { clock, sent, pacer } = setup(10, 1);
    expect(pacer.admit('0,0', 1)).toBe(true);
    expect(pacer.admit('0,0', 2)).toBe(false);
    await clock.advance(150);
    expect(sent).toEqual([[2, 100]]);
    expect(pacer.admit('0,0', 3)).toBe(false); // half a token
    await clock.advance(50);
    expect(sent).toEqual([[2, 100], [3, 200]]);
  });

  it('paces each region apart, and a dropped edit is not sent', async () => {
    const { clock, sent, pacer } = setup(10, 1);
    expect(pacer.admit('0,0', 1)).toBe(true);
    expect(pacer.admit('1,0', 2)).toBe(true);
    expect(pacer.admit('0,0', 3)).toBe(false);
    expect(pacer.admit('0,0', 4)).toBe(false);
    expect(pacer.admit('1,0', 5)).toBe(false);
    pacer.drop('0,0', 3);
    await clock.advance(1000);
    expect(sent).toEqual([[4, 100], [5, 100]]);
    pacer.admit('0,0', 6);
    pacer.admit('0,0', 7);
    pacer.dropRegion('0,0');
    pacer.close();
    await clock.advance(1000);
    expect(sent).toHaveLength(2);
  });

  it('a busy tab whose timers fire late sends the held edits with its next edit, once their tokens came', async () => {
    const base = new VirtualClock();
    // The tab's timers run only every 800 ms (a main thread drawing frames in software).
    const clock = starvedClock(base, 800);
    const sent: [number, number][] = [];
    const pacer = new EditPacer(clock, { perSec: 10, burst: 2 }, (r) => void sent.push([r, base.now()]));
    await base.advance(1);
    expect([1, 2, 3].map((r) => pacer.admit('0,0', r))).toEqual([true, true, false]);
    // The bucket is full again by 351 ms, the pacer's timer not before 800: edit 4 takes the
    // held one out first, then goes itself.
    await base.advance(350);
    expect(pacer.admit('0,0', 4)).toBe(true);
    expect(sent).toEqual([[3, 351]]);
    await base.advance(1000);
    expect(sent).toEqual([[3, 351]]);
  });
});
