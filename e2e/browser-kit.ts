// One interface over the two browser engines the tests drive: Chromium through playwright-core
// (e2e/browser.ts) and Firefox ESR through puppeteer-core over WebDriver BiDi (Playwright's
// Firefox is a patched build of its own, a download; docs/TESTING.md "Firefox"). A test that
// only evaluates in pages and waits on them runs the same against either.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Browser as PwBrowser, Page as PwPage } from 'playwright-core';
import puppeteer, { type Browser as PpBrowser, type Page as PpPage } from 'puppeteer-core';
import { launchBrowser, newContext, openPage } from './browser';
import { nextReturningPlayer, seededIds, seedReturningPlayer, writeIdentities } from './returning-player';

export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

export const FIREFOX_PREFS: Record<string, unknown> = {
  // Both are needed for ICE in a loopback-only namespace, each useless alone: without a media
  // permission Firefox gathers only the default route's address, and there is none.
  'media.peerconnection.ice.loopback': true,
  'permissions.default.microphone': 1,
  // No first-run pages, update checks or telemetry reaching for the network.
  'browser.shell.checkDefaultBrowser': false,
  'app.update.enabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.enabled': false,
};

/** A tab of either engine: what the mixed-browser tests need of it. */
export interface Tab {
  engine: 'chromium' | 'firefox';
  /** The node ids its profile was seeded with (Engine.open's `seedOn`): it runs as one of them. */
  seeded?: string[];
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  /** Resolves once `fn(arg)` is truthy in the page, polled every `pollMs`. */
  waitFor<A>(fn: (arg: A) => unknown, arg: A, timeoutMs: number, pollMs?: number): Promise<void>;
  goto(url: string): Promise<void>;
  /**
   * Kills the tab's browser at once, every process of it (SIGKILL to its process group), as
   * when the machine dies: no page event runs, nothing says goodbye, its links go silent.
   * Firefox tabs only (each has a browser of its own; a Chromium tab's renderer crash is
   * e2e/browser.ts crashPage).
   */
  kill?(): Promise<void>;
}

export interface Engine {
  /**
   * A tab in a fresh profile or context: its own IndexedDB, so its own identity; with
   * `seedOn` (the game's origin) a returning player's, minted ahead (e2e/returning-player.ts).
   */
  open(label: string, seedOn?: string): Promise<Tab>;
  close(): Promise<void>;
}

export function chromiumTab(page: PwPage): Tab {
  return {
    engine: 'chromium',
    // Playwright's types unbox handles in the argument; these tests pass plain data only.
    evaluate: (fn, arg) => page.evaluate(fn as (a: unknown) => never, arg),
    waitFor: async (fn, arg, timeoutMs, pollMs = 20) => { await page.waitForFunction(fn as (a: unknown) => unknown, arg, { timeout: timeoutMs, polling: pollMs }); },
    goto: async (url) => { await page.goto(url); },
  };
}

function firefoxTab(page: PpPage, browser: PpBrowser): Tab {
  return {
    engine: 'firefox',
    kill: () => new Promise<void>((resolve, reject) => {
      const proc = browser.process();
      if (!proc?.pid || proc.exitCode !== null || proc.signalCode !== null) return reject(new Error('no running Firefox process to kill'));
      proc.once('exit', () => resolve());
      // puppeteer starts Firefox detached: the leader of a process group of its own.
      process.kill(-proc.pid, 'SIGKILL');
    }),
    evaluate: (fn, arg) => page.evaluate(fn as (a: unknown) => unknown, arg) as Promise<never>,
    waitFor: async (fn, arg, timeoutMs, pollMs = 20) => { await page.waitForFunction(fn as (a: unknown) => unknown, { timeout: timeoutMs, polling: pollMs }, arg); },
    goto: async (url) => { await page.goto(url); },
  };
}

export async function chromiumEngine(): Promise<Engine> {
  const browser: PwBrowser = await launchBrowser();
  return {
    open: async (label, seedOn) => {
      const context = await newContext(browser, { viewport: { width: 960, height: 600 } });
      const page = await openPage(context, undefined, { label });
      const seeded = seedOn ? await seedReturningPlayer(context, seedOn, page) : undefined;
      return { ...chromiumTab(page), seeded };
    },
    close: () => browser.close(),
  };
}

/**
 * An X server of our own for Firefox's WebGL (headless Firefox without a display gets no GL
 * context at all). `-displayfd` has Xvfb pick a free display and say which.
 */
async function startXvfb(): Promise<{ display: string; proc: ChildProcess }> {
  const proc = spawn('Xvfb', ['-displayfd', '1', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const display = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('Xvfb did not start in 10 s')), 10_000);
    proc.stdout!.once('data', (d: Buffer) => { clearTimeout(timer); resolve(`:${d.toString().trim()}`); });
    proc.once('error', (e) => { clearTimeout(timer); reject(e); });
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`Xvfb exited with ${code}`)); });
  });
  return { display, proc };
}

/** Firefox ESR, one browser (and one profile) per tab, drawing on an Xvfb display of its own. */
export async function firefoxEngine(): Promise<Engine> {
  if (!existsSync(FIREFOX)) throw new Error(`no Firefox at ${FIREFOX}: apt-get install -y firefox-esr xvfb (bash .ci/run does)`);
  const xvfb = await startXvfb();
  const browsers: PpBrowser[] = [];
  return {
    open: async (label, seedOn) => {
      const browser = await puppeteer.launch({
        // No viewport override: Firefox ESR 140's BiDi lacks the screen-orientation command puppeteer sends with one.
        // A small window: no test reads its pixels, and llvmpipe shades every one of each frame on the CPU.
        browser: 'firefox', executablePath: FIREFOX, headless: true, extraPrefsFirefox: FIREFOX_PREFS, defaultViewport: null, args: ['--width=480', '--height=300'],
        // One llvmpipe thread: Mesa otherwise takes every core from the other tabs.
        env: { ...process.env, DISPLAY: xvfb.display, LP_NUM_THREADS: '1' },
      });
      browsers.push(browser);
      const page = await browser.newPage();
      page.on('pageerror', (e) => console.error(`${label} pageerror`, e));
      const records = seedOn ? await nextReturningPlayer() : undefined;
      if (!records) return firefoxTab(page, browser);
      // A document of the origin that runs nothing of the game: its IndexedDB is the game's.
      await page.goto(`${seedOn}/favicon.svg`);
      const seeded = (await page.evaluate(writeIdentities, records)) ? await seededIds(records) : undefined;
      return { ...firefoxTab(page, browser), seeded };
    },
    close: async () => {
      await Promise.all(browsers.map((b) => b.close().catch(() => {})));
      xvfb.proc.kill('SIGKILL');
    },
  };
}
