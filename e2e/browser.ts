// Launching real Chromium for browser tests and benchmarks (docs/TESTING.md): Debian's
// Chromium driven by playwright-core, loopback-only, WebGL on SwiftShader.
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type LaunchOptions, type Page } from 'playwright-core';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectSeededId, seedReturningPlayer } from './returning-player';

/**
 * The full browser: what benchmarks measure (a player's browser) and what hides a tab
 * behind another (bench/hidden-tick-bench.ts).
 */
export const CHROMIUM_FULL = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
/**
 * What launches here: under vitest (the browser tests) the same Chromium build's headless
 * shell (Debian's chromium-headless-shell, what Playwright itself runs headless) when
 * installed; the full browser's headless mode also runs its window UI (a top-chrome WebUI
 * renderer per browser, a compositor for a window nobody sees), CPU the tests spend on
 * nothing they check (docs/TESTING.md).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? (process.env.VITEST && existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : CHROMIUM_FULL);

/**
 * The features playwright-core (1.65) turns off in every Chromium it launches
 * (server/chromium/chromiumSwitches.ts `disabledFeatures`). Chromium reads only the last
 * `--disable-features` of its command line, and Playwright puts its own before ours: one of
 * ours names these again, or it would turn them back on. e2e/chromium-flags.test.ts reads a
 * launched browser's command line and fails when Playwright's list names one not here.
 */
const PLAYWRIGHT_DISABLED = [
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades', 'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay', 'MediaRouter', 'PaintHolding', 'ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin', 'OptimizationHints', 'NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch',
  'msForceBrowserSignIn', 'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * The one `--disable-features` a launch may give: Playwright's, ours and `more`.
 * AudioServiceOutOfProcess: the audio service in the browser process rather than a process
 * of its own, which the first `new AudioContext()` of a browser (a drawing tab's first click,
 * ui/sound-effects.ts) waited for to start: the constructor took 0.45-2.2 s in the headless
 * shell and the full browser, 5-50 ms in process (a blank page whose button constructs one; at
 * load 19-31, 2026-12-06).
 */
export function disableFeatures(...more: string[]): string {
  return `--disable-features=${[...PLAYWRIGHT_DISABLED, 'AudioServiceOutOfProcess', ...more].join(',')}`;
}

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', disableFeatures(),
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  // Without both of these (and in the headless shell, MEDIA granted to the context, which
  // the fake UI does not do there) Chromium gathers no ICE candidate on loopback.
  '--allow-loopback-in-peer-connection', '--use-fake-ui-for-media-stream',
  '--enable-unsafe-swiftshader', '--use-angle=swiftshader',
];

/**
 * The media permission every test context gets: without it Chromium hides the host's
 * addresses from WebRTC and gathers no candidate in a loopback-only namespace.
 */
export const MEDIA = ['microphone'];

/** A fresh context (its own IndexedDB, so its own identity) of `browser`, MEDIA granted. */
export function newContext(browser: Browser, opts: BrowserContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext({ permissions: MEDIA, ...opts });
}

/**
 * Which Chromium a test launches: the headless shell (CHROMIUM) unless it needs what only the
 * full browser does headless: the pointer lock (e2e/world, chat, controls, direct-message;
 * e2e/touch checks a tap does not take it), which a click never takes in the shell.
 */
export type Kind = 'shell' | 'full';

export function launchOptions(extra: string[] = [], kind: Kind = 'shell'): LaunchOptions {
  return { executablePath: kind === 'full' ? CHROMIUM_FULL : CHROMIUM, headless: true, args: [...CHROMIUM_ARGS, ...extra] };
}

/**
 * Under the browser tests (vitest.e2e.config.ts sets VP_SPARE_BROWSERS) a browser of each kind
 * is kept launched ahead: `launchBrowser()` with no extra arguments takes it and launches the
 * next one at once, beside the taking file's own work, so the next file that asks finds a
 * browser up instead of waiting seconds for one to start (the files run one at a time, and
 * most begin by launching a browser). A spare is a fresh browser nobody has used; its
 * command line carries SPARE_ARG, by which e2e/leak-guard.ts leaves the current spares
 * running after a file and e2e/global-setup.ts ends them after the run.
 */
export const SPARE_ARG = '--vp-spare=';
const spares = new Map<Kind, { arg: string; browser: Promise<Browser> }>();
let spareCount = 0;

/** The SPARE_ARG of each spare browser still waiting to be taken. */
export function spareArgs(): string[] {
  return [...spares.values()].map((s) => s.arg);
}

function launchSpare(kind: Kind): void {
  // The run's main process (this worker's parent) in it: global-setup ends only its own run's.
  const arg = `${SPARE_ARG}${process.ppid}-${++spareCount}`;
  const browser = chromium.launch(launchOptions([arg], kind));
  browser.catch(() => {}); // a failed spare is launched again when taken
  spares.set(kind, { arg, browser });
}

