// throttled_host_*: a region's primary slowed, not dead (degrade, never lose):
// the scenario of e2e/throttled-host.test.ts (e2e/throttled-host.ts), longer and with more
// edits: four tabs in one region, its primary throttled 6x (DevTools CPU throttling) for
// THROTTLED_HOST_MS (60 s) while the three others each edit every 250 ms (THROTTLED_HOST_RATE: another rate).
// - throttled_host_false_failovers: times the region's primary changed (nobody died; target <= 1);
// - throttled_host_edits_unseen: (tab, confirmed edit) pairs a tab does not show once the
//   world settled (target 0); _reverted: of those, an earlier edit of the spot showing;
// - throttled_host_edits / _confirmed / _tentative / _failed: the editors' setBlock outcomes;
// - throttled_host_epochs: epochs the region went through (claims and reconfigurations);
// - throttled_host_stall_ms_max: the longest gap between the throttled tab's 50 ms timer
//   callbacks while throttled (that the throttle bit);
// - throttled_host_lease_waits / _step_downs: the throttled primary's counters.
// Run: `npm run bench -- throttled_host` (~1.5 minutes), or `npx vite build && bash
// scripts/netns.sh npx tsx bench/throttled-host-bench.ts`.
import { launchBrowser } from '../e2e/browser';
import { runThrottledHost } from '../e2e/throttled-host';
import { startServer } from '../signaling/serve';

const PORT = 8102;

export async function benchThrottledHost(): Promise<Record<string, number>> {
  const server = await startServer({ port: PORT, host: '127.0.0.1', staticDir: 'dist' });
  const browser = await launchBrowser();
  try {
    const r = await runThrottledHost({
      browser, base: server.url.replace(/\/$/, '/'), world: 'throttled-host-bench', tabs: 4, rate: Number(process.env.THROTTLED_HOST_RATE ?? 6),
      throttleMs: Number(process.env.THROTTLED_HOST_MS ?? 60_000), editEveryMs: 250, log: (l) => console.error(`throttled_host: ${l}`),
    });
    if (r.problems.length) console.error(`throttled_host: ${r.problems.join('; ')}`);
    return {
      throttled_host_false_failovers: r.failovers,
      throttled_host_edits_unseen: r.unseen,
      throttled_host_edits_reverted: r.reverted,
      throttled_host_edits: r.submitted,
      throttled_host_confirmed: r.confirmed,
      throttled_host_tentative: r.tentative,
      throttled_host_failed: r.failed,
      throttled_host_epochs: r.epochs,
      throttled_host_stall_ms_max: r.hostStallMs,
      throttled_host_lease_waits: r.leaseWaits,
      throttled_host_step_downs: r.stepDowns,
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchThrottledHost()));
}
