// The lab as `npm test` runs it (e2e/lab.test.ts, through `scripts/lab.sh --world`): the lab
// built once, home A behind a cone NAT and home B behind a symmetric one, and three servers
// side by side on the internet, each its own relay and world:
// - port 8080 hands out STUN + TURN over UDP and TCP with credentials from coturn's secret; a
//   headless peer runs on the internet side (its own public address) in that world. A and B
//   join, link (through TURN: a symmetric NAT leaves no direct path to a cone), see each
//   other's avatar and each other's edit; then the direct path between A and the headless
//   peer dies, and A must close that link within 3.5 s and dial it anew; then A's NAT forgets
//   its mappings (conntrack flushed) while A places blocks: A's links must be open after it
//   and every edit be confirmed and shown at B; last, B's tab closes and B's router drops all
//   UDP (a firewall letting TCP only): a new player there (C) must link over TURN/TCP, attach
//   to A's region and show A's last block;
// - port 8081 hands out the same, minted by a relay clock two days behind: coturn refuses
//   them (401), and B's start screen must say so;
// - port 8082 hands out nothing: B's start screen must say why it cannot link to A.
// A has a tab in each world. Prints one line
// `lab-world {json}` (LabWorldOutcome) for the test to judge; exits 1 on anything thrown.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { placeUntilConfirmed } from '../../e2e/page-world';
import { seedReturningPlayer } from '../../e2e/returning-player';
import type { LinkPath } from '../../src/net/link-path';
import { REGION_BLOCKS } from '../../src/region/region-key';
import { LabProcesses, labOrigin, waitForLine } from './lab-processes';
import { describePage, recordPeerConnections } from './pc-trace';
import { runNetworkChange, type NetworkChangeOptions, type NetworkChangeOutcome } from './network-change';
import { buildTopology, changeNetwork, configureNat, cutRelayLeg, cutUdpPath, HOMES, INTERNET, mendRelayLeg, PEER_IP, SERVER_IP, tcpMappings } from './topology';

/**
 * The link world hands out TURN over TCP as well as over UDP: the UDP-blocked home's one way
 * out, in the world's last step (udpBlockedJoin); A and B still relay over UDP, preferred.
 */
const WORLDS = {
  link: { port: 8080, ice: 'turn-tcp' },
  expired: { port: 8081, ice: 'turn-expired' },
  none: { port: 8082, ice: 'none' },
} as const;
type WorldName = keyof typeof WORLDS;
const PORTS = Object.values(WORLDS).map((w) => w.port);

/**
 * What B's start screen said in a world where it cannot link, last (ms: after B's navigation;
 * idMs: its node id ready; said: every kind it said, in order: a browser taken for blocked
 * that gathers late is told again).
 */
export interface StartSaid { kind: string | null; ms: number; idMs: number; said: string[] }

export interface LabWorldOutcome {
  ids: { a: string; b: string; headless: string };
  /** B's navigation to its first link to A (null: none within the wait). */
  joinMs: number | null;
  /** The link A-B as each end reads it, and each home's link to the headless peer. */
  paths: { ab: LinkPath | null; ba: LinkPath | null; aHeadless: LinkPath | null; bHeadless: LinkPath | null };
  /** Each sees the other's avatar (its hosting.players()). */
  avatars: { aSeesB: boolean; bSeesA: boolean };
  /** Each one's block, placed by one and shown by the other (ms), confirmed by the world's hosts. */
  edits: { aToB: number | null; bToA: number | null; aConfirmed: boolean; bConfirmed: boolean };
  /**
   * A free item the world's hosts spawned in A's region (null: none within ITEM_WAIT_MS), which A
   * then walked onto: its owner as A and as B know it (ms from A's step onto it; null: not known
   * within SEEN_WAIT_MS), and A's node id, the owner it should be.
   */
  item: { id: string; aSelf: string; ownerAtA: string | null; ownerAtB: string | null; aMs: number | null; bMs: number | null } | null;
  /**
   * Last, the direct path between A and the headless peer dies while A sends over it: when A
   * closed the link and when it dialled it anew (null: A was not linked to both before).
   */
  pathDeath: PathDeathStep | null;
  /** Then A's NAT forgot its mappings while A placed blocks (null: the world did not get that far). */
  flush: FlushStep | null;
  /** Last, a new player in home B, its router now dropping all UDP (null: the world did not get that far). */
  udpBlocked: UdpBlockedStep | null;
  expired: StartSaid;
  none: StartSaid;
  /** Set-up steps' wall times (ms), for the log. */
  timings: Record<string, number>;
  /** What the tabs knew when something above went wrong, and each edit's attempts. */
  diagnostics: string[];
}

export interface PathDeathStep {
  /** A's close of its direct link to the headless peer after the path died (ms, why); null: not within REDIAL_WAIT_MS. */
  closed: { ms: number; reason: string } | null;
  /** A's next link to it opened (ms; through TURN); null: none within REDIAL_WAIT_MS. */
  reopened: number | null;
  /** A's link events after the path died (`+ms open|close peer (why)`), for the log. */
  trace: string[];
}