export async function launchBrowser(extra: string[] = [], kind: Kind = 'shell'): Promise<Browser> {
  if (extra.length > 0 || !process.env.VP_SPARE_BROWSERS) return chromium.launch(launchOptions(extra, kind));
  const spare = spares.get(kind);
  launchSpare(kind);
  const up = await spare?.browser.catch(() => undefined);
  return up?.isConnected() ? up : chromium.launch(launchOptions(extra, kind));
}

/** A browser on a profile of its own on disk; `dispose` closes it and removes a profile it made. */
export interface Profile {
  context: BrowserContext;
  dir: string;
  dispose: () => Promise<void>;
}

/**
 * The window of a drawing tab whose pixels no test reads (it draws for what the page does
 * on its frames): SwiftShader's cost grows with the pixels.
 */
export const SMALL_VIEW = { width: 320, height: 240 };

/** A browser profile on disk, so IndexedDB survives closing and reopening the browser. */
export async function launchProfile(dir?: string, viewport = { width: 960, height: 600 }, kind: Kind = 'shell'): Promise<Profile> {
  const profile = dir ?? mkdtempSync(join(tmpdir(), 'vp-profile-'));
  const context = await chromium.launchPersistentContext(profile, { ...launchOptions([], kind), viewport, permissions: MEDIA });
  return {
    context,
    dir: profile,
    dispose: async () => {
      await context.close().catch(() => {});
      if (dir) return;
      // Chromium's last processes may still write into the profile just after close (a CI
      // run failed here once with ENOTEMPTY): rmSync retries those errors, and a profile
      // left behind in the temp dir is reported, not a failed test.
      try {
        rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
      } catch (e) {
        console.warn(`profile ${profile} not removed: ${(e as Error).message}`);
      }
    },
  };
}

/**
 * Disposes of every profile at once: each waits for its browser's processes to exit, and one
 * after another four of them took 7.0-9.5 s against 3.7-4.1 s together (4 headless shells,
 * a blank tab each, load 44).
 */
export async function disposeAll(profiles: Profile[]): Promise<void> {
  await Promise.all(profiles.map((p) => p.dispose()));
}

/**
 * Frames a second a drawing test tab draws at most (the app's `?fps=`): software WebGL draws
 * each frame on a CPU core, as many as it can, so each drawing tab took most of a core of
 * the two the suite has; at this rate a small one takes a fraction, and movement and items
 * still step as they do at any rate of 10 or more (render/frame-cap.ts).
 */
export const TEST_FPS = 15;

/** `url` with `fps=TEST_FPS` when it is a player page that draws and sets no rate of its own. */
export function withTestFps(url: string): string {
  const u = new URL(url);
  if (u.pathname.endsWith('.html') && !u.pathname.endsWith('/index.html')) return url;
  if (u.searchParams.get('render') === 'off' || u.searchParams.has('fps')) return url;
  u.searchParams.set('fps', String(TEST_FPS));
  return u.href;
}

/** What a test waits for once a page has loaded (in-page predicates, for `OpenOptions.until`). */
export const PAGE_UP = {
  /** The player page started (window.voxel exists). */
  voxel: () => typeof window.voxel === 'object',
  /** The player page has joined the peer network. */
  net: () => window.voxel?.net !== undefined,
  /** The player page plays in the shared world (and hosts in it). */
  hosting: () => window.voxel?.hosting !== undefined,
  /** The host page (host.html) is up. */
  host: () => window.voxelHost?.ready === true,
};

export interface OpenOptions {
  /** Put before the page's errors in the log (default 'pageerror'). */
  label?: string;
  /** Waits for this after loading (one of PAGE_UP, or any in-page predicate). */
  until?: () => unknown;
  /** How long `until` may take (default 30 s). */
  timeoutMs?: number;
  /** Then waits for the world around the player to be drawn (window.voxel.ready()). */
  ready?: boolean;
  /**
   * A context's first page opens as a new player's would, minting its identities (~2 CPU-s
   * of work). Default: as a returning player's, the identities minted ahead (e2e/returning-player.ts).
   */
  fresh?: boolean;
}

/** Opens `url` (none: a blank tab) in a new tab of `context`, its errors logged, waited for as `opts` say. */
export async function openPage(context: BrowserContext, url?: string, opts: OpenOptions = {}): Promise<Page> {
  const seededIds = url !== undefined && !opts.fresh ? await seedReturningPlayer(context, new URL(url).origin) : undefined;
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(opts.label ? `${opts.label} pageerror` : 'pageerror', e));
  if (url === undefined) return page;
  await page.goto(withTestFps(url));
  if (opts.until) await page.waitForFunction(opts.until, null, { timeout: opts.timeoutMs ?? 30_000, polling: 20 });
  if (seededIds) await expectSeededId(page, seededIds, new URL(url).origin);
  if (opts.ready) await page.evaluate(() => window.voxel.ready());
  return page;
}

