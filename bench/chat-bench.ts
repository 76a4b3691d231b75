// chat_visible_ms_p50 / _p99: a line said in one tab to the moment it is in another tab's
// chat (ChatClient's line list, which the chat box draws from), between two Chromium tabs of
// their own profiles over real WebRTC on loopback, both standing in one region whose hosts are
// the tabs themselves; B draws. The machine clock is shared, so each side stamps in place:
// A reads Date.now() just before `say`, B polls its lines every 2 ms in the page and stamps a
// line's first sight (no page.evaluate round trip inside a sample; the poll adds 1 ms on
// average). A says a line every 1.1 s (the relay lets a player say one a second after a burst
// of 5). Lines never seen within 5 s are counted (`chat_visible_missed`), as are lines A
// could not say (`chat_say_failed`).
import { startServer } from '../signaling/serve';
import { launchBrowser, openInFreshContext, PAGE_UP } from '../e2e/browser';
import { sayOnceHeard } from '../e2e/page-world';
import { median, percentile } from './stats';

const PORT = 8097;
const LINES = Number(process.env.CHAT_BENCH_LINES ?? 30);

export async function benchChat(): Promise<Record<string, number>> {
  const server = await startServer({ port: PORT, host: '127.0.0.1', staticDir: 'dist' });
  const browser = await launchBrowser();
  try {
    const url = (draw: boolean) => `${server.url.replace(/\/$/, '')}/?rd=2${draw ? '' : '&render=off'}#world=chat-bench&seed=chat-bench`;
    const opts = { until: PAGE_UP.hosting, ready: true } as const;
    const [a, b] = await Promise.all([
      openInFreshContext(browser, url(false), { ...opts, label: 'A' }),
      openInFreshContext(browser, url(true), { ...opts, label: 'B', viewport: { width: 480, height: 300 } }),
    ]);
    const spot = await b.evaluate(() => window.voxel.player());
    await a.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [spot.x + 2, spot.y + 1, spot.z]);
    await b.waitForFunction(() => window.voxel.hosting!.players().length > 0, null, { timeout: 30_000, polling: 100 });
    // A must be attached to its region's primary before a line can be said.
    await sayOnceHeard(a, 'hello', 30_000);
    await b.evaluate(() => {
      const seen: Record<string, number> = {};
      (window as unknown as { chatSeen: Record<string, number> }).chatSeen = seen;
      setInterval(() => {
        for (const l of window.voxel.chat!.lines()) if (!(l.text in seen)) seen[l.text] = Date.now();
      }, 2);
    });
    await new Promise((r) => setTimeout(r, 1500));
    const sent: { text: string; at: number }[] = [];
    let failed = 0;
    for (let i = 0; i < LINES; i++) {
      const text = `bench line ${i}`;
      const at = await a.evaluate(async (t) => {
        const at = Date.now();
        try {
          await window.voxel.chat!.say(t);
          return at;
        } catch {
          return -1;
        }
      }, text);
      if (at < 0) failed++;
      else sent.push({ text, at });
      await new Promise((r) => setTimeout(r, 1100));
    }
    await new Promise((r) => setTimeout(r, 5000));
    const seen = await b.evaluate(() => (window as unknown as { chatSeen: Record<string, number> }).chatSeen);
    const ms: number[] = [];
    let missed = 0;
    for (const s of sent) {
      const got = seen[s.text];
      if (got === undefined || got - s.at > 5000) missed++;
      else ms.push(got - s.at);
    }
    console.error(`chat: ${ms.length} of ${LINES} lines seen, ${missed} missed, ${failed} not said; ms ${ms.map((x) => Math.round(x)).join(',')}`);
    await Promise.all([a.context().close(), b.context().close()]);
    return {
      chat_visible_ms_p50: median(ms),
      chat_visible_ms_p99: percentile(ms, 99),
      chat_visible_samples: ms.length,
      chat_visible_missed: missed,
      chat_say_failed: failed,
    };
  } finally {
    await browser.close();
    await server.close();
  }
}