/**
 * Home A's router forgets every mapping (conntrack flushed) while A places a block every
 * 500 ms and B stands beside it (network-change.ts, shortened: 1 s of confirmed play before
 * the change and 1 s after the first edit confirmed past it; the lab's cases play 3 s each).
 */
export interface FlushStep extends Omit<NetworkChangeOutcome, 'placed'> {
  /** A's links to B and to the headless peer, each open again (or still) after the change. */
  linksBack: { b: boolean; headless: boolean };
}

/** A player in home B once B's router drops every UDP packet from the home: its join over TURN/TCP. */
export interface UdpBlockedStep {
  /** Navigation to its first link (null: none within JOIN_WAIT_MS). */
  joinMs: number | null;
  /** How each of its links is carried (every one should be a relay reached over TCP, UDP being blocked). */
  paths: (LinkPath | null)[];
  /** Attached to A's region (its client ready; null: not within SEEN_WAIT_MS), ms from its first link. */
  attachedMs: number | null;
  /** Showing the last block A placed in the flush step, ms from its first link (null: not within SEEN_WAIT_MS, or A placed none). */
  seesAMs: number | null;
  /** What its start screen said before its first link (`kind@ms after navigation`, in order): nothing when it linked by the join's deadline. */
  said: string[];
  /**
   * Linked to the headless peer by the step's end. Not expected: Chromium's checks over TURN/TCP
   * carry an ICE tiebreaker of 0, which the headless peer's ICE agent (libjuice) refuses with a
   * 400, and Chromium drops the pair (`scripts/lab.sh --headless-pair`, bench/lab/README.md).
   */
  headlessLinked: boolean;
}

/** The flush step's play (network-change.ts): shorter than the lab's cases, as npm test's time is short. */
const FLUSH_PLAY: NetworkChangeOptions = { editEveryMs: 500, beforeMs: 1000, afterMs: 1000, giveUpMs: 15_000, settleMs: 15_000, movedMs: 2000 };

const JOIN_WAIT_MS = 30_000;
/** After the path death: A's link to the headless peer closed and dialled anew within this, or the step says null. */
const REDIAL_WAIT_MS = 15_000;
const SEEN_WAIT_MS = 15_000;
/** The link world's tabs each propose a spawn every 1 s on average (`spawnms`) while a player stands in the region; the first may wait for the region's item ledger. */
const ITEM_WAIT_MS = 30_000;

/** The world a tab of lab world `w` opens: the headless peer must be in the link world's, not beside it. */
const worldName = (w: WorldName) => `lab-world-${w}`;

/** LAB_TRACE=1: the UDP-blocked home's player's relay frames (who it signals, when) go to stderr. */
const TRACE = process.env.LAB_TRACE === '1';
/** LAB_TRACE_PATH=1: A's peer connection to the headless peer sampled every 100 ms around its path's death (stderr). */
const TRACE_PATH = process.env.LAB_TRACE_PATH === '1';
/** While the UDP-blocked home's player has no link, its peer connections are described this often (diagnostics). */
const PC_SNAPSHOT_MS = 4000;

/** Logs a page's relay frames (shortened) on stderr, ms from when this was called. */
function relayFrames(name: string): (p: Page) => void {
  const t = Date.now();
  return (p) => p.on('websocket', (ws) => {
    const show = (dir: string) => (f: { payload: string | Buffer }) => console.error(`lab-world ${name} +${Date.now() - t} ${dir} ${String(f.payload).slice(0, 200)}`);
    ws.on('framesent', show('->'));
    ws.on('framereceived', show('<-'));
  });
}

const lab = new LabProcesses();
const timings: Record<string, number> = {};
const diagnostics: string[] = [];
const t0 = Date.now();
// Each step as it ends, on stderr: a world that hangs shows where (e2e/lab.test.ts prints the tail).
const mark = (name: string) => { timings[name] = Date.now() - t0; console.error(`lab-world step: ${name} at ${timings[name]} ms`); };

async function startHeadless(): Promise<string> {
  const relay = `ws://${SERVER_IP}:${WORLDS.link.port}/relay`;
  const child = lab.inNs(INTERNET, process.execPath, ['--import', 'tsx', 'src/app/headless-main.ts', '--world', worldName('link'), '--relay', relay,
    '--data', `${lab.work}/headless`, '--bind', PEER_IP, '--print', '0']);
  const out = await waitForLine(child, /hosting world \S+ as node [0-9a-f]{40}/, 'headless peer', 60_000);
  return /as node ([0-9a-f]{40})/.exec(out)![1]!;
}

/** A fresh context of `browser` for world `w`, as a returning player's (no proof of work). */
async function profile(browser: Browser, w: WorldName): Promise<BrowserContext> {
  const origin = labOrigin(WORLDS[w].port);
  const context = await browser.newContext();
  await context.grantPermissions(['microphone'], { origin });
  await seedReturningPlayer(context, origin);
  return context;
}

