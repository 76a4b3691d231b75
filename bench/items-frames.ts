// The drawing tab's frames during the items bench (bench/items-bench.ts): every
// requestAnimationFrame time (a callback of the bench's own, run in the same frames as the
// page's, so it sees the same timestamps), when that callback ran, and Chromium's long
// animation frames (their render and total durations). With these, each item the drawing
// tab drew splits into: the wait from its `at` to the first frame at or after it (the frame
// grid alone), the frames it was not drawn in although due (skipped or a clock off), and the
// frame interval that sets both.
import type { Page } from 'playwright-core';
import { median, percentile } from './stats';

/** `drawn`: the page's count of frames it drew, read in each frame after the page's own callback (a held or skipped frame leaves it as it was). */
export type FrameLog = { raf: number[]; ran: number[]; drawn: number[]; loaf: { start: number; dur: number; render: number }[]; origin: number };

/**
 * Starts logging the page's frames (kept in the page, read by readFrames). A string, as
 * tsx would wrap a named function inside it in a helper the page does not have.
 */
export const startFrameLog = (p: Page) => p.evaluate(`(() => {
  const log = { raf: [], ran: [], drawn: [], loaf: [], origin: performance.timeOrigin };
  window.__frames = log;
  const tick = (t) => {
    if (log.raf.length < 20000) { log.raf.push(t); log.ran.push(performance.now()); log.drawn.push(window.voxel.stats().frames); }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  try {
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) {
        if (log.loaf.length < 20000) log.loaf.push({ start: e.startTime, dur: e.duration, render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0 });
      }
    }).observe({ type: 'long-animation-frame', buffered: false });
  } catch { /* no LoAF: the rAF log alone */ }
})()`);

export const readFrames = (p: Page) => p.evaluate(() => (window as unknown as { __frames: FrameLog }).__frames);

type Drawn = { at: number; shownMs: number };

/** Splits each drawn appearance against the frame log (machine clock, epoch ms). */
export function frameFigures(log: FrameLog, drawn: readonly Drawn[]): Record<string, number> {
  const raf = log.raf.map((t) => t + log.origin);
  const gaps = raf.slice(1).map((t, i) => t - raf[i]!);
  const late = log.ran.map((r, i) => r - log.raf[i]!);
  // Gaps between the frames the page drew (held and skipped ones left out): what the player sees.
  const drawnAt = raf.filter((_, i) => i > 0 && log.drawn[i]! > log.drawn[i - 1]!);
  const drawnGaps = drawnAt.slice(1).map((t, i) => t - drawnAt[i]!);
  const toFirst: number[] = []; // at -> first frame at or after it
  const extra: number[] = []; // first such frame -> the frame that drew it
  let extraFrames = 0;
  for (const a of drawn) {
    const i = raf.findIndex((t) => t >= a.at);
    if (i < 0) continue;
    toFirst.push(raf[i]! - a.at);
    extra.push(a.shownMs - raf[i]!);
    if (a.shownMs - raf[i]! > 0.5) {
      extraFrames++;
      const prev = raf[i - 1] ?? NaN;
      console.error(`items bench: drawn ${(a.shownMs - a.at).toFixed(1)} ms after at; frames around at: ${(prev - a.at).toFixed(1)}, ${(raf[i]! - a.at).toFixed(1)}, ${((raf[i + 1] ?? NaN) - a.at).toFixed(1)}`);
    }
  }
  const loafRender = log.loaf.map((l) => l.render);
  const loafDur = log.loaf.map((l) => l.dur);
  const r = (xs: number[], p: number) => (xs.length ? percentile(xs, p) : NaN);
  console.error(`items bench: drawing tab frames ${raf.length}, interval p50 ${median(gaps).toFixed(1)} p90 ${r(gaps, 90).toFixed(1)} max ${Math.max(...gaps).toFixed(1)} ms; callback ran after the frame time p50 ${median(late).toFixed(1)} p90 ${r(late, 90).toFixed(1)}; drawn frames ${drawnAt.length}, their gaps p50 ${median(drawnGaps).toFixed(1)} p99 ${r(drawnGaps, 99).toFixed(1)} max ${Math.max(...drawnGaps).toFixed(1)}; long frames ${log.loaf.length}, duration p50 ${median(loafDur).toFixed(1)}, render part p50 ${median(loafRender).toFixed(1)}`);
  return {
    spawn_drawing_tab_frame_interval_ms_p50: median(gaps),
    spawn_drawing_tab_frame_interval_ms_p90: r(gaps, 90),
    spawn_drawing_tab_frame_interval_ms_max: gaps.length ? Math.max(...gaps) : NaN,
    spawn_drawing_tab_drawn_gap_ms_p50: median(drawnGaps),
    spawn_drawing_tab_drawn_gap_ms_p99: r(drawnGaps, 99),
    spawn_drawing_tab_drawn_gap_ms_max: drawnGaps.length ? Math.max(...drawnGaps) : NaN,
    spawn_drawing_tab_at_to_first_frame_ms_max: toFirst.length ? Math.max(...toFirst) : NaN,
    spawn_drawing_tab_at_to_first_frame_ms_p50: median(toFirst),
    spawn_drawing_tab_extra_frame_ms_max: extra.length ? Math.max(...extra) : NaN,
    spawn_drawing_tab_items_drawn_late: extraFrames,
  };
}
