// Where a crowd of bot tabs spends its CPU (bench/agents.ts --crowd-profile): for a window
// of the walk, a DevTools CPU profile of a few of the bots' main threads, mapped through the
// built bundle's source maps to source files and layers (src/<folder>, a package, or the
// engine: GC, builtins), plus every tab's main-thread task time (Performance.getMetrics)
// and the CPU of every Chromium thread from /proc by process type and thread name: the
// renderer's main thread (JavaScript, layout), its WebRTC threads (SCTP, DTLS, ICE), its
// workers, the browser process. Figures are ms per second of wall time, per profiled tab.
import { readFileSync, readdirSync } from 'node:fs';
import type { CDPSession, Page } from 'playwright-core';
import { bundleLookups } from './source-map-lookup';

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface Profile { nodes: ProfileNode[]; startTime: number; endTime: number; samples?: number[]; timeDeltas?: number[] }

/** Per profiled tab, ms of self time per second of wall time. */
export interface CrowdProfile {
  seconds: number;
  tabs: number;
  /** Main-thread busy ms/s (every sample that was not idle), mean over the profiled tabs. */
  busy: number;
  /** Renderer main-thread TaskDuration and ScriptDuration ms/s of every tab (not only the profiled ones). */
  task: number[];
  script: number[];
  /** Self ms/s by layer; builtins and natives count to the JavaScript that called them. */
  layers: [string, number][];
  files: [string, number][];
  functions: [string, number][];
  /** Chromium CPU ms/s by `process type / thread name`, whole browser (every tab). */
  threads: [string, number][];
}

/** Processes descended from this one (the browser it launched), so other browsers on the machine are left out. */
function ourProcesses(): string[] {
  const parent = new Map<string, string>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]!);
    } catch { /* gone */ }
  }
  const self = String(process.pid);
  return [...parent.keys()].filter((pid) => {
    for (let p: string | undefined = parent.get(pid), n = 0; p && p !== '0' && n < 20; p = parent.get(p), n++) if (p === self) return true;
    return false;
  });
}

/** CPU seconds so far of every thread of the Chromium this process launched, by `process type / thread name` (digits dropped). */
export function chromiumThreads(): Map<string, number> {
  const by = new Map<string, number>();
  for (const pid of ourProcesses()) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
      if (!/chrom/.test(args[0] ?? '')) continue;
      const type = args.find((a) => a.startsWith('--type='))?.slice(7) ?? 'browser';
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        try {
          const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim().replace(/[\d/:.-]+$/, '');
          const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
          const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          const key = `${type} / ${name}`;
          by.set(key, (by.get(key) ?? 0) + (Number(f[11]) + Number(f[12])) / 100);
        } catch { /* thread gone */ }
      }
    } catch { /* process gone */ }
  }
  return by;
}

/** `src/dht/kademlia.ts` -> `src/dht`; a package -> its name; else the file. */
export function layerOf(source: string): string {
  const s = source.replace(/^(\.\.\/)+/, '').replace(/^\/?@fs\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(s);
  if (pkg) return pkg[1]!;
  const src = /(?:^|\/)(src\/[^/]+)\//.exec(s);
  if (src) return src[1]!;
  return s;
}

const ENGINE = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);

