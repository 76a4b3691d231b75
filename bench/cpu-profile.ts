// A CPU profile of one Chromium page (DevTools Profiler), summed by self time per function
// and per source file: where a tab's main thread spends its time under load (bench/agents.ts
// --profile). Sampling at 1 ms; the page's workers are not in it (their own targets).
import type { Page } from 'playwright-core';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] }
interface Profile { nodes: ProfileNode[]; startTime: number; endTime: number; samples?: number[]; timeDeltas?: number[] }

export interface ProfileSummary {
  /** Wall ms profiled and ms of samples on the main thread that were not idle. */
  wallMs: number;
  busyMs: number;
  /** Self ms by function (`name file:line`), most first. */
  functions: [string, number][];
  /** Self ms by source file (bundle chunk or module), most first. */
  files: [string, number][];
}

/** Starts profiling `page`; the returned function stops and summarises. */
export async function profilePage(page: Page): Promise<() => Promise<ProfileSummary>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
  await cdp.send('Profiler.start');
  return async () => {
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
    await cdp.detach().catch(() => {});
    return summarise(profile);
  };
}

export function summarise(p: Profile): ProfileSummary {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const samples = p.samples ?? [], deltas = p.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0) / 1000);
  const fns = new Map<string, number>(), files = new Map<string, number>();
  let busy = 0;
  for (const [id, ms] of self) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)' || f.functionName === '(program)' && !f.url) {
      if (f.functionName === '(program)') busy += ms;
      if (f.functionName === '(program)') fns.set('(program)', (fns.get('(program)') ?? 0) + ms);
      continue;
    }
    busy += ms;
    const file = f.url ? f.url.replace(/^.*\//, '').replace(/\?.*$/, '') : '(native)';
    const name = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
    fns.set(name, (fns.get(name) ?? 0) + ms);
    files.set(file, (files.get(file) ?? 0) + ms);
  }
  const top = (m: Map<string, number>, n: number): [string, number][] => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => [k, Math.round(v)]);
  return { wallMs: Math.round((p.endTime - p.startTime) / 1000), busyMs: Math.round(busy), functions: top(fns, 40), files: top(files, 15) };
}
