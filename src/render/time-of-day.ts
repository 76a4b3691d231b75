// The world's time of day from the synchronised world clock: every peer reads the same world
// time (agree/world-clock.ts), so every player sees the same sun and sky. Pure: a world time
// in, the sun's direction, sky colours and light levels out (sky.ts applies them). Nights
// are a moonlit blue, never black: a player can still build, and screenshots stay pictures.
import { Color } from 'three';

export const TIME_OF_DAY = {
  /** One day of world time (ms). */
  dayMs: 20 * 60_000,
  day: { zenith: 0x4a86d8, horizon: 0xb9d6f2 },
  night: { zenith: 0x14204a, horizon: 0x3a4a70 },
  dusk: 0xe8965a,
  /** Light at the darkest hour, as a share of noon's. */
  nightLight: 0.45,
} as const;

export interface SkyState {
  /** Fraction of the day: 0 midnight, 0.25 sunrise, 0.5 noon, 0.75 sunset. */
  fraction: number;
  /** Direction towards the sun (or the moon at night: the light always comes from above). */
  sun: [number, number, number];
  zenith: Color;
  horizon: Color;
  /** 0 at night .. 1 in full day. */
  daylight: number;
}

export function dayFraction(worldMs: number): number {
  const d = TIME_OF_DAY.dayMs;
  return (((worldMs % d) + d) % d) / d;
}

export function skyAt(worldMs: number): SkyState {
  const f = dayFraction(worldMs);
  const a = 2 * Math.PI * (f - 0.25);
  const elevation = Math.sin(a);
  const daylight = smoothstep(-0.15, 0.25, elevation);
  const t = TIME_OF_DAY;
  const zenith = new Color(t.night.zenith).lerp(new Color(t.day.zenith), daylight);
  const horizon = new Color(t.night.horizon).lerp(new Color(t.day.horizon), daylight);
  // Near sunrise and sunset the horizon glows.
  horizon.lerp(new Color(t.dusk), 0.55 * Math.max(0, 1 - Math.abs(elevation) / 0.2));
  const up = Math.abs(elevation) < 0.15 ? 0.15 : Math.abs(elevation);
  return { fraction: f, sun: [Math.cos(a), up, 0.3], zenith, horizon, daylight };
}

function smoothstep(lo: number, hi: number, x: number): number {
  const u = Math.max(0, Math.min(1, (x - lo) / (hi - lo)));
  return u * u * (3 - 2 * u);
}
