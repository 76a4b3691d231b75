// tab_join_ms: a new Chromium tab to its first DHT lookup answered with another node in
// the answer, the median of 15 joins (tab_join_samples): tabs 2-6 as the world of 6 forms (the
// first has nobody to find), then JOINS_EXTRA more fresh tabs joining it one after the
// other (the world grows to 16). Most of a join is the node id's mint,
// whose draws are geometric (2^9 on average, a tenth of mints over 1,100): a median over 5
// moved by hundreds of ms with a lucky or unlucky draw, so the figure is taken over more and
// said with the draws (tab_join_mint_draws_p50: keypairs drawn for the id by every mint
// worker of a tab) and the parts before and after the id (tab_join_identity_ms_p50,
// tab_join_after_identity_ms_p50). The joining tabs stay open; tab_rejoin_ms is the same
// measure for REJOINS more fresh tabs, each closed once it has joined, so each joins a world
// a tab has just left: the tabs still there name the gone ones in their lookup answers
// until they find them dead (dht/lookup.ts `giveUpMs`). With each, the part of a join after
// its first link (to `vp:dht-started`: the self-lookup; tab_{join,rejoin}_link_to_usable_ms_p50),
// and what the tabs left saw as the gone tab's link closing (logged). tab_route_ms_p50: one-way
// latency of a routed message between tabs with no direct link; every message sent is
// waited for (up to ROUTE_WAIT_MS) and those that never came are counted
// (tab_route_lost), so a slow or dropped message cannot leave the figure unnoticed.
// Tabs run with rendering off and a link budget of 4 (below the 5 of a full mesh), so
// routed pairs exist. Each tab has its own browser context (its own identity).
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openInFreshContext } from '../e2e/browser';
import { startServer } from '../signaling/serve';
import { median, percentile } from './stats';

const TABS = 6;
/** Fresh tabs that join the world of TABS after the routes are measured, one at a time. */
const JOINS_EXTRA = 10;
/** Fresh tabs that join after those, one at a time, each closed once joined: the next joins a world it has just left. */
const REJOINS = 7;
const PORT = 8096;
const MESSAGES_PER_PAIR = 20;
/** How long the receiving tab is given for a pair's last messages to arrive. */
const ROUTE_WAIT_MS = 5000;
const JOIN_TIMEOUT_MS = 30_000;
/** Page marks of a join, logged per tab: the join begun (the page's entry ran and started the id's mint: app/join-start.ts), the mint's first keypairs drawn, id minted, first link, Peer.start resolved, the DHT's whole join ended. */
const MARKS = ['vp:join-start', 'vp:mint-drawing', 'vp:identity', 'vp:first-link', 'vp:dht-started', 'vp:dht-joined'];

/** Keypairs the tab's mint workers drew for its node id, all of them (`vp:identity`'s detail; 0: stored). */
export const drawsOfMint = (): number => (performance.getEntriesByName('vp:identity')[0] as PerformanceMark | undefined)?.detail?.tries ?? NaN;

/** One tab's join: ms from its navigation to a lookup naming another node, its marks (ms after navigation), its mint's draws. */
interface Join {
  page: Page;
  ms: number;
  marks: number[];
  draws: number;
}

/** Opens a fresh tab into the bench's world; `lookup`: waits for its first lookup that names another node (a join). */
async function openTab(browser: Browser, url: string, lookup: boolean, label: string): Promise<Join> {
  const page = await openInFreshContext(browser); // a blank tab: the join is timed from its load
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => window.voxel?.net !== undefined, null, { timeout: 30_000, polling: 5 });
  // First lookup answered with another node in it. Polled inside the page: Playwright's
  // waitForFunction takes the Promise an async predicate returns for a truthy answer
  // at once, which is how this figure once measured nothing but the page load.
  if (lookup && !(await page.evaluate(async (timeoutMs) => {
    const net = window.voxel.net!;
    const own = net.id();
    const until = performance.now() + timeoutMs;
    while (performance.now() < until) {
      const hex = Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => b.toString(16).padStart(2, '0')).join('');
      if ((await net.lookup(hex)).some((id) => id !== own)) return true;
      await new Promise((r) => setTimeout(r, 5));
    }
    return false;
  }, JOIN_TIMEOUT_MS))) throw new Error(`${label}: no lookup named another node within ${JOIN_TIMEOUT_MS} ms`);
  const ms = Date.now() - t0;
  // Where the join's time went (page marks, ms after navigation).
  const marks = await page.evaluate((names) => names.map((n) => Math.round(performance.getEntriesByName(n)[0]?.startTime ?? NaN)), MARKS);
  return { page, ms, marks, draws: await page.evaluate(drawsOfMint) };
}

type Net = NonNullable<Window['voxel']['net']>;
const call = <T>(p: Page, fn: (net: Net, arg: unknown) => T | Promise<T>, arg?: unknown): Promise<T> =>
  p.evaluate(([f, a]) => new Function('net', 'arg', `return (${f})(net, arg)`)(window.voxel.net, a), [fn.toString(), arg] as const) as Promise<T>;