/** Self ms by function, file and layer of one profile (ms, not per second). */
export function attribute(p: Profile, dist: string): { busy: number; layers: Map<string, number>; files: Map<string, number>; functions: Map<string, number> } {
  const lookup = bundleLookups(dist);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  const samples = p.samples ?? [], deltas = p.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0) / 1000);
  const where = new Map<number, { file: string; fn: string }>();
  const place = (id: number): { file: string; fn: string } | undefined => {
    const n = byId.get(id);
    if (!n) return undefined;
    const f = n.callFrame;
    if (!f.url) return undefined;
    let w = where.get(id);
    if (!w) {
      const bundle = f.url.replace(/^.*\//, '').replace(/\?.*$/, '');
      const pos = lookup(bundle)?.lookup(f.lineNumber, f.columnNumber);
      const file = pos ? pos.source.replace(/^(\.\.\/)+/, '') : bundle;
      w = { file, fn: `${f.functionName || pos?.name || '(anonymous)'} ${file.replace(/^.*node_modules\//, '')}:${pos?.line ?? f.lineNumber + 1}` };
      where.set(id, w);
    }
    return w;
  };
  const layers = new Map<string, number>(), files = new Map<string, number>(), functions = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, ms: number) => m.set(k, (m.get(k) ?? 0) + ms);
  let busy = 0;
  for (const [id, ms] of self) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') continue;
    busy += ms;
    if (ENGINE.has(f.functionName) && !f.url) {
      add(layers, f.functionName, ms);
      add(functions, f.functionName, ms);
      continue;
    }
    const own = place(id);
    if (own) {
      add(functions, own.fn, ms);
      add(files, own.file, ms);
      add(layers, layerOf(own.file), ms);
      continue;
    }
    // A builtin or native (JSON.parse, a DataChannel's send, crypto): to its nearest JS caller.
    let up = parent.get(id), caller: { file: string; fn: string } | undefined;
    while (up !== undefined && !(caller = place(up))) up = parent.get(up);
    // Two more JS callers up: `sign` or `send` alone does not say who signs or sends.
    const chain: string[] = [];
    for (let u = up === undefined ? undefined : parent.get(up); u !== undefined && chain.length < 2; u = parent.get(u)) {
      const c = place(u);
      if (c) chain.push(c.fn);
    }
    const name = `(native) ${f.functionName || '(anonymous)'}`;
    add(functions, caller ? [name, caller.fn, ...chain].join(' <- ') : name, ms);
    add(layers, caller ? layerOf(caller.file) : '(native)', ms);
    if (caller) add(files, caller.file, ms);
  }
  return { busy, layers, files, functions };
}

interface Watch { page: Page; cdp: CDPSession }

async function taskMs(w: Watch): Promise<{ task: number; script: number }> {
  const { metrics } = await w.cdp.send('Performance.getMetrics');
  const get = (name: string) => (metrics.find((m) => m.name === name)?.value ?? NaN) * 1000;
  return { task: get('TaskDuration'), script: get('ScriptDuration') };
}

/**
 * Starts watching `pages` (every bot: task time) and profiling the first `profiled` of them;
 * the returned function stops and summarises. `dist`: the built app, for its source maps.
 */
export async function startCrowdProfile(pages: Page[], profiled: number, dist: string): Promise<() => Promise<CrowdProfile>> {
  const watches: Watch[] = await Promise.all(pages.map(async (page) => {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    return { page, cdp };
  }));
  const sampled = watches.slice(0, profiled);
  for (const w of sampled) {
    await w.cdp.send('Profiler.enable');
    await w.cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
  }
  const task0 = await Promise.all(watches.map((w) => taskMs(w).catch(() => ({ task: NaN, script: NaN }))));
  const threads0 = chromiumThreads();
  const t0 = Date.now();
  await Promise.all(sampled.map((w) => w.cdp.send('Profiler.start')));
  return async () => {
    const profiles = await Promise.all(sampled.map(async (w) => ((await w.cdp.send('Profiler.stop')) as unknown as { profile: Profile }).profile));
    const secs = (Date.now() - t0) / 1000;
    const threads1 = chromiumThreads();
    const task1 = await Promise.all(watches.map((w) => taskMs(w).catch(() => ({ task: NaN, script: NaN }))));
    await Promise.all(watches.map((w) => w.cdp.detach().catch(() => {})));
    const per = (ms: number) => Math.round((ms / secs / Math.max(1, profiles.length)) * 10) / 10;
    const sum = { busy: 0, layers: new Map<string, number>(), files: new Map<string, number>(), functions: new Map<string, number>() };
    for (const p of profiles) {
      const a = attribute(p, dist);
      sum.busy += a.busy;
      for (const k of ['layers', 'files', 'functions'] as const) for (const [name, ms] of a[k]) sum[k].set(name, (sum[k].get(name) ?? 0) + ms);
    }
    const top = (m: Map<string, number>, n: number): [string, number][] => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => [k, per(v)]);
    const threads = [...threads1].map(([k, s]): [string, number] => [k, Math.round(((s - (threads0.get(k) ?? 0)) / secs) * 1000)]).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
    const rate = (k: 'task' | 'script') => task1.map((t, i) => Math.round((t[k] - task0[i]![k]) / secs));
    return {
      seconds: Math.round(secs * 10) / 10, tabs: profiles.length, busy: per(sum.busy), task: rate('task'), script: rate('script'),
      layers: top(sum.layers, 30), files: top(sum.files, 40), functions: top(sum.functions, 60), threads: threads.slice(0, 40),
    };
  };
}
