// The browser test files share their worker process (vitest.e2e.config.ts `isolate: false`),
// so a browser, relay or headless peer a file leaves running would live on into the next
// files: its tabs would join their worlds. After each file, every process the file's
// worker still has as a child is killed and the file fails, naming them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll } from 'vitest';
import { closeSharedContexts, sharedArgs } from './browser';

/** The worker's child processes still running (but the shared browsers, e2e/browser.ts): pid and command. */
function children(): { pid: number; cmd: string }[] {
  let out: string;
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there is none
  }
  return out.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
    const [pid, ...cmd] = l.split(/\s+/);
    return { pid: Number(pid), cmd: cmd.join(' ') };
  }).filter((c) => c.pid !== process.pid && !c.cmd.startsWith('ps ') && !isShared(c.pid));
}

/** Whether `pid` is a shared browser (its whole command line, which ps may cut). */
function isShared(pid: number): boolean {
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return false;
  }
  return sharedArgs().some((a) => args.includes(a));
}

afterAll(async () => {
  // Tabs a file left open in a shared browser would play on in the next files' worlds.
  const contexts = await closeSharedContexts();
  // A process told to stop may take a moment to exit.
  let left = children();
  for (let i = 0; i < 20 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = children();
  }
  if (contexts > 0) throw new Error(`left ${contexts} browser context(s) open in a shared browser after the file's tests (closed now)`);
  if (left.length === 0) return;
  for (const c of left) {
    try {
      process.kill(c.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  throw new Error(`left running after the file's tests (killed now): ${left.map((c) => `${c.pid} ${c.cmd.slice(0, 120)}`).join('; ')}`);
});