/** A tab of world `w` in a fresh context of `browser` (or in `prepared`, one of profile()), navigated. */
async function open(browser: Browser, w: WorldName, prepared?: Promise<BrowserContext>, watch?: (p: Page) => void): Promise<{ page: Page; context: BrowserContext; navigatedAt: number }> {
  const origin = labOrigin(WORLDS[w].port);
  const context = await (prepared ?? profile(browser, w));
  const page = await context.newPage();
  watch?.(page);
  const navigatedAt = Date.now();
  await page.goto(`${origin}/?render=off&rd=2${w === 'link' ? '&spawnms=1000' : ''}#world=${worldName(w)}`);
  return { page, context, navigatedAt };
}

const netUp = (p: Page) => p.waitForFunction(() => window.voxel?.net !== undefined, null, { timeout: 30_000, polling: 50 });
const idOf = (p: Page) => p.evaluate(() => window.voxel.net!.id());
const pathTo = (p: Page, id: string) => p.evaluate(async (id) => (await window.voxel.net!.paths())[id] ?? null, id);

/**
 * The start screen's problem once shown, and if it is "WebRTC blocked" or "TURN failed", what
 * it says 5 s after the identity (a late candidate or a late refusal of the TURN credentials
 * changes it: bootstrap/peer.ts), with the last `vp:start-explained` and
 * `vp:identity` (ms after navigation); then the world's tabs (`close`) are closed.
 */
async function said(p: Page, close: BrowserContext[]): Promise<StartSaid> {
  const shown = await p.waitForSelector('#loading .problem:not([hidden])', { timeout: 20_000 }).then(() => true, () => false);
  if (shown) {
    await p.waitForFunction(() => !['webrtc-blocked', 'turn-failed'].includes(document.querySelector<HTMLElement>('#loading .problem')!.dataset.kind ?? '')
      || performance.now() > (performance.getEntriesByName('vp:identity')[0]?.startTime ?? 0) + 5000, null, { timeout: 20_000, polling: 100 }).catch(() => {});
  }
  const out = await p.evaluate((shown) => ({
    kind: shown ? document.querySelector<HTMLElement>('#loading .problem')!.dataset.kind ?? null : null,
    ms: performance.getEntriesByName('vp:start-explained').at(-1)?.startTime ?? NaN,
    idMs: performance.getEntriesByName('vp:identity')[0]?.startTime ?? NaN,
    said: performance.getEntriesByName('vp:start-explained').map((m) => String((m as PerformanceMark).detail)),
  }), shown);
  await Promise.all(close.map((c) => c.close()));
  return out;
}

/** ms until `p` shows block `id` at (x, y, z); null if not within SEEN_WAIT_MS. */
async function seen(p: Page, at: [number, number, number], id: number, since: number): Promise<number | null> {
  const ok = await p.waitForFunction(([x, y, z, id]) => window.voxel.getBlock(x!, y!, z!) === id, [...at, id], { timeout: SEEN_WAIT_MS, polling: 20 }).then(() => true, () => false);
  return ok ? Date.now() - since : null;
}

/** Highest non-air, non-water block + 1 at (x, z) as the tab sees it. */
const airAbove = (p: Page, x: number, z: number) => p.evaluate(([x, z]) => {
  for (let y = 250; y > 0; y--) { const id = window.voxel.getBlock(x!, y, z!); if (id !== 0 && id !== 5) return y + 1; }
  return 100;
}, [x, z]);

