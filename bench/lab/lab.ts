// `npm run lab [-- CASE... --runs N]`: runs the lab's cases (lab-cases.ts) and prints a table;
// figures go to bench/results/latest.json (merged). Started by scripts/lab.sh inside its
// isolated namespaces, as PID 1 of the lab: when this process ends, every process of the lab
// ends and its namespaces go.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { median, percentile } from '../stats';
import { currentCommit, readProvenance, writeProvenance } from '../provenance';
import { writeReport } from '../report';
import { selectedPath } from '../../src/net/link-path';
import { LabProcesses, labOrigin, stop, waitForLine } from './lab-processes';
import { judge, judgeChange, LAB_CASES, type CaseOutcome, type LabCase, type LinkKind, type PairEnd } from './lab-cases';
import { measureEditVisible, type EditVisibleOutcome } from './edit-visible';
import { chromiumTab } from '../../e2e/browser-kit';
import { runNetworkChange, type NetworkChangeOutcome } from './network-change';
import { describePage, recordPeerConnections, type LabWindow } from './pc-trace';
import { buildTopology, changeNetwork, configureNat, routerState, HOMES, SERVER_IP } from './topology';

const ORIGIN = labOrigin();
/** How long a case waits for a link: links form in under 1 s here; one that is expected to fail costs this. */
const LINK_WAIT_MS = { expected: 20_000, unexpected: 12_000 };

const args = process.argv.slice(2);
const runsArg = args.indexOf('--runs');
const runs = runsArg >= 0 ? Number(args[runsArg + 1]) : 1;
const only = args.filter((a, i) => !a.startsWith('--') && (runsArg < 0 || i !== runsArg + 1));
const cases = LAB_CASES.filter((c) => only.length === 0 || only.includes(c.name));
if (cases.length === 0) throw new Error(`no case named ${only.join(', ')}; cases: ${LAB_CASES.map((c) => c.name).join(', ')}`);

const lab = new LabProcesses();

/** --verbose lines' time: seconds of this minute, to the ms (the pages' peer connection logs count from their creation). */
const stamp = () => new Date().toISOString().slice(17, 23);

interface PageLink { ms: number | null; local: PairEnd; remote: PairEnd }

/**
 * The selected candidate pair of every connected peer connection of the page, read by the
 * app's own reader (net/link-path.ts, what the hosting dashboard counts) from the stats the
 * page hands over: relay links exist here, not in the loopback e2e tests.
 */
async function readLinks(page: Page): Promise<PageLink[]> {
  const reports = await page.evaluate(async () => {
    const out: { ms: number | null; stats: Record<string, unknown>[] }[] = [];
    for (const r of (window as unknown as LabWindow).labPcs ?? []) {
      if (r.pc.connectionState !== 'connected') continue;
      const stats: Record<string, unknown>[] = [];
      (await r.pc.getStats()).forEach((s: Record<string, unknown>) => stats.push({ ...s }));
      out.push({ ms: r.connectedMs, stats });
    }
    return out;
  });
  return reports.flatMap(({ ms, stats }) => {
    const p = selectedPath(stats);
    return p ? [{ ms, local: { candidateType: p.local, relayProtocol: p.relayProtocol }, remote: { candidateType: p.remote } }] : [];
  });
}

/** The start screen's problem, if it shows one (ui/start-screen.ts). */
function startProblem(page: Page): Promise<string> {
  return page.evaluate(() => {
    const p = document.querySelector<HTMLElement>('#loading .problem:not([hidden])');
    return p ? (p.dataset.kind ?? 'shown') : '';
  });
}

interface CaseResult { c: LabCase; run: number; pass: boolean; why: string; kind: LinkKind | '-'; linkMs: number | null; joinMs: number | null; pairs: string; screen: string; change?: NetworkChangeOutcome; edits?: EditVisibleOutcome }