export async function benchTabs(): Promise<Record<string, number>> {
  const server = await startServer({ port: PORT, host: '127.0.0.1', staticDir: 'dist' });
  const browser = await launchBrowser();
  const url = `${server.url}?render=off&rd=2&hosting=off&links=4#world=bench-net`;
  const tabs: Page[] = [];
  const joins: Join[] = [];
  try {
    for (let i = 0; i < TABS; i++) {
      const tab = await openTab(browser, url, i > 0, `tab ${i}`);
      tabs.push(tab.page);
      if (i > 0) joins.push(tab);
    }
    await new Promise((r) => setTimeout(r, 2000)); // let link budgets settle
    const ids = await Promise.all(tabs.map((p) => call(p, (n) => n.id())));
    const latencies: number[] = [];
    let sent = 0, lost = 0, pairs = 0;
    for (let a = 0; a < TABS; a++) {
      const linked = await call(tabs[a]!, (n) => n.links().map((l) => l.id));
      for (let b = 0; b < TABS; b++) {
        if (a === b || linked.includes(ids[b]!)) continue;
        pairs++;
        let routed = 0;
        for (let m = 0; m < MESSAGES_PER_PAIR; m++) {
          const ok = await call(tabs[a]!, (n, arg) => {
            const [to, tag] = arg as [string, string];
            return n.send(to, `${tag}|${performance.timeOrigin + performance.now()}`);
          }, [ids[b], `lat-${a}-${b}-${m}`]);
          sent++;
          if (ok) routed++;
          else lost++; // no first hop: counted as lost, not left out
          await new Promise((r) => setTimeout(r, 20));
        }
        // Every message of the pair, waiting for late ones; one sample per message tag.
        const got = await call(tabs[b]!, async (n, arg) => {
          const [prefix, count, waitMs] = arg as [string, number, number];
          const until = performance.now() + waitMs;
          for (;;) {
            const seen = new Map(n.received().filter((r) => r.msg.startsWith(prefix)).map((r) => [r.msg.split('|')[0], r] as const));
            if (seen.size >= count || performance.now() > until) return [...seen.values()];
            await new Promise((r) => setTimeout(r, 20));
          }
        }, [`lat-${a}-${b}-`, routed, ROUTE_WAIT_MS]);
        lost += routed - got.length;
        for (const r of got) latencies.push(r.at - Number(r.msg.split('|')[1]));
      }
    }
    if (latencies.length === 0) throw new Error('every pair had a direct link: no routed latency measured');
    for (let i = 0; i < JOINS_EXTRA; i++) joins.push(await openTab(browser, url, true, `joining tab ${i}`));
    const rejoins: Join[] = [];
    const closes: string[] = [];
    for (let i = 0; i < REJOINS; i++) {
      const tab = await openTab(browser, url, true, `rejoining tab ${i}`);
      rejoins.push(tab);
      const gone = await call(tab.page, (n) => n.id());
      await tab.page.context().close();
      // How the gone tab's links ended at the tabs still there (a closed tab's page may or
      // may not say goodbye), seen a moment later.
      await new Promise((r) => setTimeout(r, 300));
      const reasons = (await Promise.all([...tabs, ...joins.slice(TABS - 1).map((j) => j.page)].map((p) => call(p, (n, arg) => n.linkEvents().filter((e) => e.id === arg && !e.open).map((e) => e.reason ?? ''), gone)))).flat();
      closes.push(`${gone.slice(0, 6)}: ${reasons.join('; ') || 'no link closed'}`);
    }
    const identityAt = MARKS.indexOf('vp:identity');
    const linkAt = MARKS.indexOf('vp:first-link');
    const usableAt = MARKS.indexOf('vp:dht-started');
    const linkToUsable = (js: Join[]) => median(js.map((j) => j.marks[usableAt]! - j.marks[linkAt]!));
    const said = (js: Join[]) => js.map((j) => `${j.ms} (${j.marks.join('/')}; ${j.draws})`).join(', ');
    console.error(`tabs joins, ms (marks ${MARKS.join(' ')}, ms after navigation; keypairs drawn for the id): ${said(joins)}`);
    console.error(`tabs rejoins (each tab closed once joined), ms: ${said(rejoins)}; its links' ends at the tabs still there: ${closes.join(', ')}`);
    return {
      tab_join_ms: median(joins.map((j) => j.ms)),
      tab_join_ms_p90: percentile(joins.map((j) => j.ms), 90),
      tab_join_samples: joins.length,
      tab_join_mint_draws_p50: median(joins.map((j) => j.draws)),
      tab_join_identity_ms_p50: median(joins.map((j) => j.marks[identityAt]!)),
      tab_join_after_identity_ms_p50: median(joins.map((j) => j.ms - j.marks[identityAt]!)),
      tab_join_link_to_usable_ms_p50: linkToUsable(joins),
      tab_rejoin_ms: median(rejoins.map((j) => j.ms)),
      tab_rejoin_ms_p90: percentile(rejoins.map((j) => j.ms), 90),
      tab_rejoin_samples: rejoins.length,
      tab_rejoin_after_identity_ms_p50: median(rejoins.map((j) => j.ms - j.marks[identityAt]!)),
      tab_rejoin_link_to_usable_ms_p50: linkToUsable(rejoins),
      tab_route_ms_p50: median(latencies),
      tab_route_ms_p99: percentile(latencies, 99),
      tab_route_pairs: pairs,
      tab_route_sent: sent,
      tab_route_lost: lost,
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchTabs()));
}
