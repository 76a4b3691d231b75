// The test agent (the dissertation's evaluation client): N bot players in one
// headless Chromium, one browser context each (so each has its own identity and
// IndexedDB), pages opened with ?render=off except the first --render-tabs, which draw
// the world at --render-rd and count frames with a gap (border_gap_frames). Each joins, walks a random route (seeded,
// so the same --seed walks the same routes) across chunk borders around the shared spawn
// at walking speed, in 10 Hz steps each walked in the page in 4 parts 25 ms apart by the
// page's timers (window.voxel.step, the last part window.voxel.teleport), and every few seconds
// places a block beside itself which the other bots watch for (edit-to-visible latency,
// timed on the machine's one wall clock), then removes it. It prints one JSON report.
//
//   npm run agents -- --count N [--url URL] [--relay URL] [--seconds S] [--seed S]
//                     [--rd N] [--json FILE] [--net off] [--dir DIST] [--join-timeout S]
//                     [--render-tabs N] [--render-rd N] [--returning] [--profile FILE] [--count-calls FILE] [--traces FILE] [--rates FILE] [--samples FILE]
//                     [--crowd-profile FILE [--crowd-profile-tabs N] [--crowd-profile-delay S]
//                      [--crowd-profile-seconds S]]
//
// Bots talk over WebRTC, so run it in the loopback-only namespace:
//   bash scripts/netns.sh npm run agents -- --count 8
// Without --url it serves the built app itself (startServer from signaling/serve.ts on a
// free port, with the relay): run `npm run build` first. It stops by itself: joining is
// bounded by --join-timeout (default 60 s), walking lasts --seconds (default 30).
// runAgents(options) is the same thing as a function, for the benchmark runner.
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser, newContext } from '../e2e/browser';
import { startServer, type RunningServer } from '../signaling/serve';
import { hashString, mulberry32 } from '../src/world/terrain-hash';
import { Bot, type NumericStats } from './agent-bot';
import { profilePage } from './cpu-profile';
import { startCrowdProfile, type CrowdProfile } from './crowd-profile';
import { countCalls, readCalls, resetCalls } from './call-counter';
import { median, percentile } from './stats';
import { attribute, BotTimeline, missKind, neverDetails, type EditWatch, type MissKind, type SpotView } from './edit-samples';

/** How often --samples reads every bot's trace and long tasks during the walk (a page keeps only its last few hundred trace lines). */
const TIMELINE_EVERY_MS = 2000;

/** An edit a watcher did not see in time, for --traces: who, where, and the watcher's world at the deadline and at the end. */
interface MissDetail { kind: MissKind; watcher: number; editor: number; at: number[]; since: number; confirmed: boolean; stamp?: { e: number; s: number }; atDeadline?: SpotView; atEnd?: SpotView }

export const AGENT_DEFAULTS = {
  count: 4,
  seconds: 30,
  seed: 'agents',
  renderDistance: 3,
  /** Bots wander within this many blocks of the spawn, so they share chunks (and hosts). */
  roamRadius: 40,
  /** Walking speed: 0.43 blocks per 100 ms step = 4.3 blocks/s, a walk. */
  stepBlocks: 0.43,
  stepMs: 100,
  /**
   * Each step is walked in the page in this many parts `stepPartMs` apart, so every page
   * frame (50 ms with rendering off) finds the player moved on, as a walk by the keys does,
   * and MOVE (20 a second: region/move-rate.ts) carries a new position each time. Walked in
   * one part, the bots moved 10 times a second and the others saw them at 10 Hz at best.
   */
  stepParts: 4,
  stepPartMs: 25,
  /** Each bot places a block this often (staggered between bots). */
  editEveryMs: 3000,
  /** How long other bots watch for a placed block before counting it as not seen. */
  visibleTimeoutMs: 3000,
  /**
   * A block some watcher did not show within visibleTimeoutMs stays up to this much longer
   * before its editor removes it, so a watcher that catches up late shows it (counted late)
   * instead of catching up on the removal only, which hides it (counted superseded).
   */
  lateWaitMs: 10_000,
  joinTimeoutMs: 60_000,
  /** Bots that draw the world (WebGL on SwiftShader, a small viewport) instead of ?render=off. */
  renderTabs: 0,
  /** Their render distance. */
  renderTabRenderDistance: 8,
  /** How long a rendering tab may take to draw everything within its render distance - 2 once. */
  fullLoadTimeoutMs: 120_000,
  /** Pause between bot starts, so joins do not all land in one instant. */
  staggerMs: 250,
  net: true,
  staticDir: 'dist',
  /** Open every bot as a returning player (its node ids and player pass minted ahead: e2e/returning-player.ts), not as a new profile. */
  returning: false,
};

