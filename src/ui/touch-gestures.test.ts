import { describe, expect, it } from 'vitest';
import { LONG_PRESS_MS, LOOK_SCALE, STICK_RADIUS_PX, TAP_MS, TouchGestures } from './touch-gestures';

const W = 800;
function setup() {
  const log: string[] = [];
  const looks: [number, number][] = [];
  const g = new TouchGestures({ look: (dx, dy) => looks.push([dx, dy]), dig: () => log.push('dig'), build: () => log.push('build') });
  return { g, log, looks };
}

describe('touch gestures', () => {
  it('walks with a finger on the left: forward when pushed up, full speed at the radius, standing in the dead zone', () => {
    const { g } = setup();
    g.down(1, 100, 400, W, 0);
    expect(g.input().forward).toBe(0);
    g.move(1, 103, 397, 10); // inside the dead zone
    expect(g.input()).toMatchObject({ forward: 0, right: 0, sprint: false });
    g.move(1, 100, 400 - STICK_RADIUS_PX * 3, 20); // far past the radius: clamped
    expect(g.input().forward).toBeCloseTo(1);
    g.move(1, 100 + STICK_RADIUS_PX, 400, 30);
    expect(g.input()).toMatchObject({ forward: -0, right: 1 });
    g.up(1, 40);
    expect(g.input()).toMatchObject({ forward: 0, right: 0 });
  });

  it('sprints only when toggled and moving forward', () => {
    const { g } = setup();
    g.sprint = true;
    g.down(1, 100, 400, W, 0);
    g.move(1, 100, 350, 10);
    expect(g.input().sprint).toBe(true);
    g.move(1, 100, 450, 20);
    expect(g.input().sprint).toBe(false);
  });

  it('looks by dragging on the right, scaled, and a drag never digs or builds', () => {
    const { g, log, looks } = setup();
    g.down(2, 600, 300, W, 0);
    g.move(2, 630, 290, 50);
    g.move(2, 640, 290, 100);
    g.tick(2000);
    g.up(2, 2100);
    expect(looks).toEqual([[30 * LOOK_SCALE, -10 * LOOK_SCALE], [10 * LOOK_SCALE, 0]]);
    expect(log).toEqual([]);
    expect(g.input().forward).toBe(0); // a look finger is not the stick
  });

  it('digs on a quick tap, builds once on a long press (and that press does not dig)', () => {
    const { g, log } = setup();
    g.down(3, 600, 300, W, 0);
    g.move(3, 603, 302, 50); // within the slop: still a tap
    g.up(3, 120);
    expect(log).toEqual(['dig']);
    g.down(4, 600, 300, W, 1000);
    g.tick(1000 + LONG_PRESS_MS - 1);
    expect(log).toEqual(['dig']);
    g.tick(1000 + LONG_PRESS_MS);
    g.tick(1000 + LONG_PRESS_MS + 500);
    g.up(4, 2000);
    expect(log).toEqual(['dig', 'build']);
    // A slow lift short of a long press is neither.
    g.down(5, 600, 300, W, 3000);
    g.up(5, 3000 + TAP_MS + 1);
    expect(log).toEqual(['dig', 'build']);
  });

  it('moves and looks with two thumbs at once; a second finger on the left looks', () => {
    const { g, looks } = setup();
    g.down(1, 100, 400, W, 0);
    g.down(2, 150, 200, W, 0); // the stick is taken: this one looks
    g.move(1, 100, 340, 10);
    g.move(2, 180, 200, 10);
    expect(g.input().forward).toBeGreaterThan(0.9);
    expect(looks.length).toBe(1);
    g.cancel(2);
    g.clear();
    expect(g.input().forward).toBe(0);
  });

  it('holds jump and down while their buttons are held', () => {
    const { g } = setup();
    g.setJump(true);
    g.setDescend(true);
    expect(g.input()).toMatchObject({ jump: true, descend: true });
    g.clear();
    expect(g.input()).toMatchObject({ jump: false, descend: false });
  });
});
