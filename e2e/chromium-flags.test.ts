// The switches a test browser runs with (e2e/browser.ts). Chromium reads only the last
// `--disable-features` of its command line and Playwright passes its own list before ours,
// so ours repeats Playwright's: when a Playwright upgrade names a feature more, this fails
// until PLAYWRIGHT_DISABLED names it too. And the audio service runs in the browser process:
// out of it, the first AudioContext of a browser (a drawing tab's first click) waited
// 0.45-2.2 s for its process to start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { readdirSync, readFileSync } from 'node:fs';
import { launchBrowser } from './browser';

/** The command lines of this worker's child processes (Playwright launches Chromium as one). */
function childCommandLines(): string[][] {
  const out: string[][] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      // The parent's pid is the 4th field of stat, after the command's name in parentheses.
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === process.pid) out.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe('Chromium switches', () => {
  it('the last --disable-features keeps every feature an earlier one turned off, and the audio service in process', () => {
    const browsers = childCommandLines().filter((args) => args.includes('--remote-debugging-pipe'));
    expect(browsers.length).toBeGreaterThan(0); // ours (shared by the files, e2e/browser.ts)
    for (const args of browsers) {
      const lists = args.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice('--disable-features='.length).split(',').filter(Boolean));
      expect(lists.length).toBeGreaterThan(0);
      const last = new Set(lists.at(-1));
      for (const list of lists) expect(list.filter((f) => !last.has(f))).toEqual([]);
      expect(last.has('AudioServiceOutOfProcess')).toBe(true);
    }
  });
});
