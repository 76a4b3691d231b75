// A vitest setup file: the CPU seconds each test file took, its worker process and every
// process it started (browsers, relays, headless peers) counted, appended as "file\tcpu_s"
// to the file named by VP_FILE_CPU (scripts/test.sh sets it beside VP_FILE_TIMES;
// scripts/file-times-reporter.ts puts the figure beside the file's wall time). On a shared
// or busy machine a file's wall time says little (a simulation at the lowest priority took
// 3-10 times its CPU in fresh-clone CI runs), and the CPU seconds are what the suite's phases
// share: every CPU-s cut moves the end of `npm test` by about half a second on 2 cores.
//
// Counted from /proc, each process of the worker's tree on its own (user + system time), from
// the previous file's end in this worker (so a file's import is its own) to the file's end.
// Where processes come and go (VP_CPU_SAMPLE_MS, set by vitest.e2e.config.ts: browsers), the
// tree is sampled that often and a process that ended counts its last sample: Chromium's
// renderers end without their CPU reaching any parent's counters (`/usr/bin/time`, `times`
// and getrusage miss it: start-screen's browsers took ~90 CPU-s where /usr/bin/time counted
// 23 for the whole run). Elsewhere the children's CPU is what the worker reaped (cutime).
// Linux only; elsewhere nothing is written. VP_TEST_CPU=1 also prints each test's CPU
// seconds and wall time (hooks apart), to find which test of a file takes them.
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';

const out = process.env.VP_FILE_CPU;
const sampleMs = Number(process.env.VP_CPU_SAMPLE_MS ?? 0);
/** Clock ticks a second of /proc/PID/stat's times (USER_HZ: 100 on every Linux build in use). */
const TICKS = 100;

/** Each process of `root`'s tree now, keyed by pid and start time (a pid can be reused): user + system ticks, and with its reaped children's. */
function treeNow(root: number): Map<string, { own: number; reaped: number }> {
  const parent = new Map<number, number>();
  const times = new Map<number, { key: string; own: number; reaped: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${d}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the command (which may hold spaces and parentheses): state(3) ppid(4) ... utime(14) stime cutime cstime ... starttime(22).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parent.set(Number(d), Number(f[1]));
    times.set(Number(d), { key: `${d}:${f[19]}`, own: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) });
  }
  const tree = new Map<string, { own: number; reaped: number }>();
  for (const [pid, t] of times) {
    for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 64; p = parent.get(p), hops++) {
      if (p !== root) continue;
      tree.set(t.key, { own: t.own, reaped: t.reaped });
      break;
    }
  }
  return tree;
}

/**
 * CPU seconds of this process's tree since it was made. Sampled (`everyMs` > 0): the sum of
 * each process's own time, the last sample of those that ended. Not sampled: the live
 * processes' own time and what they reaped.
 */
class TreeCpu {
  private readonly from = treeNow(process.pid);
  private readonly last = new Map<string, number>();
  private readonly timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly everyMs: number) {
    if (everyMs > 0) {
      this.timer = setInterval(() => this.sample(), everyMs);
      this.timer.unref();
    }
  }

  private sample(): Map<string, { own: number; reaped: number }> {
    const now = treeNow(process.pid);
    for (const [k, t] of now) this.last.set(k, t.own);
    return now;
  }

  /** Seconds so far. */
  seconds(): number {
    const now = this.sample();
    let ticks = 0;
    if (this.everyMs > 0) {
      for (const [k, own] of this.last) ticks += own - (this.from.get(k)?.own ?? 0);
    } else {
      for (const [k, t] of now) ticks += t.own + t.reaped - ((this.from.get(k)?.own ?? 0) + (this.from.get(k)?.reaped ?? 0));
    }
    return ticks / TICKS;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

/** The worker's count since the previous file's end (the files of a worker run one after another and share its globals: `isolate: false`). */
const worker = globalThis as { vpFileCpu?: TreeCpu };

if (out && process.platform === 'linux') {
  beforeAll(() => {
    // The first file of a worker counts from here; the others from the previous file's end (their import is theirs).
    worker.vpFileCpu ??= new TreeCpu(sampleMs);
  });
  // Registered first, so it runs after the file's own afterAll hooks (vitest runs them as a
  // stack): closing browsers and stopping relays is the file's CPU too.
  afterAll(() => {
    const count = worker.vpFileCpu!;
    const s = count.seconds();
    count.stop();
    worker.vpFileCpu = new TreeCpu(sampleMs);
    appendFileSync(out, `${relative(process.cwd(), expect.getState().testPath ?? 'unknown')}\t${s.toFixed(2)}\n`);
  });
}

if (process.env.VP_TEST_CPU && process.platform === 'linux') {
  let count: TreeCpu | undefined;
  let wall = 0;
  beforeEach(() => {
    count = new TreeCpu(sampleMs);
    wall = performance.now();
  });
  afterEach((ctx) => {
    console.log(`[cpu] ${count!.seconds().toFixed(2)} CPU-s, ${((performance.now() - wall) / 1000).toFixed(1)} s: ${ctx.task.name}`);
    count!.stop();
  });
}