export interface AgentOptions extends Partial<typeof AGENT_DEFAULTS> {
  /** App URL; default: serve `staticDir` on a free port. */
  url?: string;
  /** Relay URL handed to the pages (default: the page's own /relay). */
  relayUrl?: string;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
  /** Write bot 0's CPU profile summary of the walk here (bench/cpu-profile.ts). */
  profile?: string;
  /**
   * Write a crowd profile here (bench/crowd-profile.ts): the first crowdProfileTabs bots
   * profiled, every tab's task time and every Chromium thread's CPU, for crowdProfileSeconds
   * from crowdProfileDelaySeconds into the walk.
   */
  crowdProfile?: string;
  crowdProfileTabs?: number;
  crowdProfileDelaySeconds?: number;
  crowdProfileSeconds?: number;
  /** Write bot 0's calls of timers, microtasks and message sends by caller over the walk here (bench/call-counter.ts). */
  countCalls?: string;
  /** Write every bot's last hosting decisions (claims, grants, step-downs: window.voxel.hosting.trace()) here at the end. */
  traces?: string;
  /** Write every counter of window.voxel's stats per second of the walk, per bot (median, and max over bots), here: what a bot sends, checks and stores. */
  rates?: string;
  /** Write every edit-to-visible sample here with what happened around it and, for the slow ones, a cause (bench/edit-samples.ts). */
  samples?: string;
}

/** Each counter's change per second over the walk, per bot: median and max over the bots that report it. */
function ratesOver(start: NumericStats[], end: NumericStats[], seconds: number): Record<string, { median: number; max: number }> {
  const out: Record<string, { median: number; max: number }> = {};
  const keys = new Set(end.flatMap((s) => Object.keys(s)));
  for (const k of [...keys].sort()) {
    const per = end.flatMap((s, i) => {
      const a = start[i]?.[k], b = s[k];
      return typeof a === 'number' && typeof b === 'number' && b !== a ? [(b - a) / seconds] : [];
    }).sort((x, y) => x - y);
    if (per.length === 0) continue;
    out[k] = { median: Math.round(per[per.length >> 1]! * 10) / 10, max: Math.round(per.at(-1)! * 10) / 10 };
  }
  return out;
}

export interface Summary { p50: number; p99: number; max: number; samples: number }

export interface EditPath { store: number; ack: number; commit: number; confirmed: number; confirm: number }

