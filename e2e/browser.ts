// Launching real Chromium for browser tests and benchmarks (docs/TESTING.md): Debian's
// /usr/bin/chromium driven by playwright-core, loopback-only, WebGL on SwiftShader.
import { chromium, type Browser, type BrowserContext, type LaunchOptions, type Page } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  // Without both of these Chromium gathers no ICE candidate in a loopback-only namespace.
  '--allow-loopback-in-peer-connection', '--use-fake-ui-for-media-stream',
  '--enable-unsafe-swiftshader', '--use-angle=swiftshader',
];

export function launchOptions(extra: string[] = []): LaunchOptions {
  return { executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS, ...extra] };
}

export function launchBrowser(extra: string[] = []): Promise<Browser> {
  return chromium.launch(launchOptions(extra));
}

/** A browser profile on disk, so IndexedDB survives closing and reopening the browser. */
export async function launchProfile(dir?: string): Promise<{ context: BrowserContext; dir: string; dispose: () => Promise<void> }> {
  const profile = dir ?? mkdtempSync(join(tmpdir(), 'vp-profile-'));
  const context = await chromium.launchPersistentContext(profile, { ...launchOptions(), viewport: { width: 960, height: 600 } });
  return {
    context,
    dir: profile,
    dispose: async () => {
      await context.close().catch(() => {});
      if (!dir) rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Kills a tab abruptly: its renderer crashes (DevTools `Page.crash`), so no `pagehide` runs,
 * nothing says goodbye and its links vanish without a close. Resolves once Playwright saw
 * the crash. The page object stays (not `isClosed()`): close its context in cleanup.
 */
export async function crashPage(page: Page): Promise<void> {
  const crashed = new Promise<void>((resolve) => page.once('crash', () => resolve()));
  const cdp = await page.context().newCDPSession(page);
  // It never answers: the renderer is gone before it could.
  void cdp.send('Page.crash').catch(() => {});
  await Promise.race([crashed, new Promise<void>((_, reject) => setTimeout(() => reject(new Error('the page did not crash within 10 s')), 10_000))]);
}
