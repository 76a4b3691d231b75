// Seeded clock-sync runs on a virtual clock: a reference host and peers whose local
// clocks start at random origins and drift (up to 100 ppm each way), probing the host
// over links that are asymmetric (each way its own base latency) and jittery (heavy-
// tailed extra delay), with lost replies. Measures each peer's true offset error against
// the bound it states, and how far apart in true time the peers fire one world event.
// Run by src/agree/clock-sync.test.ts and bench/contest-bench.ts.
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { answerTime, ClockProbe } from '../agree/clock-probe';
import { EventClock } from '../agree/event-clock';
import { DriftingClock } from './drifting-clock';

export interface ClockSimOptions {
  seed: number;
  peers?: number;
  /** Virtual run length (default 120 s); a world event is set every 5 s from 10 s on. */
  durationMs?: number;
  /** One-way base latencies are drawn per direction in [min, max]; jitter is exponential with this mean. */
  latencyMinMs?: number;
  latencyMaxMs?: number;
  jitterMeanMs?: number;
  loss?: number;
}

export interface ClockSimResult {
  /** |estimate - true offset| and the stated bound, sampled every 250 ms after the first reply. */
  errors: number[];
  bounds: number[];
  /** Samples where the error exceeded the bound. */
  violations: number;
  /** True-time spread of each world event's firing across the peers (ms). */
  skews: number[];
}

export function runClockSim(o: ClockSimOptions): ClockSimResult {
  const rand = seededRandom(o.seed);
  const truth = new VirtualClock();
  const duration = o.durationMs ?? 120_000;
  const [lo, hi] = [o.latencyMinMs ?? 2, o.latencyMaxMs ?? 60];
  const oneWay = () => lo + rand() * (hi - lo);
  const jitter = () => -Math.log(1 - rand()) * (o.jitterMeanMs ?? 8);
  const host = new DriftingClock(truth, rand() * 1e6, (rand() - 0.5) * 2e-4);
  const result: ClockSimResult = { errors: [], bounds: [], violations: 0, skews: [] };

  const peers = Array.from({ length: o.peers ?? 2 }, () => {
    const local = new DriftingClock(truth, rand() * 1e6, (rand() - 0.5) * 2e-4);
    const probe = new ClockProbe();
    const events = new EventClock({ local, target: (now) => probe.estimator.estimate(now) });
    const [up, down] = [oneWay(), oneWay()];
    // The thesis's exchange: a burst of 8 to start, then one every 2 s.
    const ask = (k: number) => {
      const req = probe.request(local.now());
      truth.setTimeout(() => {
        const rep = answerTime(req as { n: number }, host.now());
        if (rand() >= (o.loss ?? 0.05)) truth.setTimeout(() => probe.reply(rep as { n: number; now: number }, local.now()), down + jitter());
      }, up + jitter() + rand() * 2);
      truth.setTimeout(() => ask(k + 1), k < 8 ? 100 : 2000);
    };
    ask(0);
    return { local, probe, events };
  });

  const check = () => {
    for (const p of peers) {
      const est = p.probe.estimator.estimate(p.local.now());
      if (!est) continue;
      const err = Math.abs(est.offset - (host.now() - p.local.now()));
      result.errors.push(err);
      result.bounds.push(est.bound);
      if (err > est.bound) result.violations++;
    }
    truth.setTimeout(check, 250);
  };
  truth.setTimeout(check, 250);

  // Each world event: set 3 s ahead by the first peer's clock, as a spawn decision would be.
  const fired: number[][] = [];
  for (let t = 10_000; t + 4000 < duration; t += 5000) {
    truth.setTimeout(() => {
      const times: number[] = [];
      fired.push(times);
      const at = peers[0]!.events.now() + 3000;
      for (const p of peers) p.events.at(at, () => times.push(truth.now()));
    }, t);
  }
  truth.advanceSync(duration);
  for (const times of fired) if (times.length === peers.length) result.skews.push(Math.max(...times) - Math.min(...times));
  return result;
}
