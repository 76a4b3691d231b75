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
/** Chromium's headless shell (Debian's chromium-headless-shell), where installed. */
export const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
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
 * Under the browser tests (vitest.e2e.config.ts sets VP_SHARED_BROWSERS) the files share one
 * browser of each kind: `launchBrowser()` with no extra arguments returns it (launched at its
 * first use), and its `close()` closes the contexts opened in it (a file's tabs, each context
 * with its own storage and so its own identity, go with them) and leaves the browser running
 * for the next file. The files run one at a time in one worker, and most began by launching
 * a browser (one launched ahead, as a spare, beside the previous file) and ended by closing it:
a launch and close with one blank tab took 2.6 CPU-s of the headless shell's processes (2.9
the full browser's) and 1.2 of Playwright's client here, against ~1.0 and 0.6 for a context
and its tab in a browser up (load 40). Its command line carries SHARED_ARG,
 * by which e2e/leak-guard.ts leaves it running after a file (and fails a file that left a
 * context open in it) and e2e/global-setup.ts ends it after the run.
 */
export const SHARED_ARG = '--vp-shared=';
const shared = new Map<Kind, { arg: string; browser: Promise<Browser> }>();
let sharedCount = 0;

/** The SHARED_ARG of each shared browser. */
export function sharedArgs(): string[] {
  return [...shared.values()].map((s) => s.arg);
}

/** Closes every context still open in the shared browsers; how many there were. */
export async function closeSharedContexts(): Promise<number> {
  let open = 0;
  for (const s of shared.values()) {
    const b = await s.browser.catch(() => undefined);
    if (!b?.isConnected()) continue;
    open += b.contexts().length;
    await b.close();
  }
  return open;
}

function launchShared(kind: Kind): Promise<Browser> {
  // The run's main process (this worker's parent) in it: global-setup ends only its own run's.
  const arg = `${SHARED_ARG}${process.ppid}-${++sharedCount}`;
  const browser = chromium.launch(launchOptions([arg], kind)).then((b) => {
    // A file's close: its contexts, not the browser the next file is given.
    b.close = async () => { await Promise.all(b.contexts().map((c) => c.close().catch(() => {}))); };
    return b;
  });
  browser.catch(() => {}); // a failed launch is launched again when next asked
  shared.set(kind, { arg, browser });
  return browser;
}

export async function launchBrowser(extra: string[] = [], kind: Kind = 'shell'): Promise<Browser> {
  if (extra.length > 0 || !process.env.VP_SHARED_BROWSERS) return chromium.launch(launchOptions(extra, kind));
  // Synchronously here, so that tabs opened together (Promise.all) share one launch.
  const asked = shared.get(kind)?.browser ?? launchShared(kind);
  const up = await asked.catch(() => undefined);
  if (up?.isConnected()) return up;
  // Failed to start, or died since: launched again, once for all who found it so.
  return (shared.get(kind)!.browser === asked ? launchShared(kind) : shared.get(kind)!.browser);
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

/**
 * The window of a drawing tab whose pixels a test reads as shares of the picture (what
 * changed, how many colours, a patch's texture) or takes a screenshot of for the docs:
 * SwiftShader shades and the compositor copies every pixel of every frame, and these checks
 * read the same shares at a quarter of the default window's pixels (960 x 600).
 */
export const READ_VIEW = { width: 480, height: 300 };

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
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(opts.label ? `${opts.label} pageerror` : 'pageerror', e));
  if (url === undefined) return page;
  // The context's first tab writes the identities itself, before it opens the game.
  const seededIds = !opts.fresh ? await seedReturningPlayer(context, new URL(url).origin, page) : undefined;
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

/**
 * A fresh context of the shared browser of `kind` (launchBrowser) as a Profile, for a tab that
 * needs storage of its own (so an identity of its own) but no browser of its own: nothing on
 * disk, gone when disposed (its context closed). A tab whose storage must outlive its browser
 * (closed and reopened) is launchProfile's. Put in `into` once up.
 */
export function contextAhead(into: Profile[], permissions?: string[], kind: Kind = 'shell', viewport: { width: number; height: number } = { width: 960, height: 600 }): Promise<Profile> {
  const opened = (async () => {
    const browser = await launchBrowser([], kind);
    const context = await newContext(browser, { viewport, ...(permissions ? { permissions: ['microphone', ...permissions.filter((p) => p !== 'microphone')] } : {}) });
    const dispose = async () => {
      await context.close().catch(() => {});
      // Not shared (VP_SHARED_BROWSERS empty): the browser was this context's alone.
      if (!process.env.VP_SHARED_BROWSERS) await browser.close().catch(() => {});
    };
    const profile = { context, dir: '', dispose };
    into.push(profile);
    return profile;
  })();
  opened.catch(() => {});
  return opened;
}

/** Opens `url` in a tab of `profile` (from launchProfileAhead or contextAhead) once it is up. */
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