async function runCase(c: LabCase, run: number, browsers: Browser[]): Promise<CaseResult> {
  configureNat(HOMES[0]!, c.a);
  configureNat(HOMES[1]!, c.b);
  const server = await lab.startServer(c.ice);
  const contexts = await Promise.all(browsers.map(async (b) => {
    const ctx = await b.newContext();
    await ctx.grantPermissions(['microphone'], { origin: ORIGIN });
    await ctx.addInitScript(recordPeerConnections);
    return ctx;
  }));
  try {
    const url = `${ORIGIN}/?render=off${c.query ? `&${c.query}` : ''}#world=lab-${c.name}-${run}`;
    const [pa, pb] = await Promise.all(contexts.map((ctx) => ctx.newPage()));
    if (args.includes('--verbose')) {
      for (const [p, name] of [[pa!, 'A'], [pb!, 'B']] as const) {
        p.on('console', (m) => console.error(`${stamp()} ${c.name} ${name} console.${m.type()}: ${m.text()}`));
        // The relay's frames, shortened: who signals whom, and what the relay refuses.
        p.on('websocket', (ws) => {
          const show = (dir: string) => (f: { payload: string | Buffer }) => console.error(`${stamp()} ${c.name} ${name} ${dir} ${String(f.payload).slice(0, 160)}`);
          ws.on('framesent', show('->'));
          ws.on('framereceived', show('<-'));
        });
      }
    }
    await pa!.goto(url);
    await pa!.waitForFunction(() => window.voxel?.net !== undefined, null, { timeout: 30_000, polling: 50 });
    const t0 = Date.now();
    await pb!.goto(url);
    const wait = c.expect === 'none' ? LINK_WAIT_MS.unexpected : LINK_WAIT_MS.expected;
    let joinMs: number | null = null;
    while (Date.now() - t0 < wait) {
      const n = await pb!.evaluate(() => window.voxel?.net?.links().length ?? 0);
      if (n > 0) { joinMs = Date.now() - t0; break; }
      await new Promise((r) => setTimeout(r, 50));
    }
    let delivered = false;
    if (joinMs !== null) {
      const aId = await pa!.evaluate(() => window.voxel.net!.id());
      await pb!.evaluate((to) => window.voxel.net!.send(to, 'across the lab'), aId);
      const seen = await pa!.waitForFunction(() => window.voxel.net!.received().some((m) => m.msg === 'across the lab'), null, { timeout: 5_000, polling: 50 }).then(() => true, () => false);
      delivered = seen;
    }
    if (args.includes('--verbose')) {
      for (const [p, name] of [[pa!, 'A'], [pb!, 'B']] as const) console.error(`${c.name} ${name}: ${await describePage(p)}`);
    }
    if (args.includes('--verbose')) {
      for (const h of HOMES) console.error(`${c.name} router ${h.name}:\n${routerState(h)}`);
    }
    const links = [...await readLinks(pa!), ...await readLinks(pb!)];
    const outcome: CaseOutcome = { linked: joinMs !== null || links.length > 0, pairs: links, delivered };
    let verdict = judge(c, outcome);
    const ms = links.map((l) => l.ms).filter((m): m is number => m !== null);
    let change: NetworkChangeOutcome | undefined;
    if (c.change && verdict.pass) {
      const how = c.change;
      change = await runNetworkChange(pa!, pb!, () => changeNetwork(HOMES[0]!, how), undefined, (s) => console.error(`${stamp()} ${c.name}: ${s}`));
      if (args.includes('--verbose')) {
        for (const [p, name] of [[pa!, 'A'], [pb!, 'B']] as const) console.error(`${c.name} ${name} after the change: ${await describePage(p)}`);
      }
      for (const p of change.problems) console.error(`${c.name}: ${p}`);
      verdict = judgeChange(change);
    }
    // Two linked homes (not a change case, which edits on its own): A's edits timed to B's screen.
    let edits: EditVisibleOutcome | undefined;
    if (verdict.pass && c.expect !== 'none' && !c.change) {
      edits = await measureEditVisible(chromiumTab(pa!), chromiumTab(pb!));
      console.error(`${stamp()} ${c.name}: ${edits.samples.length} edits shown at B, p50 ${Math.round(median(edits.samples))} ms; unseen ${edits.unseen}, refused ${edits.refused}`);
    }
    return {
      c, run, ...verdict, ...(change ? { change } : {}), ...(edits ? { edits } : {}),
      kind: links[0] ? (verdict.pass && c.expect !== 'none' ? c.expect : '-') : '-',
      linkMs: ms.length ? Math.min(...ms) : null,
      joinMs,
      pairs: links.map((l) => `${l.local.candidateType}${l.local.relayProtocol ? `/${l.local.relayProtocol}` : ''}>${l.remote.candidateType}`).join(' '),
      screen: await startProblem(pb!),
    };
  } finally {
    await Promise.all(contexts.map((ctx) => ctx.close().catch(() => {})));
    await stop(server);
  }
}

