// A Ticker for simulations that runs as a tab's does (app/worker-ticker.ts): the sources of
// one rate share one timer and run in one call, in the order they started, and each rate
// ticks on the multiples of its period, so rates that fall together run at one instant.
// clockTicker (core/ticker.ts) gives each source a timer of its own, from its start.
import type { Clock, TimerHandle } from '../core/clock';
import type { Ticker } from '../core/ticker';

interface Group {
  runs: Map<number, () => void>;
  stop(): void;
}

export function groupedTicker(clock: Clock): Ticker {
  const groups = new Map<number, Group>();
  let nextId = 0;
  const open = (hz: number): Group => {
    const period = 1000 / hz;
    const runs = new Map<number, () => void>();
    let handle: TimerHandle;
    let stopped = false;
    const arm = () => {
      const now = clock.now();
      handle = clock.setTimeout(fire, (Math.floor(now / period) + 1) * period - now);
    };
    // A source stopped by an earlier one in this tick does not run.
    const fire = () => {
      if (stopped) return;
      arm();
      for (const [id, run] of [...runs]) if (runs.has(id)) run();
    };
    arm();
    return { runs, stop: () => { stopped = true; clock.clearTimeout(handle); } };
  };
  return {
    start(hz, fn) {
      const id = nextId++;
      let g = groups.get(hz);
      if (!g) groups.set(hz, (g = open(hz)));
      g.runs.set(id, fn);
      const group = g;
      return () => {
        if (!group.runs.delete(id) || group.runs.size > 0) return;
        group.stop();
        groups.delete(hz);
      };
    },
  };
}