/**
 * A tab in a fresh browser context of `browser`: its own IndexedDB, so its own identity,
 * gone when the context closes (`page.context().close()`).
 */
export async function openInFreshContext(browser: Browser, url?: string, opts: OpenOptions & { viewport?: { width: number; height: number }; permissions?: string[] } = {}): Promise<Page> {
  const context = await newContext(browser, { ...(opts.viewport ? { viewport: opts.viewport } : {}), ...(opts.permissions ? { permissions: opts.permissions } : {}) });
  return openPage(context, url, opts);
}

/**
 * A tab in a fresh browser profile on disk (its own identity, kept across a browser
 * restart): dispose of `profile` after the test. `permissions` replace the origin's, and
 * always include the microphone (without it loopback WebRTC gathers no candidate).
 */
export async function openInFreshProfile(url: string, opts: OpenOptions & { permissions?: string[] } = {}): Promise<{ page: Page; profile: Profile }> {
  const profile = await launchProfile();
  if (opts.permissions) await profile.context.grantPermissions(['microphone', ...opts.permissions.filter((p) => p !== 'microphone')]);
  return { page: await openPage(profile.context, url, opts), profile };
}

/**
 * A browser on a fresh profile, launched now for a tab opened later (a browser start takes
 * seconds on a loaded machine; a test that needs its tabs one after another starts their
 * browsers together). Put in `into` once up, to be disposed of after the test. A failed
 * launch fails the test where the promise is awaited (not as an unhandled rejection before).
 */
export function launchProfileAhead(into: Profile[], permissions?: string[], kind: Kind = 'shell', viewport?: { width: number; height: number }): Promise<Profile> {
  const launched = (async () => {
    const profile = await launchProfile(undefined, viewport, kind);
    into.push(profile);
    if (permissions) await profile.context.grantPermissions(['microphone', ...permissions.filter((p) => p !== 'microphone')]);
    return profile;
  })();
  launched.catch(() => {});
  return launched;
}

/** Opens `url` in a tab of `profile` (from launchProfileAhead) once it is up. */
export async function openInProfile(profile: Promise<Profile>, url: string, opts: OpenOptions = {}): Promise<Page> {
  return openPage((await profile).context, url, opts);
}

/**
 * Kills a tab abruptly: its renderer crashes (DevTools `Page.crash`), so no `pagehide` runs,
 * nothing says goodbye and its links vanish without a close. Resolves once Playwright saw
 * the crash. The page object stays (not `isClosed()`): close its context in cleanup.
 */
export async function crashPage(page: Page): Promise<void> {
  await (await crashReady(page))();
}

/**
 * `crashPage` in two steps: the DevTools session opens now, the crash comes when the returned
 * function is called (a timed crash must not count the session's opening, a round trip
 * through the browser that took hundreds of ms on a busy machine).
 */
export async function crashReady(page: Page): Promise<() => Promise<void>> {
  const cdp = await page.context().newCDPSession(page);
  return async () => {
    const crashed = new Promise<void>((resolve) => page.once('crash', () => resolve()));
    // It never answers: the renderer is gone before it could.
    void cdp.send('Page.crash').catch(() => {});
    await Promise.race([crashed, new Promise<void>((_, reject) => setTimeout(() => reject(new Error('the page did not crash within 10 s')), 10_000))]);
  };
}

/**
 * Vite's dev server for the test-only pages (e2e/pages/*.html import src/ modules directly
 * and stay out of the production build), on loopback at `port`, no HMR, no dependency scan.
 */
export async function startDevServer(port: number): Promise<{ close: () => Promise<void> }> {
  const { createServer } = await import('vite');
  const vite = await createServer({ root: process.cwd(), logLevel: 'warn', server: { port, strictPort: true, host: '127.0.0.1', hmr: false }, optimizeDeps: { noDiscovery: true, include: [] } });
  await vite.listen();
  return vite;
}

/**
 * Opens a test-only page (served by startDevServer on `port`) in a fresh profile on disk, waits for its `window[global]`, runs
 * `fn` on it and tears both down.
 */
export async function withDevPage<T>(port: number, path: string, global: string, fn: (page: Page) => Promise<T>): Promise<T> {
  const vite = await startDevServer(port);
  const profile = await launchProfile();
  try {
    const page = await profile.context.newPage();
    await page.goto(`http://127.0.0.1:${port}/${path}`);
    await page.waitForFunction((g) => (window as unknown as Record<string, unknown>)[g] !== undefined, global, { timeout: 60_000 });
    return await fn(page);
  } finally {
    await profile.dispose();
    await vite.close();
  }
}
