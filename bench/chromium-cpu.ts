// CPU time of the machine's Chromium processes by process type, from /proc (Linux), so a
// bench can say where a tab's frame time went: the GPU process (where SwiftShader draws
// WebGL), the renderers (the pages' main threads and workers), the browser process.
// Chromium rewrites its command line as its process title (arguments joined by spaces).
import { readFileSync, readdirSync } from 'node:fs';

/** /proc/<pid>/stat counts in clock ticks of 10 ms. */
const TICK_HZ = 100;

export type CpuSnapshot = Map<string, { cpu: number; procs: number }>;

/** CPU seconds so far of each Chromium process type ('browser': the one with no --type). */
export function chromiumCpu(): CpuSnapshot {
  const by: CpuSnapshot = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
      if (!/chrom/.test(args[0] ?? '')) continue;
      const type = args.find((a) => a.startsWith('--type='))?.slice(7) ?? 'browser';
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const e = by.get(type) ?? { cpu: 0, procs: 0 };
      by.set(type, { cpu: e.cpu + (Number(f[11]) + Number(f[12])) / TICK_HZ, procs: e.procs + 1 });
    } catch { /* gone meanwhile */ }
  }
  return by;
}

/** Cores used per process type between two snapshots `secs` apart ("gpu-process 0.80 (1)": cores, processes). */
export function cpuReport(before: CpuSnapshot, after: CpuSnapshot, secs: number): { text: string; cores: (type: string) => number } {
  const cores = (type: string) => ((after.get(type)?.cpu ?? 0) - (before.get(type)?.cpu ?? 0)) / secs;
  const text = [...after.keys()].sort().map((t) => `${t} ${cores(t).toFixed(2)} (${after.get(t)!.procs})`).join(', ');
  return { text, cores };
}
