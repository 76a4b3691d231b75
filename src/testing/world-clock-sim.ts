// Seeded WorldClock runs on virtual time: a host (the world's reference), a peer following it
// and a peer following that peer, on drifting clocks (up to 100 ppm each) over links whose
// latency differs each way, with exponential jitter and loss. Measures each follower's
// true error against the bound it states, and the true-time spread of world events set
// 2 s ahead. Run by src/agree/world-clock.test.ts and bench/contest-bench.ts.
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import type { ClockMessage } from '../agree/clock-probe';
import { WorldClock } from '../agree/world-clock';
import { DriftingClock } from './drifting-clock';

export interface ClockNet {
  lo: number;
  hi: number;
  jitterMean: number;
  loss: number;
}

/** A host (the reference), a peer following it and a peer following that peer, on drifting clocks over asymmetric jittery lossy links. */
function world(seed: number, net: ClockNet) {
  const rand = seededRandom(seed);
  const truth = new VirtualClock();
  const base = new Map<string, number>();
  const clocks = new Map<string, WorldClock>();
  const send = (from: string) => (to: string, msg: ClockMessage) => {
    const k = `${from}>${to}`;
    if (!base.has(k)) base.set(k, net.lo + rand() * (net.hi - net.lo)); // each direction its own latency
    if (rand() < net.loss) return;
    truth.setTimeout(() => clocks.get(to)?.receive(from, msg), base.get(k)! - Math.log(1 - rand()) * net.jitterMean);
  };
  const make = (id: string, refs: string[]) => {
    const local = new DriftingClock(truth, rand() * 1e6, (rand() - 0.5) * 2e-4);
    const c = new WorldClock({ local, base: 1.7e12 - local.now(), send: send(id), references: () => refs });
    clocks.set(id, c);
    c.start();
    return c;
  };
  return { truth, host: make('host', []), peer: make('peer', ['host']), far: make('far', ['peer']) };
}

export function runWorldClockSim(seed: number, net: ClockNet, ms = 90_000) {
  const w = world(seed, net);
  const errors: number[] = [], bounds: number[] = [];
  let violations = 0;
  const check = () => {
    for (const c of [w.peer, w.far]) {
      const s = c.status();
      if (!Number.isFinite(s.bound)) continue;
      const err = Math.abs(c.now() - w.host.now());
      errors.push(err);
      bounds.push(s.bound);
      if (err > s.bound + 1e-9) violations++;
    }
    w.truth.setTimeout(check, 250);
  };
  w.truth.setTimeout(check, 250);
  // World events set 2 s ahead by the host's clock: the true moments each clock fires them.
  const skews: number[] = [];
  for (let t = 5000; t + 3000 < ms; t += 5000) {
    w.truth.setTimeout(() => {
      const at = w.host.now() + 2000;
      const fired: number[] = [];
      for (const c of [w.host, w.peer, w.far]) c.at(at, () => { fired.push(w.truth.now()); if (fired.length === 3) skews.push(Math.max(...fired) - Math.min(...fired)); });
    }, t);
  }
  w.truth.advanceSync(ms);
  return { errors, bounds, violations, skews, status: w.peer.status() };
}

