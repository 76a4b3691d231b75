import { describe, expect, it } from 'vitest';
import { SOUND_RECIPES, STEP_BLOCKS, StepCadence, SoundEffects } from './sound-effects';

describe('step cadence', () => {
  it('sounds a step every STEP_BLOCKS walked on the ground', () => {
    const c = new StepCadence();
    let steps = 0;
    for (let i = 0; i <= 100; i++) if (c.update(i * 0.1, 0, true)) steps++;
    expect(steps).toBe(Math.floor(10 / STEP_BLOCKS));
  });

  it('is silent in the air, standing still, and over a teleport', () => {
    const c = new StepCadence();
    let steps = 0;
    for (let i = 0; i <= 100; i++) if (c.update(i * 0.1, 0, false)) steps++;
    for (let i = 0; i <= 100; i++) if (c.update(0, 0, true)) steps++;
    if (c.update(50, 50, true)) steps++;
    expect(steps).toBe(0);
  });
});

describe('sound effects', () => {
  it('has a short recipe for every kind', () => {
    for (const r of Object.values(SOUND_RECIPES)) {
      expect(r.duration).toBeGreaterThan(0);
      expect(r.duration).toBeLessThan(0.5);
      expect(r.gain).toBeLessThanOrEqual(1);
    }
  });

  it('makes no sound before a gesture unlocked audio, nor when muted', () => {
    let made = 0;
    const s = new SoundEffects(0, () => { made++; return null; });
    s.unlock(); // muted: no context made at all
    s.play('dig');
    expect([made, s.played]).toEqual([0, 0]);
    s.volume = 0.5;
    s.play('dig'); // not unlocked yet
    expect(s.played).toBe(0);
    s.unlock(); // no Web Audio here: stays silent, no error
    s.play('place');
    expect([made, s.played]).toEqual([1, 0]);
  });
});