async function linkWorld(a: Page, b: Page, bNavigatedAt: number, headless: string): Promise<Omit<LabWorldOutcome, 'pathDeath' | 'flush' | 'udpBlocked' | 'expired' | 'none' | 'timings' | 'diagnostics'>> {
  const aId = await idOf(a);
  await netUp(b);
  const bId = await idOf(b);
  const linked = await b.waitForFunction((id) => window.voxel.net!.links().some((l) => l.id === id), aId, { timeout: JOIN_WAIT_MS, polling: 50 }).then(() => true, () => false);
  const joinMs = linked ? Date.now() - bNavigatedAt : null;
  mark('B linked to A');
  // The DHT links B to the headless peer too, not always before A (10 s at most).
  const toHeadless = (p: Page) => p.waitForFunction((id) => window.voxel.net!.links().some((l) => l.id === id), headless, { timeout: 10_000, polling: 50 }).catch(() => {});
  await Promise.all([toHeadless(a), toHeadless(b)]);
  const paths = { ab: await pathTo(a, bId), ba: await pathTo(b, aId), aHeadless: await pathTo(a, headless), bHeadless: await pathTo(b, headless) };
  const empty = { aToB: null, bToA: null, aConfirmed: false, bConfirmed: false };
  const diagnose = async () => { for (const [p, name] of [[a, 'A'], [b, 'B']] as const) diagnostics.push(`${name}: ${await describe(p)}`); };
  if (!linked) { await diagnose(); return { ids: { a: aId, b: bId, headless }, joinMs, paths, avatars: { aSeesB: false, bSeesA: false }, edits: empty, item: null }; }
  // Both attached to the spawn region's primary (B's arrival may have moved the region to it).
  const me = await a.evaluate(() => window.voxel.player());
  const region = `${Math.floor(me.x / 64)},${Math.floor(me.z / 64)}`;
  await Promise.all([a, b].map((p) => p.waitForFunction((r) => window.voxel?.hosting?.region(r).client?.ready === true, region, { timeout: 30_000, polling: 50 }).catch(() => {})));
  mark('both attached');
  // A's block beside the spawn, then B's on top of it: each placed by one (until confirmed), looked for at the other.
  const x = Math.floor(me.x) + 2, z = Math.floor(me.z) + 1;
  const y = await airAbove(a, x, z);
  let since = Date.now();
  const aRes = await a.evaluate(placeUntilConfirmed, [x, y, z, 11]);
  const aToB = await seen(b, [x, y, z], 11, since);
  since = Date.now();
  const bRes = await b.evaluate(placeUntilConfirmed, [x, y + 1, z, 12]);
  const bToA = await seen(a, [x, y + 1, z], 12, since);
  const edits = { aToB, bToA, aConfirmed: /^ok/.test(aRes.at(-1) ?? ''), bConfirmed: /^ok/.test(bRes.at(-1) ?? '') };
  diagnostics.push(`A's edit: ${aRes.join('; ')}; B's edit: ${bRes.join('; ')}`);
  mark('edits');
  const avatar = (p: Page, id: string) => p.waitForFunction((id) => window.voxel.hosting!.players().some((q) => q.id === id), id, { timeout: SEEN_WAIT_MS, polling: 50 }).then(() => true, () => false);
  const [aSeesB, bSeesA] = await Promise.all([avatar(a, bId), avatar(b, aId)]);
  mark('avatars');
  const item = await pickUpInRegion(a, b, region, aId);
  mark('item');
  const itemOk = item && item.ownerAtA === item.aSelf && item.ownerAtB === item.aSelf;
  if (!aSeesB || !bSeesA || aToB === null || bToA === null || !edits.aConfirmed || !edits.bConfirmed || !paths.aHeadless || !paths.bHeadless || !itemOk) await diagnose();
  return { ids: { a: aId, b: bId, headless }, joinMs, paths, avatars: { aSeesB, bSeesA }, edits, item };
}

/**
 * The direct path between A and the headless peer dies (topology.ts cutUdpPath: A's router
 * drops UDP to and from the headless peer's address) while A sends to it every 250 ms, as a
 * player's traffic does. Measured from A's link events (window.voxel.net.linkEvents): when
 * A closed that link and why (the path watch: PATH_DEAD, ~2-3 s; without it the DHT's probe
 * or its 15 s heartbeat timeout), and when A opened a new one to it (through TURN: UDP to
 * coturn still passes). A direct path that outlives a change is no test of this: a move of
 * A's public address kept it in one of two runs (the headless peer has no NAT, so ICE took
 * A's new address as a peer-reflexive candidate).
 */