function printTable(results: CaseResult[]): void {
  const rows = [['case', 'run', 'NAT A', 'NAT B', 'ICE offered', 'expected', 'outcome', 'pairs (local>remote)', 'ICE ms', 'join ms', 'start screen', 'pass']];
  const nat = (s: LabCase['a']) => `${s.kind}${s.loss ? ` ${s.loss * 100}% loss` : ''}`;
  for (const r of results) {
    rows.push([r.c.name, String(r.run), nat(r.c.a), nat(r.c.b), r.c.ice, r.c.expect, r.why, r.pairs || '-', r.linkMs === null ? '-' : r.linkMs.toFixed(0), r.joinMs === null ? '-' : String(r.joinMs), r.screen || '-', r.pass ? 'yes' : 'NO']);
  }
  printRows(rows);
  const changed = results.filter((r) => r.change);
  if (!changed.length) return;
  const more = [['case', 'run', 'change', 'links before', 'least after', 'closed ms', 'new link ms', 'recovery ms', 'edits', 'meanwhile', 'refused', 'tentative left', 'unseen at B']];
  for (const { c, run, change: o } of changed) {
    more.push([c.name, String(run), c.change!, String(o!.linksBefore), String(o!.linksLeast), o!.closedMs === null ? '-' : String(o!.closedMs), o!.newLinkMs === null ? 'kept' : String(o!.newLinkMs), o!.recoveryMs === null ? 'never' : String(o!.recoveryMs), String(o!.submitted), String(o!.meanwhile), String(o!.refused), String(o!.tentativeLeft), String(o!.unseenAtB)]);
  }
  console.log('');
  printRows(more);
}

function printRows(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) console.log(r.map((v, i) => v.padEnd(widths[i]!)).join('  '));
}

/** A recovery slower than this counts as late: ICE's own verdict on a dead path (consent, ~30 s) would have been as fast. */
const RECOVERY_LATE_MS = 20_000;

/**
 * network_change_recovery_ms (median over the change cases and runs, and per case), the
 * samples that never recovered or were late, and the edits lost (refused, left tentative,
 * or unseen at B).
 */
function changeMetrics(results: CaseResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  const rec = results.flatMap((r) => (r.change?.recoveryMs != null ? [r.change.recoveryMs] : []));
  if (rec.length) out.network_change_recovery_ms = Math.round(median(rec));
  for (const c of new Set(results.map((r) => r.c))) {
    const xs = results.filter((r) => r.c === c).flatMap((r) => (r.change?.recoveryMs != null ? [r.change.recoveryMs] : []));
    if (xs.length) out[`network_change_recovery_ms_${c.name.replace(/^change-/, '').replace(/-/g, '_')}`] = Math.round(median(xs));
  }
  out.network_change_lab_samples = results.length;
  out.network_change_lab_failed = results.filter((r) => !r.pass).length;
  out.network_change_lab_late = rec.filter((ms) => ms > RECOVERY_LATE_MS).length;
  out.network_change_lab_edits_lost = results.reduce((n, r) => n + (r.change ? r.change.refused + r.change.tentativeLeft + r.change.unseenAtB : 0), 0);
  return out;
}

