// One bot player of the test agent (bench/agents.ts): a Chromium page of the real app,
// rendering off unless it is one of the rendering tabs, driven only through window.voxel,
// as the dissertation's evaluation client drove the game. Everything a bot does goes through the same code paths a person's input
// takes (teleport = the session, setBlock = the BlockEditor).
//
// Functions handed to page.evaluate run in the page: they declare no inner named functions
// (tsx would wrap them in a `__name` helper that does not exist in the page).
import type { BrowserContext, Page } from 'playwright-core';
import { AIR, BRICK, WATER } from '../src/world/blocks';
import { UNLOADED } from '../src/play/world-model';
import { regionAt } from '../src/region/region-key';
import { MOVE_MS } from '../src/region/move-rate';
import { seedReturningPlayer } from '../e2e/returning-player';
import type { PageTimeline, SpotView } from './edit-samples';

export interface BotOptions {
  /** Page URL without query or fragment, e.g. http://127.0.0.1:8080/ */
  baseUrl: string;
  world: string;
  seed: string;
  renderDistance: number;
  /** Draw the world (WebGL on SwiftShader) instead of ?render=off. */
  render?: boolean;
  /** ws:// relay; default: the page's own /relay. */
  relayUrl?: string;
  /** Wait for window.voxel.net as part of joining (default true). */
  net: boolean;
  /**
   * Open the page as a returning player's (e2e/returning-player.ts: the node ids and the
   * player pass a profile keeps, minted ahead), not a new profile's, which mints its node id
   * and its player pass (proofs of work) before it can join and edit.
   */
  returning?: boolean;
  joinTimeoutMs: number;
  /** Record the page's long tasks (PerformanceObserver 'longtask') for timeline() (bench/edit-samples.ts). */
  longTasks?: boolean;
}

export interface BotStep {
  moved: boolean;
  /** Column changed with this step. */
  crossed: boolean;
  /** The target column was not loaded yet: the bot waited. */
  waited: boolean;
}

/** Numeric fields of window.voxel.stats() and window.voxel.net.stats(), whatever exists. */
export type NumericStats = Record<string, number>;

const chunkOf = (v: number) => Math.floor(Math.floor(v) / 16);
/** Clock readings of two pages of one machine may differ by this much (ms). */
const SINCE_SLACK_MS = 50;
/** Long tasks a page keeps for timeline(), the oldest dropped first. */
const MAX_LONG_TASKS = 2000;
/** Columns beside the bot a brick may go on, in order (x, z offsets). */
const PLACE_OFFSETS = [[2, 0], [0, 2], [-2, 0], [0, -2], [2, 2], [-2, -2]] as const;

export class Bot {
  readonly errors: string[] = [];
  joinMs = NaN;
  /** Date.now() when ready() resolved. */
  readyAt = NaN;
  /** Of the join: the node identity claimed (minted, for a new profile: its proof of work), from the network join's start (ms). */
  idMs = NaN;
  x = 0;
  y = 0;
  z = 0;
  moves = 0;
  crossings = 0;
  waits = 0;
  /** placeNear found no free spot beside the bot. */
  noSpot = 0;
  /** placeNear's brick refused because another bot stood in it (the bots place beside themselves where others walk): no failure of the world. */
  occupied = 0;
  private page!: Page;

  constructor(readonly index: number, private readonly context: BrowserContext, private readonly o: BotOptions) {}

  get url(): string {
    const q = new URLSearchParams(this.o.render ? { rd: String(this.o.renderDistance) } : { render: 'off', rd: String(this.o.renderDistance) });
    if (this.o.relayUrl) q.set('relay', this.o.relayUrl);
    if (!this.o.net) q.set('net', 'off');
    const frag = new URLSearchParams({ world: this.o.world, seed: this.o.seed });
    return `${this.o.baseUrl.replace(/\/?$/, '/')}?${q}#${frag}`;
  }

  /** The bot's page (bench/cpu-profile.ts profiles it). */
  get tab(): Page {
    return this.page;
  }