async function pathDeath(a: Page, headless: string): Promise<PathDeathStep> {
  await a.evaluate((id) => {
    const w = window as unknown as { labTicks?: ReturnType<typeof setInterval> };
    w.labTicks = setInterval(() => window.voxel.net!.send(id, 'tick'), 250);
  }, headless);
  await a.waitForTimeout(1000);
  // The path the link took when it was cut: a cut of UDP to the headless peer's address kills a
  // direct path only (ci92: no close at all in 15 s, path unknown). A link relayed by coturn
  // (either end's relay candidate: ci107's first attempt, 'relay/host', no close in 15 s) loses
  // coturn's leg to the peer as well, until A closed it; the redial then goes through TURN.
  const before = await pathTo(a, headless);
  const at = before ? `${before.local}/${before.remote} ${before.protocol}` : 'no path';
  const relayed = before?.local === 'relay' || before?.remote === 'relay';
  // A string: tsx names the functions of a callback it compiles (__name), which the page lacks.
  if (TRACE_PATH) await a.evaluate(`(async (ip) => {
    const w = window;
    w.labPathLog = [];
    w.labPathT0 = Date.now();
    const recs = (w.labPcs || []).filter((r) => r.pc.connectionState !== 'closed');
    let found;
    for (const r of recs) {
      const all = [];
      (await r.pc.getStats()).forEach((x) => all.push(x));
      if (all.some((x) => x.type === 'remote-candidate' && x.address === ip)) { found = { r, all }; break; }
    }
    if (!found) { w.labPathLog.push('no pc to the headless peer'); return; }
    w.labPathLog.push('pc: ' + found.r.gathered.filter((g) => /setLocal|setRemote|created/.test(g)).join(', '));
    const cand = new Map(found.all.filter((x) => x.type === 'local-candidate' || x.type === 'remote-candidate').map((x) => [x.id, x.candidateType + ':' + x.address]));
    w.labPathLog.push('candidates ' + [...cand.entries()].map((e) => e[0] + '=' + e[1]).join(' '));
    let prev = '';
    w.labPathTimer = setInterval(() => void found.r.pc.getStats().then((st) => {
      const all = [];
      st.forEach((x) => all.push(x));
      const tr = all.find((x) => x.type === 'transport');
      const pairs = all.filter((x) => x.type === 'candidate-pair').map((x) => (cand.get(x.localCandidateId) || x.localCandidateId) + '>' + (cand.get(x.remoteCandidateId) || x.remoteCandidateId) + ' ' + x.state + (x.nominated ? ' nom' : '') + (tr && x.id === tr.selectedCandidatePairId ? ' SEL' : '') + ' rqS' + x.requestsSent + ' rqR' + x.requestsReceived + ' rsR' + x.responsesReceived + ' bR' + x.bytesReceived);
      const line = 'tr bR' + (tr && tr.bytesReceived) + ' bS' + (tr && tr.bytesSent) + ' buf ' + (found.r.pc.labChannels || []).map((c) => c.bufferedAmount).join('/') + ' ice ' + found.r.pc.iceConnectionState + ' | ' + pairs.join(' | ');
      if (line !== prev) w.labPathLog.push('+' + (Date.now() - w.labPathT0) + ' ' + line);
      prev = line;
    }), 100);
  })(${JSON.stringify(PEER_IP)})`);
  const t0 = Date.now();
  cutUdpPath(HOMES[0]!, PEER_IP);
  if (relayed) cutRelayLeg(PEER_IP);
  let mended = !relayed;
  type Ev = { at: number; id: string; open: boolean; reason?: string };
  const events = () => a.evaluate((t0) => window.voxel.net!.linkEvents().filter((e) => e.at >= t0), t0) as Promise<Ev[]>;
  let evs: Ev[] = [];
  let closed: PathDeathStep['closed'] = null;
  let reopened: number | null = null;
  while (Date.now() - t0 < REDIAL_WAIT_MS) {
    evs = await events();
    const close = evs.find((e) => e.id === headless && !e.open);
    closed = close ? { ms: Math.round(close.at - t0), reason: close.reason ?? '' } : null;
    if (close && !mended) { mendRelayLeg(PEER_IP); mended = true; }
    const open = close && evs.find((e) => e.id === headless && e.open && e.at >= close.at);
    if (open) { reopened = Math.round(open.at - t0); break; }
    await a.waitForTimeout(100);
  }
  if (!mended) mendRelayLeg(PEER_IP);
  if (TRACE_PATH) {
    const log = await a.evaluate(`(() => { clearInterval(window.labPathTimer); return ['(sampler t0 ' + (window.labPathT0 - Date.now()) + ' ms from now)', ...(window.labPathLog || [])]; })()`) as string[];
    console.error(`lab-world path trace (cut at ${t0}, now ${Date.now()}):\n  ${log.join('\n  ')}`);
  }
  await a.evaluate(() => clearInterval((window as unknown as { labTicks?: ReturnType<typeof setInterval> }).labTicks));
  const after = await a.evaluate(() => window.voxel.net!.links().map((l) => l.id.slice(0, 8)));
  const trace = [`path at the cut ${at}${relayed ? ' (coturn\'s leg to the peer cut too)' : ''}`,
    ...evs.map((e) => `+${Math.round(e.at - t0)} ${e.open ? 'open' : 'close'} ${e.id === headless ? 'headless' : e.id.slice(0, 8)}${e.reason ? ` (${e.reason})` : ''}`),
    `links at the end ${JSON.stringify(after)}`];
  return { closed, reopened, trace };
}

/**
 * Home A's NAT forgets its mappings while A places blocks beside B (FLUSH_PLAY): the change to
 * the first confirmed edit made after it, nothing lost (every edit confirmed and shown at B),
 * and whether A's links to B and the headless peer are open once the play ended (10 s at most).
 */
async function natFlush(a: Page, b: Page, ids: { b: string; headless: string }): Promise<{ step: FlushStep; placed: number[][] }> {
  const { placed, ...o } = await runNetworkChange(a, b, () => changeNetwork(HOMES[0]!, 'flush'), FLUSH_PLAY, (s) => diagnostics.push(`flush: ${s}`));
  const linked = (id: string) => a.waitForFunction((id) => window.voxel.net!.links().some((l) => l.id === id), id, { timeout: 10_000, polling: 100 }).then(() => true, () => false);
  const [toB, toHeadless] = await Promise.all([linked(ids.b), linked(ids.headless)]);
  return { step: { ...o, linksBack: { b: toB, headless: toHeadless } }, placed };
}