export interface AgentReport {
  bots: number;
  joined: number;
  seconds: number;
  url: string;
  seed: string;
  /** Page open to window.voxel.ready() resolved and window.voxel.net present. */
  join_ms: Summary;
  /**
   * Parts of the join a new profile pays and a returning one does not: `id`, the network
   * join's start to its node identity claimed (a new profile mints it: a proof of work,
   * core/id-work.ts); `pass`, the player key's proof of work (region/player-pass.ts: read, or
   * minted in a worker alongside the join; edits wait for it, the join does not, but it takes
   * a core meanwhile). `minted`: bots that minted a pass.
   */
  join_work_ms: { id: Summary; pass: Summary; minted: number; returning: boolean };
  /** Chunk snapshot latency: a region subscription's start to its snapshot (median over bots of each bot's p50 / p99). */
  chunk_snapshot_ms: { p50: number; p99: number; samples: number };
  /**
   * Block placed by one bot to visible at another (one sample per watcher: a bot with the
   * spot's column loaded). missed: not seen within visibleTimeoutMs, split after the walk
   * (edit-samples.ts missKind) into late, shown_unstamped, unconfirmed, left, superseded and
   * never (a confirmed edit none of these);
   * watch_errors: a watcher's page failed to answer;
   * unwatched: other bots without the spot's column loaded (no sample expected of them);
   * unstamped: samples matched by spot and time because the editor's setBlock gave no stamp
   * (the others are matched by the stamp the primary confirmed the edit with);
   * changes_dropped: changes that fell out of a watcher's 512-entry list (a late edit among
   * them is counted as never).
   */
  edit_visible_ms: Summary & { missed: number } & Record<MissKind, number> & { watch_errors: number; unwatched: number; unstamped: number; changes_dropped: number };
  /** Bots whose stats() failed to answer at the start or the end (their counters are missing from the figures). */
  stats_errors: number;
  /**
   * The rendering tabs: time from ready to the first full load (everything within render
   * distance - 2 drawn), then, from that moment to the end of the walk, frames drawn, frames
   * with a column missing inside render distance - 2 (gap_frames), and their border crossings.
   * not_loaded: tabs that never reached a full load (their frames are not counted).
   */
  render: { tabs: number; rd: number; full_load_ms: Summary; frames: number; gap_frames: number; fps: number; crossings: number; not_loaded: number };
  /** Own positions taken per second that a MOVE could carry (one per MOVE_MS walked: 20 at the defaults), median over bots. */
  position_updates_hz: number;
  /** MOVE frames sent per second during the walk, median over bots (play/move-pace.ts: MOVE_HZ, 20, at most on average). */
  moves_sent_hz: number;
  /**
   * Other players' positions received per second per player in view during the walk (median
   * over bots that saw one). A host sends a player's position when it changed (or, still, at
   * least every farMs: host/interest-lists.ts), so this is bounded by how often the others
   * step and report: e9f84c6's hosts sent every player of the region again at every 20 Hz
   * tick with anyone moving, and counted that way its bots "received" 18-20 Hz of players
   * that stepped 5-10 times a second.
   */
  remote_position_hz: number;
  /**
   * Of the positions the others could have shown (per other bot in view: its steps or its
   * MOVEs, the fewer, over the walk), the share received: median over bots that saw one. 1
   * when every step that left reached every watcher.
   */
  remote_position_share: number;
  /** Chunk-border crossings over every bot. */
  chunk_crossings: number;
  /** Steps skipped because the next column was not loaded yet. */
  waits_for_chunks: number;
  /** failed: refused or thrown (see errors); no_spot: no free block beside the bot; occupied: refused, another bot stood there. */
  edits: { placed: number; removed: number; failed: number; no_spot: number; occupied: number };
  /**
   * Where an edit's time goes (median over bots of each bot's p50, ms): at the primary from
   * ordering a batch to its own store write done, to a backup's ack, to its commit (in two
   * memories: DELTA sent), to its confirmation (also in our store: CONFIRM sent); at the
   * editor from submit to CONFIRM. `edit_path_p99_ms`: the same, of each bot's p99, the
   * highest over bots.
   */
  edit_path_ms: EditPath;
  edit_path_p99_ms: EditPath;
  /** Failovers seen: a region re-attached to a new primary of a later epoch, summed over bots (joins included; a handoff by design counts too). */
  failovers: number;
  /** The same, during the walk only (every bot joined). */
  failovers_walk: number;
  errors: { count: number; first: string[] };
  /** Every bot's final numeric stats, for what the summary does not cover. */
  stats: NumericStats[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function summary(xs: number[]): Summary {
  const s = xs.filter(Number.isFinite);
  return { p50: median(s), p99: percentile(s, 99), max: s.length ? Math.max(...s) : NaN, samples: s.length };
}

export async function runAgents(options: AgentOptions = {}): Promise<AgentReport> {
  const o = { ...AGENT_DEFAULTS, ...options };
  const log = options.log ?? ((l: string) => console.error(l));
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  const bots: Bot[] = [];
  const errors: string[] = [];
  try {
    let url = options.url;
    if (!url) {
      if (!existsSync(resolve(o.staticDir, 'index.html'))) {
        throw new Error(`${o.staticDir}/index.html is missing: build the app first (npm run build), or pass --url`);
      }
      server = await startServer({ port: 0, host: '127.0.0.1', staticDir: o.staticDir });
      url = server.url;
      log(`agents: serving ${o.staticDir} at ${url}`);
    }
    browser = await launchBrowser();
    const world = `agents-${o.seed}`.replace(/[^\w.-]/g, '-').slice(0, 64);

    // --- join --------------------------------------------------------------------------
    const joining: Promise<void>[] = [];
    for (let i = 0; i < o.count; i++) {
      const render = i < o.renderTabs;
      // A small viewport: SwiftShader draws on the CPU, and these tabs share 2 cores.
      const context = await newContext(browser, render ? { viewport: { width: 640, height: 360 } } : {});
      if (i === 0 && options.countCalls) await countCalls(context);
      const bot = new Bot(i, context, {
        baseUrl: url, world, seed: o.seed, renderDistance: render ? o.renderTabRenderDistance : o.renderDistance,
        render, relayUrl: options.relayUrl, net: o.net, joinTimeoutMs: o.joinTimeoutMs, returning: o.returning, longTasks: !!options.samples,
      });
      bots.push(bot);
      joining.push(bot.join().then(
        () => log(`agents: bot ${i} joined in ${bot.joinMs} ms`),
        (e: Error) => { errors.push(`bot ${i} failed to join: ${e.message.split('\n')[0]}`); log(`agents: bot ${i} failed to join: ${e.message.split('\n')[0]}`); },
      ));
      await sleep(o.staggerMs);
    }
    await Promise.all(joining);
    const live = bots.filter((b) => Number.isFinite(b.joinMs));
    if (!live.length) throw new Error(`no bot joined: ${errors.join('; ')}`);

    // Rendering tabs: gap frames count from their first full load (drawing 13 x 13 columns
    // at rd 8 takes a while after ready, which only needs the nearest few).
    const renderers = live.filter((b) => b.index < o.renderTabs);
    const loaded = await Promise.all(renderers.map(async (b) => {
      const at = await b.fullLoad(o.fullLoadTimeoutMs).catch(() => null);
      log(`agents: rendering bot ${b.index} ${at ? `fully loaded ${at.at - b.readyAt} ms after ready` : 'never fully loaded'}`);
      return at;
    }));

    // --- walk and edit -------------------------------------------------------------------
    const rnd = mulberry32(hashString(o.seed));
    const centre = { x: live[0]!.x, z: live[0]!.z };
    const pick = () => ({ x: centre.x + (rnd() * 2 - 1) * o.roamRadius, z: centre.z + (rnd() * 2 - 1) * o.roamRadius });
    const targets = live.map(() => pick());
    const visible: number[] = [];
    /** Watchers that did not see an edit within visibleTimeoutMs: looked at again after the walk. */
    const misses: { bot: Bot; editor: Bot; x: number; y: number; z: number; id: number; since: number; confirmed: boolean; stamp?: { e: number; s: number }; atDeadline?: SpotView; watch: EditWatch }[] = [];
    /** --samples: every watcher's view of every edit, and every bot's events read during the walk. */
    const watches: EditWatch[] = [];
    const timelines = live.map((b) => new BotTimeline(b.index));
    const readTimelines = () => Promise.all(live.map(async (b, i) => timelines[i]!.add(await b.timeline().catch(() => ({ origin: 0, trace: [], longTasks: [] })))));
    let watchErrors = 0, unwatched = 0, statsErrors = 0, unstamped = 0;
    const edits = { placed: 0, removed: 0, failed: 0, no_spot: 0, occupied: 0 };
    const editing = new Set<Bot>();
    /** Columns ("x,z") an edit holds, from its placing to its removal: no two bots place one spot at once. */
    const busy = new Set<string>();
    const inFlight: Promise<void>[] = [];
    const editOnce = async (bot: Bot) => {
      editing.add(bot);
      let held: string | undefined;
      try {
        const spot = await bot.placeNear(busy);
        if (!spot) return;
        held = `${spot.x},${spot.z}`;
        edits.placed++;
        // Watchers: the other bots that have the spot's column loaded.
        const others = live.filter((b) => b !== bot && b.alive);
        const watch = await Promise.all(others.map(async (b) => ((await b.hasColumn(spot.x, spot.z)) ? b : null)));
        unwatched += watch.filter((b) => b === null).length;
        const mine: EditWatch[] = [];
        const behind: Bot[] = [];
        await Promise.all(watch.filter((b): b is Bot => b !== null).map(async (b) => {
          const t = await b.waitForBlock(spot.x, spot.y, spot.z, spot.id, spot.at, o.visibleTimeoutMs, spot.stamp).catch(() => null);
          if (!spot.stamp) unstamped++;
          if (t === null) return void watchErrors++;
          const watch: EditWatch = { editor: bot.index, watcher: b.index, x: spot.x, y: spot.y, z: spot.z, ...spot.stamp, at: spot.at, settledAt: spot.settledAt, visibleAt: t, confirmed: spot.confirmed };
          watches.push(watch);
          mine.push(watch);
          if (Number.isFinite(t)) visible.push(t - spot.at);
          else {
            misses.push({ bot: b, editor: bot, ...spot, since: spot.at, watch, atDeadline: await b.spotState(spot.x, spot.y, spot.z).catch(() => undefined) });
            behind.push(b);
          }
        }));
        await Promise.all(behind.map((b) => b.waitForBlock(spot.x, spot.y, spot.z, spot.id, spot.at, o.lateWaitMs, spot.stamp).catch(() => NaN)));
        const removal = await bot.removeBlock(spot.x, spot.y, spot.z);
        if (removal === false) edits.failed++;
        else edits.removed++;
        if (removal) for (const w of mine) w.removal = removal;
      } catch (e) {
        errors.push(`bot ${bot.index} edit: ${(e as Error).message.split('\n')[0]}`);
      } finally {
        editing.delete(bot);
        if (held) busy.delete(held);
      }
    };

    const statsAt = () => Promise.all(live.map((b) => b.stats().catch(() => (statsErrors++, {}) as NumericStats)));
    const start = await statsAt();
    // --profile: bot 0's main thread profiled through the walk (bench/cpu-profile.ts).
    const stopProfile = options.profile ? await profilePage(live[0]!.tab) : undefined;
    if (options.countCalls && bots[0] === live[0]) await resetCalls(live[0]!.tab);
    const t0 = Date.now();
    const until = t0 + o.seconds * 1000;
    let crowd: Promise<CrowdProfile | undefined> | undefined;
    if (options.crowdProfile) {
      const delay = (options.crowdProfileDelaySeconds ?? 5) * 1000, length = (options.crowdProfileSeconds ?? 20) * 1000;
      crowd = sleep(delay).then(async () => {
        const stop = await startCrowdProfile(live.map((b) => b.tab), options.crowdProfileTabs ?? 3, resolve(o.staticDir, 'assets'));
        await sleep(length);
        return stop();
      }).catch((e: Error) => { errors.push(`crowd profile: ${e.message.split('\n')[0]}`); return undefined; });
    }
    let reading: Promise<void> | undefined;
    if (options.samples) {
      reading = (async () => {
        while (Date.now() < until) {
          await sleep(TIMELINE_EVERY_MS);
          await readTimelines();
        }
      })();
    }
    const nextEdit = live.map((_, i) => t0 + 1000 + (i * o.editEveryMs) / live.length);
    let tick = 0;
    while (Date.now() < until) {
      const tickStart = Date.now();
      await Promise.all(live.map(async (bot, i) => {
        if (!bot.alive) return;
        const t = targets[i]!;
        if (Math.hypot(t.x - bot.x, t.z - bot.z) < 0.5) targets[i] = pick();
        try {
          await bot.stepTowards(targets[i]!.x, targets[i]!.z, o.stepBlocks, o.stepParts, o.stepPartMs);
        } catch (e) {
          errors.push(`bot ${i} step: ${(e as Error).message.split('\n')[0]}`);
        }
        if (Date.now() >= nextEdit[i]! && !editing.has(bot)) {
          nextEdit[i] = Date.now() + o.editEveryMs;
          inFlight.push(editOnce(bot));
        }
      }));
      if (++tick % 50 === 0) log(`agents: ${Math.round((Date.now() - t0) / 1000)} s, ${edits.placed} edits, ${live.reduce((n, b) => n + b.crossings, 0)} border crossings`);
      await sleep(Math.max(0, o.stepMs - (Date.now() - tickStart)));
    }
    const walked = (Date.now() - t0) / 1000;
    // Positions sent and received are counted over the walk only (standing still after it, a bot still sends MOVE).
    const walkEnd = await statsAt();
    if (options.rates) writeFileSync(options.rates, JSON.stringify(ratesOver(start, walkEnd, walked), null, 1));
    if (stopProfile) {
      const summary = await stopProfile();
      writeFileSync(options.profile!, JSON.stringify(summary, null, 1));
      log(`agents: bot 0 profiled ${summary.wallMs} ms, main thread busy ${summary.busyMs} ms -> ${options.profile}`);
    }
    if (options.countCalls && bots[0] === live[0]) {
      const calls = await readCalls(live[0]!.tab);
      writeFileSync(options.countCalls, JSON.stringify({ seconds: (Date.now() - t0) / 1000, calls }, null, 1));
      log(`agents: bot 0's ${calls.reduce((n, [, c]) => n + c, 0)} counted calls -> ${options.countCalls}`);
    }
    await Promise.all(inFlight);
    await reading;
    if (crowd) {
      const c = await crowd;
      if (c) {
        writeFileSync(options.crowdProfile!, JSON.stringify(c, null, 1));
        log(`agents: crowd profile of ${c.tabs} bots over ${c.seconds} s, main thread busy ${c.busy} ms/s a bot -> ${options.crowdProfile}`);
      }
    }
    const rendered = await Promise.all(renderers.map((b) => b.renderCounters().catch(() => null)));
    // Edits not seen in time, told apart after the walk (edit-samples.ts missKind): arrived
    // late (the block is removed by now, but its arrival stays in the change list), shown
    // unstamped, kept tentative, its column left, hidden by its own removal, or never.
    const missCount: Record<MissKind, number> = { late: 0, shown_unstamped: 0, unconfirmed: 0, left: 0, superseded: 0, never: 0 };
    const missDetail: MissDetail[] = [];
    const views = new Map<EditWatch, { atDeadline?: SpotView; atEnd?: SpotView }>();
    for (const m of misses) {
      const lateAt = await m.bot.waitForBlock(m.x, m.y, m.z, m.id, m.since, 0, m.stamp).catch(() => NaN);
      const end = await m.bot.spotState(m.x, m.y, m.z).catch(() => undefined);
      const kind = missKind({ id: m.id, confirmed: m.confirmed, arrivedLate: Number.isFinite(lateAt), ...(m.stamp ? { stamp: m.stamp } : {}), ...(m.watch.removal ? { removal: m.watch.removal } : {}), ...(m.atDeadline ? { atDeadline: m.atDeadline } : {}), ...(end ? { atEnd: end } : {}) });
      missCount[kind]++;
      m.watch.miss = kind;
      views.set(m.watch, { ...(m.atDeadline ? { atDeadline: m.atDeadline } : {}), ...(end ? { atEnd: end } : {}) });
      missDetail.push({ kind, watcher: m.bot.index, editor: m.editor.index, at: [m.x, m.y, m.z], since: Math.round(m.since), confirmed: m.confirmed, stamp: m.stamp, atDeadline: m.atDeadline, atEnd: end });
    }
    if (missDetail.length) log(`agents: ${missDetail.length} edits not seen in time: ${JSON.stringify(missDetail.map((d) => ({ kind: d.kind, watcher: d.watcher, editor: d.editor, at: d.at, confirmed: d.confirmed, stamp: d.stamp, block: d.atDeadline?.block })))}`);

    if (options.samples) {
      await readTimelines();
      await Promise.all(live.map(async (b, i) => { timelines[i]!.id = await b.tab.evaluate(() => window.voxel.net?.id() ?? '').catch(() => ''); }));
      const report = attribute(watches, timelines, o.visibleTimeoutMs);
      // Each confirmed edit a watcher never showed, with the primary that ordered it and the watcher's attaches there: its cause is read from these.
      const never = neverDetails(watches, timelines, o.visibleTimeoutMs, views);
      writeFileSync(options.samples, JSON.stringify({ t0, never, bots: timelines.map((t) => ({ bot: t.bot, id: t.id, events: t.events, longTasks: t.longTasks })), ...report }, null, 1));
      log(`agents: ${report.slow} of ${report.samples} samples over ${report.slowMs} ms or missed, by cause ${JSON.stringify(report.byCause)}, by leg ${JSON.stringify(report.byLeg)} -> ${options.samples}`);
      for (const n of never) log(`agents: not shown (${n.kind}): region ${n.region} e${n.e ?? '?'}s${n.s ?? '?'} by bot ${n.editor} at bot ${n.watcher} (shown by ${n.shownBy} of ${n.watchers}), ordered by bot ${n.primary.bot}, watcher attached before to ${n.attachedBefore ? `${n.attachedBefore.id} e${n.attachedBefore.e}` : 'none read'}, at the deadline live ${n.atDeadline?.live} client ${JSON.stringify(n.atDeadline?.client)}, at the end live ${n.atEnd?.live} client ${JSON.stringify(n.atEnd?.client)} holds ${JSON.stringify(n.atEnd?.held)} (removal ${JSON.stringify(n.removal)})`);
    }

    // --- report --------------------------------------------------------------------------
    const stats = await statsAt();
    if (options.traces) {
      const traces = await Promise.all(live.map(async (b) => ({ bot: b.index, id: await b.tab.evaluate(() => window.voxel.net?.id() ?? '').catch(() => ''), trace: await b.trace().catch(() => []) })));
      writeFileSync(options.traces, JSON.stringify({ misses: missDetail, traces }, null, 1));
    }
    const field = (k: string) => stats.map((s) => s[k]).filter((v): v is number => v !== undefined && Number.isFinite(v));
    const editPath = (p: 'p50' | 'p99', over: (xs: number[]) => number): EditPath => ({
      store: over(field(`hosting_host_store_ms_${p}`)),
      ack: over(field(`hosting_host_ack_ms_${p}`)),
      commit: over(field(`hosting_host_commit_ms_${p}`)),
      confirmed: over(field(`hosting_host_confirm_ms_${p}`)),
      confirm: over(field(`hosting_client_confirm_ms_${p}`)),
    });
    const snapshot = { p50: median(field('hosting_client_snapshot_ms_p50')), p99: median(field('hosting_client_snapshot_ms_p99')), samples: field('hosting_client_snapshot_samples').reduce((a, b) => a + b, 0) };
    const got = (i: number) => (walkEnd[i]?.hosting_client_playerUpdates ?? 0) - (start[i]?.hosting_client_playerUpdates ?? 0);
    const seenBy = (i: number) => walkEnd[i]?.remote_players_visible ?? 0;
    const remoteHz = live.flatMap((_, i) => (seenBy(i) > 0 ? [got(i) / walked / seenBy(i)] : []));
    // What each bot could have been shown of the others: a step that no MOVE carried (two
    // steps between MOVEs) never left, nor did a MOVE without a step since the last.
    const movesSent = live.map((_, i) => (walkEnd[i]?.hosting_out_player_MOVE ?? NaN) - (start[i]?.hosting_out_player_MOVE ?? NaN));
    const couldShow = live.map((b, i) => Math.min(b.moves, Number.isFinite(movesSent[i]!) ? movesSent[i]! : b.moves));
    const share = live.flatMap((_, i) => {
      const others = live.length - 1;
      const sent = couldShow.reduce((n, c, j) => (j === i ? n : n + c), 0);
      return seenBy(i) > 0 && sent > 0 ? [got(i) / ((sent * Math.min(seenBy(i), others)) / others)] : [];
    });
    const botErrors = bots.flatMap((b) => b.errors.map((e) => `bot ${b.index}: ${e}`));
    const allErrors = [...errors, ...botErrors];
    function renderReport(): AgentReport['render'] {
      let frames = 0, gapFrames = 0, crossings = 0, notLoaded = 0;
      renderers.forEach((b, i) => {
        const from = loaded[i], to = rendered[i];
        if (!from || !to) return void notLoaded++;
        frames += to.frames - from.frames;
        gapFrames += to.gapFrames - from.gapFrames;
        crossings += b.crossings;
      });
      const fullLoad = renderers.flatMap((b, i) => (loaded[i] ? [loaded[i].at - b.readyAt] : []));
      return {
        tabs: renderers.length, rd: o.renderTabRenderDistance, full_load_ms: summary(fullLoad), frames, gap_frames: gapFrames,
        fps: renderers.length - notLoaded > 0 ? Math.round((frames / walked / (renderers.length - notLoaded)) * 10) / 10 : NaN, crossings, not_loaded: notLoaded,
      };
    }
    return {
      bots: o.count,
      joined: live.length,
      seconds: Math.round(walked * 10) / 10,
      url,
      seed: o.seed,
      join_ms: summary(live.map((b) => b.joinMs)),
      join_work_ms: {
        id: summary(live.map((b) => b.idMs)), pass: summary(field('playerKeyMs')),
        minted: field('playerKeyMinted').reduce((a, b) => a + b, 0), returning: o.returning,
      },
      chunk_snapshot_ms: snapshot,
      edit_visible_ms: {
        ...summary(visible), missed: misses.length, ...missCount, watch_errors: watchErrors, unwatched, unstamped,
        changes_dropped: stats.reduce((n, s) => n + (s.changesDropped ?? 0), 0),
      },
      stats_errors: statsErrors,
      render: renderReport(),
      position_updates_hz: Math.round(median(live.map((b) => b.moves / walked)) * 10) / 10,
      moves_sent_hz: Math.round(median(movesSent.filter(Number.isFinite).map((m) => m / walked)) * 10) / 10,
      remote_position_hz: remoteHz.length ? Math.round(median(remoteHz) * 10) / 10 : NaN,
      remote_position_share: share.length ? Math.round(median(share) * 100) / 100 : NaN,
      chunk_crossings: live.reduce((n, b) => n + b.crossings, 0),
      waits_for_chunks: live.reduce((n, b) => n + b.waits, 0),
      edits: { ...edits, failed: edits.failed + live.reduce((n, b) => n + b.errors.filter((e) => e.startsWith('setBlock refused')).length, 0), no_spot: live.reduce((n, b) => n + b.noSpot, 0), occupied: live.reduce((n, b) => n + b.occupied, 0) },
      edit_path_ms: editPath('p50', median),
      edit_path_p99_ms: editPath('p99', (xs) => (xs.length ? Math.max(...xs) : NaN)),
      failovers: field('hosting_client_failovers').reduce((a, b) => a + b, 0),
      failovers_walk: live.reduce((n, _, i) => n + (walkEnd[i]?.hosting_client_failovers ?? 0) - (start[i]?.hosting_client_failovers ?? 0), 0),
      errors: { count: allErrors.length, first: allErrors.slice(0, 20) },
      stats,
    };
  } finally {
    for (const b of bots) await b.close();
    await browser?.close().catch(() => undefined);
    await server?.close().catch(() => undefined);
  }
}

function parseArgs(argv: string[]): AgentOptions & { json?: string } {
  const out: AgentOptions & { json?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!, v = argv[i + 1];
    const need = (): string => {
      if (v === undefined) throw new Error(`${a} needs a value`);
      i++;
      return v;
    };
    const num = (): number => {
      const n = Number(need());
      if (!Number.isFinite(n) || n < 0) throw new Error(`${a} needs a number`);
      return n;
    };
    switch (a) {
      case '--count': out.count = Math.max(1, Math.floor(num())); break;
      case '--url': out.url = need(); break;
      case '--relay': out.relayUrl = need(); break;
      case '--seconds': out.seconds = num(); break;
      case '--seed': out.seed = need(); break;
      case '--rd': out.renderDistance = Math.floor(num()); break;
      case '--json': out.json = need(); break;
      case '--profile': out.profile = need(); break;
      case '--count-calls': out.countCalls = need(); break;
      case '--traces': out.traces = need(); break;
      case '--rates': out.rates = need(); break;
      case '--samples': out.samples = need(); break;
      case '--crowd-profile': out.crowdProfile = need(); break;
      case '--crowd-profile-tabs': out.crowdProfileTabs = Math.floor(num()); break;
      case '--crowd-profile-delay': out.crowdProfileDelaySeconds = num(); break;
      case '--crowd-profile-seconds': out.crowdProfileSeconds = num(); break;
      case '--join-timeout': out.joinTimeoutMs = num() * 1000; break;
      case '--net': out.net = need() !== 'off'; break;
      case '--dir': out.staticDir = need(); break;
      case '--render-tabs': out.renderTabs = Math.floor(num()); break;
      case '--render-rd': out.renderTabRenderDistance = Math.floor(num()); break;
      case '--returning': out.returning = true; break;
      case '--help': case '-h':
        console.log('npm run agents -- --count N [--url URL] [--relay URL] [--seconds S] [--seed S] [--rd N] [--json FILE] [--join-timeout S] [--net off] [--dir DIST] [--render-tabs N] [--render-rd N] [--returning] [--profile FILE] [--count-calls FILE] [--traces FILE] [--rates FILE] [--samples FILE] [--crowd-profile FILE [--crowd-profile-tabs N] [--crowd-profile-delay S] [--crowd-profile-seconds S]]');
        process.exit(0);
        break;
      default: throw new Error(`unknown option ${a} (try --help)`);
    }
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const { json, ...opts } = parseArgs(process.argv.slice(2));
    const report = await runAgents(opts);
    const text = JSON.stringify(report, null, 2);
    if (json) writeFileSync(json, `${text}\n`);
    console.log(text);
    process.exit(0);
  } catch (e) {
    console.error(`agents: ${(e as Error).message}`);
    process.exit(1);
  }
}