function metrics(results: CaseResult[]): Record<string, number> {
  const out: Record<string, number> = {
    lab_cases_passed: results.filter((r) => r.pass).length,
    lab_cases_total: results.length,
  };
  const ms = (pred: (r: CaseResult) => boolean, key: 'linkMs' | 'joinMs') => results.filter((r) => r.pass && pred(r) && r[key] !== null).map((r) => r[key]!);
  const put = (name: string, xs: number[]) => { if (xs.length) out[name] = Math.round(median(xs)); };
  put('lab_link_ms_srflx_p50', ms((r) => r.c.expect === 'srflx', 'linkMs'));
  put('lab_link_ms_turn_p50', ms((r) => r.c.expect === 'relay' && r.c.relayProtocol === 'udp', 'linkMs'));
  put('lab_link_ms_turn_tcp_p50', ms((r) => r.c.relayProtocol === 'tcp', 'linkMs'));
  put('lab_join_ms_p50', ms((r) => r.c.expect !== 'none', 'joinMs'));
  // Per kind of home (the harder of the two: a UDP-blocking firewall, then a symmetric NAT),
  // the share of the cases that should link which did, and their invite opened to first link.
  const hardest = (r: CaseResult) => (['udp-blocked', 'symmetric'] as const).find((k) => r.c.a.kind === k || r.c.b.kind === k) ?? 'cone';
  for (const kind of ['cone', 'symmetric', 'udp-blocked'] as const) {
    const should = results.filter((r) => r.c.expect !== 'none' && hardest(r) === kind);
    if (should.length) out[`lab_join_success_${kind.replace('-', '_')}`] = should.filter((r) => r.pass).length / should.length;
    put(`lab_join_ms_p50_${kind.replace('-', '_')}`, ms((r) => r.c.expect !== 'none' && hardest(r) === kind, 'joinMs'));
  }
  // Of the homes that linked, the share whose link went through a TURN relay.
  const linked = results.filter((r) => r.pass && r.c.expect !== 'none');
  if (linked.length) out.lab_relayed_link_share = Math.round((linked.filter((r) => r.pairs.includes('relay')).length / linked.length) * 1000) / 1000;
  // A's edits to B's screen, between homes, without and with 5% loss on a home's link.
  const lossy = (r: CaseResult) => !!(r.c.a.loss || r.c.b.loss);
  for (const [tag, pick] of [['', (r: CaseResult) => !lossy(r)], ['loss5_', lossy]] as const) {
    const ed = results.filter((r) => r.edits && pick(r)).map((r) => r.edits!);
    const xs = ed.flatMap((e) => e.samples);
    if (!ed.length) continue;
    if (xs.length) {
      out[`lab_edit_visible_${tag}ms_p50`] = Math.round(median(xs));
      out[`lab_edit_visible_${tag}ms_p99`] = Math.round(percentile(xs, 99));
    }
    out[`lab_edit_visible_${tag}samples`] = xs.length;
    out[`lab_edit_visible_${tag}unseen`] = ed.reduce((n, e) => n + e.unseen, 0);
    out[`lab_edit_visible_${tag}refused`] = ed.reduce((n, e) => n + e.refused, 0);
  }
  return out;
}