/**
 * B's tab closes and B's router then drops every UDP packet from the home (a firewall letting
 * TCP only: topology.ts 'udp-blocked'); a new player there, C, opens the world in B's own
 * browser (a fresh context, a returning player's identity: no proof of work to wait for). It
 * must link through TURN over TCP (the link world offers it beside TURN/UDP), attach to A's
 * region and show the last block A placed. C goes where A stands as soon as its page is up,
 * so its first chunks are A's, not the spawn's; attaching and the block are waited for side by
 * side from its first link. Every wait is bounded: 30 s to link, 15 s for the rest.
 */
async function udpBlockedJoin(browserB: Browser, bContext: BrowserContext, a: Page, last: number[] | undefined, headless: string): Promise<UdpBlockedStep> {
  // The new context's seeding (a blank page of the origin) goes on while B's closes.
  // Its peer connections recorded from their start (pc-trace.ts): what its dials did goes to the diagnostics.
  const prepared = profile(browserB, 'link').then(async (ctx) => (await ctx.addInitScript(recordPeerConnections), ctx));
  prepared.catch(() => {}); // awaited below; not an unhandled rejection meanwhile
  await bContext.close();
  configureNat(HOMES[1]!, { kind: 'udp-blocked' });
  // C's first dials reach A through A's relay socket, whose mapping in A's router the flush
  // step removed: until A sends on it again (its keepalive: after 15 s of silence) the relay's
  // frames to A are dropped there (and retransmitted by TCP, with backoff).
  diagnostics.push(`A's router's TCP mappings to the relay as C opens: ${tcpMappings(HOMES[0]!, SERVER_IP) || 'none'}`);
  const c = await open(browserB, 'link', prepared, TRACE ? relayFrames('C') : undefined);
  // While C has no link: its peer connections' states and pairs every PC_SNAPSHOT_MS.
  const snapshots = setInterval(() => {
    void c.page.evaluate(() => window.voxel?.net?.links().length ?? 0).then(async (n) => {
      if (n === 0) diagnostics.push(`C at +${Date.now() - c.navigatedAt} ms, no link yet: ${await describePage(c.page)}`);
    }).catch(() => {});
  }, PC_SNAPSHOT_MS);
  try {
    return await udpBlockedPlay(c, a, last, headless);
  } finally {
    clearInterval(snapshots);
    diagnostics.push(`C's peer connections at the end of its step: ${await describePage(c.page).catch((e: Error) => e.message)}`);
  }
}

async function udpBlockedPlay(c: { page: Page; navigatedAt: number }, a: Page, last: number[] | undefined, headless: string): Promise<UdpBlockedStep> {
  await netUp(c.page);
  const upMs = Date.now();
  const me = await a.evaluate(() => window.voxel.player());
  await c.page.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [me.x, me.y, me.z]);
  const linked = await c.page.waitForFunction(() => window.voxel.net!.links().length > 0, null, { timeout: JOIN_WAIT_MS, polling: 50 }).then(() => true, () => false);
  const joinMs = linked ? Date.now() - c.navigatedAt : null;
  const said = await c.page.evaluate(() => performance.getEntriesByName('vp:start-explained').map((m) => `${String((m as PerformanceMark).detail)}@${Math.round(m.startTime)}`));
  if (!linked) { diagnostics.push(`C (UDP blocked): ${await describe(c.page)}`); return { joinMs, paths: [], attachedMs: null, seesAMs: null, headlessLinked: false, said }; }
  mark('C linked');
  // How C's dials went until its first link (the join's time is mostly theirs).
  diagnostics.push(`C's marks, link events and dial counts (ms after navigation): ${await c.page.evaluate(([t0, upMs]) => JSON.stringify({
    marks: Object.fromEntries(['vp:join-start', 'vp:identity'].map((m) => [m, Math.round(performance.getEntriesByName(m)[0]?.startTime ?? NaN)])),
    upMs,
    events: window.voxel.net!.linkEvents().map((e) => `+${Math.round(e.at - t0)} ${e.open ? 'open' : 'close'} ${e.id.slice(0, 8)}${e.reason ? ` (${e.reason})` : ''}`),
    stats: Object.fromEntries(Object.entries(window.voxel.net!.stats()).filter(([k, v]) => typeof v === 'number' && v !== 0 && /dial|fail|timeout|refus|signal/i.test(k))),
  }), [c.navigatedAt, upMs - c.navigatedAt] as const)}`);
  const since = Date.now();
  const region = `${Math.floor(me.x / 64)},${Math.floor(me.z / 64)}`;
  const attached = c.page.waitForFunction((r) => window.voxel?.hosting?.region(r).client?.ready === true, region, { timeout: SEEN_WAIT_MS, polling: 50 })
    .then(() => Date.now() - since, () => null);
  const [attachedMs, seesAMs] = await Promise.all([attached, last ? seen(c.page, [last[0]!, last[1]!, last[2]!], last[3]!, since) : null]);
  // Each link's selected pair (a link's stats may lag its open a moment: 3 s at most).
  let paths: (LinkPath | null)[] = [];
  for (const until = Date.now() + 3000; Date.now() < until; await c.page.waitForTimeout(100)) {
    paths = Object.values(await c.page.evaluate(() => window.voxel.net!.paths()));
    if (paths.length > 0 && paths.every((p) => p !== null)) break;
  }
  if (attachedMs === null || seesAMs === null) diagnostics.push(`C (UDP blocked): ${await describe(c.page)}`);
  const headlessLinked = await c.page.evaluate((id) => window.voxel.net!.links().some((l) => l.id === id), headless);
  return { joinMs, paths, attachedMs, seesAMs, headlessLinked, said };
}

