// first_frame_ms: page load to the terrain under the player rendered, render distance 8,
// in headless Chromium (software WebGL), each run in a fresh profile (no cache, no data).
import { launchBrowser, openInFreshContext, PAGE_UP } from '../e2e/browser';
import { startServer } from '../signaling/serve';
import { median } from './stats';

const RUNS = 5;
const PORT = 8097;

export async function benchFirstFrame(): Promise<Record<string, number>> {
  const server = await startServer({ port: PORT, host: '127.0.0.1', staticDir: 'dist' });
  const browser = await launchBrowser();
  const times: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const page = await openInFreshContext(browser, `${server.url}?rd=8#world=bench-${i}&seed=bench`, {
        viewport: { width: 960, height: 600 }, until: PAGE_UP.voxel, timeoutMs: 60_000, ready: true,
        // A new player's first visit: no identity seeded, so its proofs of work run as they would.
        fresh: true,
      });
      times.push(await page.evaluate(() => window.voxel.stats().readyMs));
      await page.context().close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return { first_frame_ms: median(times) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchFirstFrame()));
}