/** `--check`: the network alone: each home fetches the app through its NAT. */
async function checkHomes(): Promise<number> {
  for (const h of HOMES) configureNat(h, { kind: 'cone' });
  const server = await lab.startServer(LAB_CASES[0]!.ice);
  for (const h of HOMES) {
    const probe = lab.inNs(h.host, process.execPath, ['-e', `fetch('${ORIGIN}/').then((r) => console.log('home ${h.name}: HTTP', r.status))`]);
    await waitForLine(probe, /HTTP 200/, `home ${h.name} fetching ${ORIGIN}/`);
    console.log(`home ${h.name} reaches ${ORIGIN} through its NAT`);
  }
  // And two bare RTCPeerConnections, one in each home, link with STUN (SDP passed by hand,
  // gathering complete): the network itself lets two browsers link.
  const browsers = await Promise.all(HOMES.map((h) => lab.launchIn(h.host)));
  const pages = await Promise.all(browsers.map(async (b) => {
    const ctx = await b.newContext();
    await ctx.grantPermissions(['microphone'], { origin: ORIGIN });
    const page = await ctx.newPage();
    await page.goto(`${ORIGIN}/?render=off&net=off`);
    return page;
  }));
  const gather = `(async (ip, remote) => {
    const pc = window.labPc ?? (window.labPc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:' + ip + ':3478' }] }));
    if (!remote) { pc.createDataChannel('x'); await pc.setLocalDescription(await pc.createOffer()); }
    else { await pc.setRemoteDescription(remote); if (remote.type === 'offer') await pc.setLocalDescription(await pc.createAnswer()); else return null; }
    while (pc.iceGatheringState !== 'complete') await new Promise((r) => setTimeout(r, 50));
    return { type: pc.localDescription.type, sdp: pc.localDescription.sdp };
  })`;
  type Desc = { type: 'offer' | 'answer'; sdp: string } | null;
  const call = (p: Page, remote: Desc) => p.evaluate(([code, ip, r]) => (0, eval)(code as string)(ip, r) as Promise<Desc>, [gather, SERVER_IP, remote] as const);
  const offer = await call(pages[0]!, null);
  const answer = await call(pages[1]!, offer);
  await call(pages[0]!, answer);
  const t0 = Date.now();
  const state = () => Promise.all(pages.map((p) => p.evaluate(() => (window as unknown as { labPc: RTCPeerConnection }).labPc.connectionState)));
  let s = await state();
  while (Date.now() - t0 < 10_000 && !s.every((x) => x === 'connected')) { await new Promise((r) => setTimeout(r, 100)); s = await state(); }
  console.log(`two bare peer connections across the NATs: ${s.join(' / ')} after ${Date.now() - t0} ms`);
  await Promise.all(browsers.map((b) => b.close()));
  await stop(server);
  return 0;
}

async function main(): Promise<number> {
  // The tree measured, read before the run (the run itself changes bench/results).
  const measuredOn = currentCommit();
  buildTopology();
  await lab.startCoturn();
  if (args.includes('--check')) return checkHomes();
  const browsers = await Promise.all(HOMES.map((h) => lab.launchIn(h.host)));
  const results: CaseResult[] = [];
  try {
    for (let run = 1; run <= runs; run++) {
      for (const c of cases) {
        const r = await runCase(c, run, browsers);
        console.error(`lab ${c.name} run ${run}: ${r.pass ? 'as expected' : 'NOT as expected'} (${r.why}; ${r.pairs || 'no pair'})`);
        results.push(r);
      }
    }
  } finally {
    await Promise.all(browsers.map((b) => b.close().catch(() => {})));
  }
  printTable(results);
  // Only a run of every case of a family speaks for it: the link cases' lab_* figures, the
  // change cases' network_change_* figures; a run of some cases prints its figures only.
  const ranAll = (family: LabCase[]) => family.every((c) => cases.includes(c));
  const linkCases = LAB_CASES.filter((c) => !c.change), changeCases = LAB_CASES.filter((c) => c.change);
  const linkResults = results.filter((r) => !r.c.change), changeResults = results.filter((r) => r.c.change);
  const m = { ...(linkResults.length ? metrics(linkResults) : {}), ...(changeResults.length ? changeMetrics(changeResults) : {}) };
  console.log(JSON.stringify(m));
  const keep = Object.fromEntries(Object.entries(m).filter(([k]) => (k.startsWith('lab_') ? ranAll(linkCases) : ranAll(changeCases))));
  if (Object.keys(keep).length) {
    const latest = 'bench/results/latest.json';
    const all = existsSync(latest) ? JSON.parse(readFileSync(latest, 'utf8')) as Record<string, number> : {};
    writeFileSync(latest, `${JSON.stringify({ ...all, ...keep }, null, 2)}\n`);
    const provenance = readProvenance();
    for (const k of Object.keys(keep)) provenance[k] = { ...measuredOn, bench: 'lab' };
    writeProvenance(provenance);
    writeReport();
  }
  return results.every((r) => r.pass) ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (e) {
  console.error('lab failed:', e);
} finally {
  await lab.stopAll();
}
process.exit(code);