/** Puts tab p standing on column (x, z) as it sees it. */
async function standOn(p: Page, x: number, z: number, y?: number): Promise<void> {
  const at = y ?? await airAbove(p, Math.floor(x), Math.floor(z));
  await p.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [x, at, z]);
}

/**
 * A free item of `region`, walked onto by A as e2e/items-hosted's players do (first 4 blocks
 * away, out of reach, until the hosts saw A there; then onto it): the pickup vote of hosts in
 * three places (A, B, the headless peer), decided across both NATs.
 *
 * The item is one the region's hosts hold, wherever it lies, not one that happens to lie in A's
 * view: hosts spawn at random columns of the whole 64 x 64 region while a player stands in it,
 * until MAX_GROUND (6) lie free; A stands at the lab world's spawn, the region's corner (0.5,
 * 0.5), and sees items within 48 blocks: 44% of the region. By the time of the pickup the region has
 * long been full: when the 6 had all fallen beyond A's view, no other came (ci75: "an item
 * spawned beside A" null). A then goes to it (its column loaded first), the region unchanged.
 */
async function pickUpInRegion(a: Page, b: Page, region: string, aSelf: string): Promise<LabWorldOutcome['item']> {
  const x0 = Number(region.split(',')[0]) * REGION_BLOCKS;
  // Free records of the region's ledger as A and B host it (both host it in a world of three nodes).
  const ledgerIds = async () => (await Promise.all([a, b].map((p) => p.evaluate((r) => window.voxel.hosting!.items(r), region))))
    .flat().filter((r) => r.owner === null && r.away === undefined).map((r) => r.id);
  const until = Date.now() + ITEM_WAIT_MS;
  let found: { id: string; x: number; y: number; z: number } | null = null;
  while (!found && Date.now() < until) {
    // Of those, the nearest to A that A's own items show (lying on the ground by A's world clock).
    found = await a.evaluate((ids) => {
      const me = window.voxel.player();
      const now = window.voxel.items!.clock().now;
      const shown = [...new Set(ids)].map((id) => window.voxel.items!.item(id)).filter((i) => i !== undefined && i.owner === null && i.at <= now);
      shown.sort((p, q) => Math.hypot(p!.x - me.x, p!.z - me.z) - Math.hypot(q!.x - me.x, q!.z - me.z));
      const i = shown[0];
      return i ? { id: i.id, x: i.x, y: i.y, z: i.z } : null;
    }, await ledgerIds());
    if (!found) await a.waitForTimeout(200);
  }
  const free = found;
  if (!free) { diagnostics.push(`no free item in region ${region} within ${ITEM_WAIT_MS} ms (hosts' free records: ${JSON.stringify(await ledgerIds())})`); return null; }
  mark('item spawned');
  const ids = [...new Set(await ledgerIds())];
  const inView = await a.evaluate(() => window.voxel.items!.inView().map((i) => i.id));
  diagnostics.push(`item ${free.id} at ${free.x},${free.z}; the region's free items ${JSON.stringify(ids)}, in A's view ${JSON.stringify(ids.filter((id) => inView.includes(id)))}`);
  // 4 blocks off towards the region's middle, so A stays in the region whose hosts vote.
  const offX = free.x + (free.x - x0 < REGION_BLOCKS / 2 ? 4 : -4);
  await a.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [offX, free.y, free.z]);
  await a.waitForFunction(([x, z]) => window.voxel.getBlock(x!, 0, z!) !== -1 && window.voxel.stats().chunksPending === 0, [offX, free.z], { timeout: SEEN_WAIT_MS, polling: 50 }).catch(() => {});
  await standOn(a, offX, free.z);
  // The hosts saw A there: B (a subscriber of the region) draws A there, so the region's
  // primary had A's move; then a second for its backups (the primary tells them where players
  // stand every 500 ms, region-items.ts), whose claim checks use that.
  await b.waitForFunction(([id, x, z]) => window.voxel.hosting!.players().some((q) => q.id === id && Math.hypot(q.x - x!, q.z - z!) < 1),
    [aSelf, offX, free.z] as const, { timeout: SEEN_WAIT_MS, polling: 50 }).catch(() => diagnostics.push('B did not draw A beside the item'));
  await a.waitForTimeout(1000);
  const since = Date.now();
  await standOn(a, free.x + 0.3, free.z, free.y);
  const owner = (p: Page) => p.waitForFunction((id) => window.voxel.items!.item(id)?.owner ?? null, free.id, { timeout: SEEN_WAIT_MS, polling: 50 })
    .then(async (h) => ({ owner: await h.jsonValue(), ms: Date.now() - since }), () => ({ owner: null, ms: null }));
  const [atA, atB] = await Promise.all([owner(a), owner(b)]);
  return { id: free.id, aSelf, ownerAtA: atA.owner, ownerAtB: atB.owner, aMs: atA.ms, bMs: atB.ms };
}