  /** Opens the page (a returning player's: seeded first, not timed); join time = page open to ready() resolved and window.voxel.net present. */
  async join(): Promise<void> {
    if (this.o.returning) await seedReturningPlayer(this.context, new URL(this.o.baseUrl).origin);
    if (this.o.longTasks) {
      await this.context.addInitScript((max) => {
        const w = window as unknown as { vpLongTasks?: [number, number][] };
        const kept: [number, number][] = (w.vpLongTasks = []);
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) kept.push([performance.timeOrigin + e.startTime, e.duration]);
          if (kept.length > max) kept.splice(0, kept.length - max);
        }).observe({ type: 'longtask', buffered: true });
      }, MAX_LONG_TASKS);
    }
    this.page = await this.context.newPage();
    this.page.on('pageerror', (e) => this.error(`pageerror: ${e.message}`));
    this.page.on('console', (m) => { if (m.type() === 'error') this.error(`console: ${m.text()}`); });
    this.page.on('crash', () => this.error('page crashed'));
    const t0 = Date.now();
    await this.page.goto(this.url, { timeout: this.o.joinTimeoutMs });
    await this.page.waitForFunction(() => typeof window.voxel === 'object', null, { timeout: this.o.joinTimeoutMs, polling: 10 });
    await this.page.evaluate(() => window.voxel.ready());
    this.readyAt = Date.now();
    if (this.o.net) await this.page.waitForFunction(() => window.voxel.net !== undefined, null, { timeout: this.o.joinTimeoutMs, polling: 10 });
    this.joinMs = Date.now() - t0;
    this.idMs = await this.page.evaluate(() => (performance.getEntriesByName('vp:identity')[0]?.startTime ?? NaN) - (performance.getEntriesByName('vp:join-start')[0]?.startTime ?? NaN));
    const p = await this.page.evaluate(() => window.voxel.player());
    [this.x, this.y, this.z] = [p.x, p.y, p.z];
  }

  get alive(): boolean {
    return !!this.page && !this.page.isClosed();
  }

  /**
   * Moves towards (tx, tz) by at most `stepBlocks`, standing on the ground there, walked in
   * `parts` equal parts `partMs` apart: every part's ground is checked first (a column not
   * loaded yet: the bot waits, as a step did), the first part is taken at once and the rest by the
   * page's own timers (window.voxel.step; the last by teleport, which saves the player as a
   * step did), so the page's frames find the player moved on as a walk by the keys moves it
   * and this call costs one round trip, as a step did. A part the next step overtakes (a
   * busy page's late timer) is dropped. `moves` counts the positions a MOVE could carry of
   * it (one per MOVE_MS walked: 2 a step at the defaults).
   */
  async stepTowards(tx: number, tz: number, stepBlocks: number, parts = 1, partMs = 0): Promise<BotStep> {
    const dx = tx - this.x, dz = tz - this.z;
    const d = Math.hypot(dx, dz);
    const k = d > stepBlocks ? stepBlocks / d : 1;
    const r = await this.page.evaluate(([x0, z0, sx, sz, n, ms, unloaded, water]) => {
      const v = window.voxel;
      const w = window as unknown as { botWalk?: number };
      const walk = (w.botWalk = (w.botWalk ?? 0) + 1);
      // Every part's ground first: a column not loaded yet makes the bot wait, as a step did.
      const ys: number[] = [];
      for (let i = 1; i <= n!; i++) {
        const bx = Math.floor(x0! + (sx! * i) / n!), bz = Math.floor(z0! + (sz! * i) / n!);
        let ground = -1;
        for (let y = 250; y > 0; y--) {
          const id = v.getBlock(bx, y, bz);
          if (id === unloaded) break;
          if (id !== 0 && id !== water) { ground = y; break; }
        }
        if (ground < 0) return { ok: false, y: 0 };
        ys.push(ground + 1);
      }
      for (let i = 1; i <= n!; i++) {
        const x = x0! + (sx! * i) / n!, z = z0! + (sz! * i) / n!, y = ys[i - 1]!;
        if (i === 1 && n! > 1) v.step(x, y, z);
        else if (i === 1) void v.teleport(x, y, z);
        else setTimeout(() => {
          if (w.botWalk !== walk) return; // overtaken by the next step
          if (i < n!) v.step(x, y, z);
          else void v.teleport(x, y, z);
        }, (i - 1) * ms!);
      }
      return { ok: true, y: ys[n! - 1]! };
    }, [this.x, this.z, dx * k, dz * k, parts, partMs, UNLOADED, WATER] as const);
    if (!r.ok) {
      this.waits++;
      return { moved: false, crossed: false, waited: true };
    }
    const nx = this.x + dx * k, nz = this.z + dz * k;
    const crossed = chunkOf(nx) !== chunkOf(this.x) || chunkOf(nz) !== chunkOf(this.z);
    [this.x, this.y, this.z] = [nx, r.y, nz];
    this.moves += Math.max(1, Math.round((parts * Math.max(partMs, 0)) / MOVE_MS));
    if (crossed) this.crossings++;
    return { moved: true, crossed, waited: false };
  }

  /**
   * Places a brick next to the bot; returns where and when (epoch ms from timeOrigin + now,
   * comparable between the pages of one machine), or null when no spot was free or it was
   * refused. It takes the first free column of a few beside the bot, skipping the columns
   * another bot's edit holds: `busy` (keys "x,z"), into which it puts the columns it may use
   * before it awaits anything and takes back all but the one it placed on. Two bots placing
   * one spot at once each show their own brick first, so the other's change makes no event
   * in their worlds and read as never seen.
   */
  async placeNear(busy = new Set<string>()): Promise<{ x: number; y: number; z: number; id: number; at: number; settledAt: number; confirmed: boolean; stamp?: { e: number; s: number } } | null> {
    const columns = PLACE_OFFSETS.map(([ox, oz]) => [Math.floor(this.x) + ox, Math.floor(this.z) + oz] as const).filter(([x, z]) => !busy.has(`${x},${z}`));
    for (const [x, z] of columns) busy.add(`${x},${z}`);
    const r = await this.page.evaluate(([columns, id, air, water]) => {
      const v = window.voxel;
      for (const [x, z] of columns!) {
        let y = -1;
        for (let yy = 250; yy > 0; yy--) {
          const b = v.getBlock(x, yy, z);
          if (b < 0) break;
          if (b !== air && b !== water) { y = yy + 1; break; }
        }
        if (y < 0 || v.getBlock(x, y, z) !== air) continue;
        const at = performance.timeOrigin + performance.now();
        return v.setBlock(x, y, z, id!).then(
          (o) => ({ x, y, z, at, settledAt: performance.timeOrigin + performance.now(), err: '', stamp: o.stamp, confirmed: o.confirmed }),
          (e: Error) => ({ x, y, z, at, settledAt: performance.timeOrigin + performance.now(), err: e.message, stamp: undefined, confirmed: false }),
        );
      }
      return null;
    }, [columns, BRICK, AIR, WATER] as const).finally(() => {
      for (const [x, z] of columns) busy.delete(`${x},${z}`);
    });
    if (r && !r.err) busy.add(`${r.x},${r.z}`);
    if (!r) {
      this.noSpot++;
      return null;
    }
    if (r.err === 'edit rejected: occupied') {
      this.occupied++;
      return null;
    }
    if (r.err) {
      this.error(`setBlock refused: ${r.err}`);
      return null;
    }
    return { x: r.x, y: r.y, z: r.z, id: BRICK, at: r.at, settledAt: r.settledAt, confirmed: r.confirmed, ...(r.stamp ? { stamp: r.stamp } : {}) };
  }

  /** Removes the block; false if refused, else the stamp its primary confirmed the removal with (undefined: kept tentative). */
  async removeBlock(x: number, y: number, z: number): Promise<false | { e: number; s: number } | undefined> {
    const r = await this.page.evaluate(([x, y, z, air]) => window.voxel.setBlock(x!, y!, z!, air!).then((o) => ({ err: '', stamp: o.stamp }), (e: Error) => ({ err: e.message, stamp: undefined })), [x, y, z, AIR] as const);
    if (r.err) this.error(`remove refused: ${r.err}`);
    return r.err ? false : r.stamp;
  }

  /**
   * When this edit's change (x, y, z) -> id arrived in this page's world (epoch ms), or NaN
   * if it has not within timeoutMs (0: look once). With the stamp the primary confirmed the
   * edit with, the change carrying that stamp is the one (every change from a host carries
   * its edit's stamp); without one (the editor's setBlock gave none), the first matching
   * change that arrived after `since` (when the editor issued it, on the same machine's
   * clock, less SINCE_SLACK_MS for the pages' clock readings).
   */
  async waitForBlock(x: number, y: number, z: number, id: number, since: number, timeoutMs: number, stamp?: { e: number; s: number }): Promise<number> {
    return this.page.evaluate(async ([x, y, z, id, after, timeoutMs, e, s]) => {
      // The world records when each change arrived, so watching late does not add latency.
      const until = Date.now() + timeoutMs!;
      for (;;) {
        const hit = window.voxel.changes().find((c) => c.x === x && c.y === y && c.z === z && c.id === id && (e! >= 0 ? c.e === e && c.s === s : c.at >= after!));
        if (hit) return hit.at;
        if (Date.now() >= until) return NaN;
        await new Promise((r) => setTimeout(r, 5));
      }
    }, [x, y, z, id, since - SINCE_SLACK_MS, timeoutMs, stamp?.e ?? -1, stamp?.s ?? -1] as const);
  }

  /**
   * Waits for the first full load at this tab's render distance: gapFrames (frames after
   * ready with a column missing inside render distance - 2) stops growing while frames are
   * drawn. Returns the counters then, or null if it did not within timeoutMs.
   */
  async fullLoad(timeoutMs: number): Promise<{ gapFrames: number; frames: number; at: number } | null> {
    const until = Date.now() + timeoutMs;
    let prev = await this.renderCounters();
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, 500));
      const now = await this.renderCounters();
      // A whole half-second of frames (at least 3) without a gap frame: everything near is drawn.
      if (now.frames - prev.frames >= 3 && now.gapFrames === prev.gapFrames) return { ...now, at: Date.now() };
      prev = now;
    }
    return null;
  }

  async renderCounters(): Promise<{ gapFrames: number; frames: number }> {
    return this.page.evaluate(() => {
      const s = window.voxel.stats();
      return { gapFrames: s.gapFrames, frames: s.frames };
    });
  }

  /**
   * What this bot's world holds at (x, y, z) now, and every change recorded there (id, when,
   * the host's stamp): read when an edit was not seen in time, to tell an edit that never
   * reached this world from one that reached it without its stamp (a snapshot replaces a
   * column without a change event; a change to an id the block already had makes none).
   * Also whether the spot's region is one of this bot's live subscriptions (`live`: else its
   * column shows the region's stored log, refreshed lazily) and this bot's own kept tentative
   * edit there (`tentative`: shown over anyone's edit until its retry is confirmed), and its
   * subscription of the region (`client`: primary, epoch, the newest stamp it holds; `held`:
   * the committed edit of the spot it holds, with its stamp).
   */
  async spotState(x: number, y: number, z: number): Promise<SpotView> {
    const { rx, rz } = regionAt(x, z);
    return this.page.evaluate(([x, y, z, region]) => {
      const client = window.voxel.hosting?.region(region as string).client;
      return {
        block: window.voxel.getBlock(x!, y!, z!),
        live: window.voxel.hosting?.liveRegions().includes(region as string) ?? false,
        tentative: window.voxel.tentative().find((t) => t.x === x && t.y === y && t.z === z)?.id,
        arrivals: window.voxel.changes().filter((c) => c.x === x && c.y === y && c.z === z).map((c) => ({ id: c.id, at: c.at, ...(c.e !== undefined ? { e: c.e, s: c.s } : {}) })),
        ...(client ? { client } : {}),
        held: window.voxel.hosting?.block(x!, y!, z!),
      };
    }, [x, y, z, `${rx},${rz}`] as const);
  }

  /** True when the column of (x, z) is loaded in this bot's world. */
  async hasColumn(x: number, z: number): Promise<boolean> {
    return this.page.evaluate(([x, z, unloaded]) => window.voxel.getBlock(x!, 1, z!) !== unloaded, [x, z, UNLOADED] as const);
  }

  async stats(): Promise<NumericStats> {
    return this.page.evaluate(() => {
      const out: Record<string, number> = {};
      const s = window.voxel.stats() as unknown as Record<string, unknown>;
      for (const k of Object.keys(s)) if (typeof s[k] === 'number') out[k] = s[k] as number;
      const n = window.voxel.net?.stats() ?? {};
      for (const k of Object.keys(n)) out[`net_${k}`] = n[k]!;
      const h = window.voxel.hosting?.stats() ?? {};
      for (const k of Object.keys(h)) out[`hosting_${k}`] = h[k]!;
      out.remote_players_visible = window.voxel.hosting?.players().length ?? 0;
      return out;
    });
  }

  /** The tab's last hosting decisions (window.voxel.hosting.trace()). */
  async trace(): Promise<string[]> {
    return this.page.evaluate(() => window.voxel.hosting?.trace() ?? []);
  }

  /** The page's clock origin, hosting trace and long tasks (with `longTasks`): read again and again, since the page keeps only its last ones. */
  async timeline(): Promise<PageTimeline> {
    return this.page.evaluate(() => ({
      origin: performance.timeOrigin,
      trace: window.voxel.hosting?.trace() ?? [],
      longTasks: ((window as unknown as { vpLongTasks?: [number, number][] }).vpLongTasks ?? []).slice(),
    }));
  }

  async close(): Promise<void> {
    await this.page?.close().catch(() => undefined);
  }

  private error(msg: string): void {
    if (this.errors.length < 200) this.errors.push(msg.slice(0, 300));
  }
}
