// firefox_edit_visible_ms_*: a Chromium tab and a Firefox ESR tab (puppeteer-core over
// WebDriver BiDi; e2e/browser-kit.ts) in one world over real WebRTC on loopback, both render
// off, each a returning player's profile (ids minted ahead: a fresh Firefox profile mints
// its id for 7-61 s, e2e/firefox-mixed.test.ts). Each places 20 blocks 250 ms apart in turn
// and the other notes when each shows (bench/lab/edit-visible.ts: one machine clock);
// medians over both directions and each direction's own, with the unseen and refused counted.
// Run alone: `npm run bench -- firefox` (needs firefox-esr and xvfb, as npm test does).
import { chromiumEngine, firefoxEngine, type Engine, type Tab } from '../e2e/browser-kit';
import { startServer } from '../signaling/serve';
import { measureEditVisible } from './lab/edit-visible';
import { median, percentile } from './stats';

const PORT = 8097;
const WORLD = '#world=firefox-bench&seed=firefox-bench';

async function join(tab: Tab, url: string): Promise<void> {
  await tab.goto(url);
  await tab.waitFor(() => window.voxel?.hosting !== undefined, null, 90_000, 50);
}

export async function benchFirefox(): Promise<Record<string, number>> {
  const server = await startServer({ port: PORT, host: '127.0.0.1', staticDir: 'dist' });
  const engines: Engine[] = [];
  try {
    engines.push(...(await Promise.all([chromiumEngine(), firefoxEngine()])));
    const [c, f] = engines as [Engine, Engine];
    const origin = new URL(server.url).origin;
    const [chrome, firefox] = await Promise.all([c.open('chromium', origin), f.open('firefox', origin)]);
    const url = `${server.url}?rd=2&render=off${WORLD}`;
    await join(chrome, url);
    await join(firefox, url);
    const ffId = await firefox.evaluate(() => window.voxel.net!.id(), null);
    await chrome.waitFor((id) => window.voxel.net!.links().some((l) => l.id === id), ffId, 30_000, 50);
    const cToF = await measureEditVisible(chrome, firefox);
    const fToC = await measureEditVisible(firefox, chrome, 1);
    const all = [...cToF.samples, ...fToC.samples];
    console.error(`firefox bench: Chromium -> Firefox p50 ${median(cToF.samples)} ms (${cToF.samples.length}), Firefox -> Chromium p50 ${median(fToC.samples)} ms (${fToC.samples.length})`);
    return {
      ...(all.length ? { firefox_edit_visible_ms_p50: Math.round(median(all)), firefox_edit_visible_ms_p99: Math.round(percentile(all, 99)) } : {}),
      ...(cToF.samples.length ? { firefox_edit_visible_from_chromium_ms_p50: Math.round(median(cToF.samples)) } : {}),
      ...(fToC.samples.length ? { firefox_edit_visible_to_chromium_ms_p50: Math.round(median(fToC.samples)) } : {}),
      firefox_edit_visible_samples: all.length,
      firefox_edit_visible_unseen: cToF.unseen + fToC.unseen,
      firefox_edit_visible_refused: cToF.refused + fToC.refused,
    };
  } finally {
    await Promise.all(engines.map((e) => e.close().catch(() => {})));
    await server.close();
  }
}