/** What a tab knows of the world's hosting, for a failure's log. */
function describe(p: Page): Promise<string> {
  return p.evaluate(() => {
    const v = window.voxel;
    const me = v.player();
    const region = `${Math.floor(Math.floor(me.x / 16) / 4)},${Math.floor(Math.floor(me.z / 16) / 4)}`;
    return JSON.stringify({ links: v.net!.links().map((l) => l.id.slice(0, 8)), roles: v.hosting!.roles(), players: v.hosting!.players().map((q) => q.id.slice(0, 8)),
      region, client: v.hosting!.region(region).client, tentative: v.tentative().length, trace: v.hosting!.trace().slice(-8) });
  });
}

async function main(): Promise<LabWorldOutcome> {
  buildTopology();
  configureNat(HOMES[0]!, { kind: 'cone' });
  configureNat(HOMES[1]!, { kind: 'symmetric' });
  mark('topology');
  const browsers = Promise.all(HOMES.map((h) => lab.launchIn(h.host, PORTS)));
  await lab.startCoturn();
  await Promise.all(Object.values(WORLDS).map((w) => lab.startServer(w.ice, w.port)));
  mark('coturn and servers');
  const headless = startHeadless();
  const [browserA, browserB] = await browsers;
  mark('browsers');
  // A in each world first (the one B cannot reach in two of them); then B in the two worlds
  // where it cannot link, together; then B where it can. Not all three at once: with the
  // machine loaded, a tab's first ICE gathering took over 2 s (before the start screen
  // waited for it, bootstrap/peer.ts blockedVerdictMs, it then said "WebRTC blocked").
  const names = Object.keys(WORLDS) as WorldName[];
  const aTabs = await Promise.all(names.map((w) => open(browserA!, w, TRACE_PATH && w === 'link' ? profile(browserA!, w).then(async (ctx) => (await ctx.addInitScript(recordPeerConnections), ctx)) : undefined)));
  await Promise.all(aTabs.map((t) => netUp(t.page)));
  mark('A up');
  const failing = await Promise.all((['expired', 'none'] as const).map((w) => open(browserB!, w)));
  const [expired, none] = await Promise.all(failing.map((t, i) => said(t.page, [aTabs[i + 1]!.context, t.context])));
  mark('B told why in two worlds');
  const headlessId = await headless;
  const bLink = await open(browserB!, 'link');
  const link = await linkWorld(aTabs[0]!.page, bLink.page, bLink.navigatedAt, headlessId);
  // Last: it takes a path of A's away from the steps above.
  const aLinks = await aTabs[0]!.page.evaluate(() => window.voxel.net!.links().map((l) => l.id));
  let death: PathDeathStep | null = null;
  if (aLinks.includes(headlessId)) {
    death = await pathDeath(aTabs[0]!.page, headlessId);
    diagnostics.push(`A's links after its path to the headless peer died: ${death.trace.join('; ')}`);
  } else diagnostics.push(`no path death: A's links before it ${JSON.stringify(aLinks)}`);
  mark('path death');
  // If the world played (both edits confirmed): A's NAT forgets its mappings while A plays on;
  // last, B leaves and a new player behind a UDP-blocking firewall joins in its home.
  let flush: FlushStep | null = null;
  let udpBlocked: UdpBlockedStep | null = null;
  if (link.edits.aConfirmed && link.edits.bConfirmed) {
    let placed: number[][] = [];
    try {
      ({ step: flush, placed } = await natFlush(aTabs[0]!.page, bLink.page, link.ids));
      diagnostics.push(`A's and B's links after A's NAT flush: ${flush.trace.join('; ') || 'none closed or opened'}`);
    } catch (e) {
      diagnostics.push(`NAT flush step failed: ${String(e)}`);
    }
    mark('nat flush');
    try {
      udpBlocked = await udpBlockedJoin(browserB!, bLink.context, aTabs[0]!.page, placed.at(-1), headlessId);
    } catch (e) {
      diagnostics.push(`UDP-blocked home step failed: ${String(e)}`);
    }
    mark('udp blocked home');
  }
  await Promise.all([browserA, browserB].map((b) => b!.close().catch(() => {})));
  return { ...link, pathDeath: death, flush, udpBlocked, expired: expired!, none: none!, timings, diagnostics };
}

let code = 1;
try {
  const outcome = await main();
  console.log(`lab-world ${JSON.stringify(outcome)}`);
  code = 0;
} catch (e) {
  console.error('lab-world failed:', e);
} finally {
  await lab.stopAll();
}
process.exit(code);
