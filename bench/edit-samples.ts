// Per-sample attribution of the 8-bot bench's edit-to-visible latencies (bench/agents.ts
// `--samples FILE`): its p99 is made by a few samples in 1,400, so a figure says nothing of
// why; each sample with what happened around it does. For every watcher of every edit:
// who placed it, where, the primary that ordered it (its own trace line `order s..`), when
// the editor's setBlock resolved, when the watcher showed it, and the events of the region in
// the hosting traces of every bot (window.voxel.hosting.trace(): claims, silences, step-downs,
// the clients' re-attaches, lease waits) and the long tasks (PerformanceObserver 'longtask')
// of the editor, the primary and the watcher over the sample. A sample over SLOW_MS gets one
// cause, the first of CAUSES that holds, so the tail can be counted by cause, and the leg
// that took longer (`to_primary`: placed to ordered at the primary; `to_watcher`: ordered to
// shown at the watcher; `unordered`: no order line read).
import { UNLOADED } from '../src/play/world-model';
import { regionAt, regionName } from '../src/region/region-key';
import { compareStamp, type Stamp } from '../src/region/region-state';

/** What one page gives: its clock origin (trace times are performance.now()), its hosting trace and its long tasks (epoch ms start, duration). */
export interface PageTimeline {
  origin: number;
  trace: string[];
  longTasks: [number, number][];
}

export interface HostEvent { at: number; region: string; what: string }

/** One bot's hosting events and long tasks, accumulated from repeated reads (the page keeps only its last 300-400 trace lines). */
export class BotTimeline {
  readonly events: HostEvent[] = [];
  readonly longTasks: [number, number][] = [];
  private readonly seenLines = new Set<string>();
  private readonly seenTasks = new Set<number>();

  constructor(readonly bot: number, public id = '') {}

  add(t: PageTimeline): void {
    for (const line of t.trace) {
      if (this.seenLines.has(line)) continue;
      this.seenLines.add(line);
      const m = /^(-?\d+) \[([^\]]*)\] (.*)$/.exec(line);
      if (m) this.events.push({ at: t.origin + Number(m[1]), region: m[2]!, what: m[3]! });
    }
    for (const [start, ms] of t.longTasks) {
      if (this.seenTasks.has(start)) continue;
      this.seenTasks.add(start);
      this.longTasks.push([start, ms]);
    }
  }
}

/** One watcher's view of one edit, as the bench saw it. */
export interface EditWatch {
  editor: number;
  watcher: number;
  x: number;
  y: number;
  z: number;
  /** Stamp the editor's setBlock resolved with. */
  e?: number;
  s?: number;
  /** Epoch ms: the editor's setBlock called, resolved; the watcher's world changed (NaN: not within the bench's wait). */
  at: number;
  settledAt: number;
  visibleAt: number;
  confirmed: boolean;
  miss?: string;
  /** The stamp the editor's removal of the block (after the bench's wait) was confirmed with. */
  removal?: { e: number; s: number };
}

/** A sample above this is in the tail the target is about (edit_visible_ms_p99 <= 200). */
export const SLOW_MS = 200;
/** Region events this long before the edit still count as around it (a failover just before delays what follows). */
const BEFORE_MS = 1000;
/** Long tasks shorter than this are a page's ordinary work here, not a cause. */
const LONG_TASK_MS = 100;

/** Lines every edit makes (ordering, storing, committing): what happens to the edit, not around it. */
const ROUTINE = /\b(order|stored|commit) s\d|: subscriber [0-9a-f]/;
const HOST_CHANGE = /silent|claim|release|step down|did not certify|abandon|takeover told|take back|not following|cannot certify|bad certificate|unload/;
const CLIENT_MOVE = /^client: /;
const LEASE_WAIT = /edits wait for the lease/;

/**
 * Causes in the order they are tried; the first that holds names a slow sample. A host change
 * of the region from BEFORE_MS before the edit to its showing; the editor's setBlock resolved
 * unconfirmed (kept tentative: refused or no primary, shown elsewhere only once a retry was
 * confirmed, RETRY_MS later at the earliest); the primary's lease wait before
 * it ordered the edit; the editor's client looking for its primary before that, or the
 * watcher's before it showed it; a long task of a bot over the sample.
 */
export const CAUSES = ['host_change', 'kept_tentative', 'lease_wait', 'reattach', 'long_task_primary', 'long_task_watcher', 'long_task_editor', 'long_task_other', 'unordered', 'unexplained'] as const;
export type Cause = (typeof CAUSES)[number];

/** What a watcher's page held at the edit's spot (Bot.spotState): read at the bench's deadline and after the walk for an edit it did not show. */
export interface SpotView {
  block: number;
  /** The spot's region is one of the watcher's live subscriptions. */
  live: boolean;
  tentative?: number;
  arrivals: { id: number; at: number; e?: number; s?: number }[];
  /** The watcher's subscription of the region (window.voxel.hosting.region(name).client), absent when not attached. */
  client?: { primary: string; epoch: number; ready: boolean; entries: number; version: string };
  /** The committed edit of the spot that subscription holds, with its stamp (window.voxel.hosting.block). */
  held?: { id: number; e: number; s: number };
}

export interface AttributedSample extends EditWatch {
  region: string;
  ms: number;
  /** The bot whose trace ordered the edit's seq, and when (NaN: no such line read). */
  primary: number;
  orderedAt: number;
  /** at -> ordered at the primary; ordered -> shown at the watcher. */
  toOrderMs: number;
  toWatcherMs: number;
  events: string[];
  /** Long tasks over the sample, per bot role: their total ms. */
  longTaskMs: { editor: number; primary: number; watcher: number; other: number };
  cause?: Cause;
  leg?: 'to_primary' | 'to_watcher' | 'unordered';
}

export interface SampleReport {
  slowMs: number;
  samples: number;
  slow: number;
  byCause: Record<string, number>;
  byLeg: Record<string, number>;
  list: AttributedSample[];
}

const round = (v: number) => (Number.isFinite(v) ? Math.round(v) : v);

/** The bot that ordered (e, s) in region, and when: from the `<hex6> e<e> order s<a>-<b>` line of its trace. */
function orderOf(timelines: BotTimeline[], region: string, e: number, s: number): { bot: number; at: number } {
  for (const t of timelines) {
    for (const ev of t.events) {
      if (ev.region !== region) continue;
      const m = / e(\d+) order s(\d+)-(\d+)/.exec(ev.what);
      if (m && Number(m[1]) === e && Number(m[2]) <= s && s <= Number(m[3])) return { bot: t.bot, at: ev.at };
    }
  }
  return { bot: -1, at: NaN };
}

function overlap(tasks: [number, number][], from: number, to: number): number {
  let ms = 0;
  for (const [start, d] of tasks) if (d >= LONG_TASK_MS && start < to && start + d > from) ms += Math.min(to, start + d) - Math.max(from, start);
  return ms;
}

/**
 * What an edit a watcher did not show within the bench's wait was, looked at after the walk:
 * - `late`: its change (by stamp) arrived since;
 * - `shown_unstamped`: the watcher's world held the block at the deadline with no change
 *   carrying the stamp (a snapshot brought it, or the block had the id already);
 * - `unconfirmed`: the editor's setBlock kept it tentative (no certified primary confirmed it);
 * - `left`: at the deadline the watcher's column of the spot was unloaded, or the spot's
 *   region was none of its live subscriptions (it walked away: a region beyond the 3 x 3
 *   around the player shows the DHT's edit log, refreshed lazily, play/network-chunk-source.ts);
 * - `superseded`: the watcher's subscription did not hold the edit at the deadline and ends
 *   holding the block at the stamp of the editor's removal (agents.ts lateWaitMs) or later:
 *   it caught up on the block only after the removal, so the block's later edit hid this one
 *   (late, by how much unknown). One that held the edit at the deadline and did not show it
 *   is never: its world lost what its subscription had;
 * - `never`: none of these, a confirmed edit the watcher's world lost.
 */
export type MissKind = 'late' | 'shown_unstamped' | 'unconfirmed' | 'left' | 'superseded' | 'never';

export function missKind(m: { id: number; confirmed: boolean; arrivedLate: boolean; stamp?: Stamp; removal?: Stamp; atDeadline?: SpotView; atEnd?: SpotView }): MissKind {
  if (m.arrivedLate) return 'late';
  if (m.atDeadline?.block === m.id) return 'shown_unstamped';
  if (!m.confirmed) return 'unconfirmed';
  if (m.atDeadline && (m.atDeadline.block === UNLOADED || !m.atDeadline.live)) return 'left';
  const had = m.atDeadline?.held, held = m.atEnd?.held;
  const hadIt = !!had && !!m.stamp && compareStamp(had, m.stamp) >= 0;
  if (!hadIt && held && m.stamp && m.removal && compareStamp(held, m.removal) >= 0) return 'superseded';
  return 'never';
}

/** A never-shown edit's watcher history this long before the edit (its attaches, epochs, silences). */
const NEVER_HISTORY_MS = 20_000;
/** The region's lines of every bot from this long before the edit to this long after the bench's wait. */
const NEVER_AROUND_MS = 3000;
/** At most this many of those lines per never-shown edit. */
const NEVER_MAX_LINES = 300;

/** One confirmed edit a watcher never showed, with what it takes to tell why (bench/agents.ts keeps them with the samples). */
export interface NeverDetail {
  /** never, superseded (caught up on only after its removal) or left (missKind). */
  kind: string;
  region: string;
  editor: number;
  watcher: number;
  at: [number, number, number];
  /** Epoch ms the editor's setBlock was called; the stamp it resolved with. */
  placedAt: number;
  e?: number;
  s?: number;
  /** The stamp of the editor's removal of the block after the bench's wait. */
  removal?: { e: number; s: number };
  /** The bot whose trace ordered the stamp, its node id (first 6 hex), and ms from placing to the order (NaN: no order line read). */
  primary: { bot: number; id: string; orderedMs: number };
  /** The watcher's last `client: attached to <id> e<E>` of the region before the edit (undefined: none read). */
  attachedBefore?: { id: string; e: number; ms: number };
  /** Other watchers of the same edit and how many showed it in time. */
  watchers: number;
  shownBy: number;
  /** The watcher's world and subscription at the bench's deadline (before the editor removed the block) and at the end. */
  atDeadline?: SpotView;
  atEnd?: SpotView;
  /** The watcher's own lines of the region (its client's attaches) from NEVER_HISTORY_MS before the edit to the end, ms from placing. */
  watcherLines: string[];
  /** Every bot's lines of the region, routine ones too (order, stored, commit), around the edit: `<ms from placing> bot<N> <line>`. */
  regionLines: string[];
}

/** The misses neverDetails details: confirmed edits not shown, whatever the bench made of them. */
const DETAILED = new Set(['never', 'superseded', 'left']);

/** For each watch whose miss is never, superseded or left: where, under which primary and epoch, and the watcher's attach history there (see NeverDetail). */
export function neverDetails(watches: EditWatch[], timelines: BotTimeline[], waitMs: number, views: Map<EditWatch, { atDeadline?: SpotView; atEnd?: SpotView }> = new Map()): NeverDetail[] {
  return watches.filter((w) => DETAILED.has(w.miss ?? '')).map((w): NeverDetail => {
    const region = regionName(regionAt(w.x, w.z));
    const rel = (at: number) => round(at - w.at);
    const order = w.e !== undefined && w.s !== undefined ? orderOf(timelines, region, w.e, w.s) : { bot: -1, at: NaN };
    const same = watches.filter((o) => o.editor === w.editor && o.at === w.at && o.x === w.x && o.y === w.y && o.z === w.z);
    const mine = timelines.find((t) => t.bot === w.watcher)?.events.filter((ev) => ev.region === region) ?? [];
    let attachedBefore: NeverDetail['attachedBefore'];
    for (const ev of mine) {
      const m = /^client: attached to ([0-9a-f]+) e(\d+)/.exec(ev.what);
      if (m && ev.at <= w.at) attachedBefore = { id: m[1]!, e: Number(m[2]), ms: rel(ev.at) };
    }
    const around = timelines.flatMap((t) => t.events
      .filter((ev) => ev.region === region && ev.at >= w.at - NEVER_AROUND_MS && ev.at <= w.at + waitMs + NEVER_AROUND_MS)
      .map((ev) => ({ at: ev.at, line: `${rel(ev.at)} bot${t.bot} ${ev.what}` })))
      .sort((a, b) => a.at - b.at)
      .slice(0, NEVER_MAX_LINES);
    const v = views.get(w);
    return {
      kind: w.miss!, region, editor: w.editor, watcher: w.watcher, at: [w.x, w.y, w.z], placedAt: w.at, ...(w.e !== undefined ? { e: w.e, s: w.s } : {}), ...(w.removal ? { removal: w.removal } : {}),
      primary: { bot: order.bot, id: timelines.find((t) => t.bot === order.bot)?.id.slice(0, 6) ?? '', orderedMs: rel(order.at) },
      ...(attachedBefore ? { attachedBefore } : {}),
      watchers: same.length, shownBy: same.filter((o) => Number.isFinite(o.visibleAt)).length,
      ...(v?.atDeadline ? { atDeadline: v.atDeadline } : {}), ...(v?.atEnd ? { atEnd: v.atEnd } : {}),
      watcherLines: mine.filter((ev) => ev.at >= w.at - NEVER_HISTORY_MS).map((ev) => `${rel(ev.at)} ${ev.what}`),
      regionLines: around.map((l) => l.line),
    };
  });
}

export function attribute(watches: EditWatch[], timelines: BotTimeline[], waitMs: number): SampleReport {
  const list = watches.map((w): AttributedSample => {
    const region = regionName(regionAt(w.x, w.z));
    const end = Number.isFinite(w.visibleAt) ? w.visibleAt : w.at + waitMs;
    const order = w.e !== undefined && w.s !== undefined ? orderOf(timelines, region, w.e, w.s) : { bot: -1, at: NaN };
    const events = timelines.flatMap((t) => t.events
      .filter((ev) => ev.region === region && ev.at >= w.at - BEFORE_MS && ev.at <= end && !ROUTINE.test(ev.what))
      .map((ev) => ({ ...ev, bot: t.bot })))
      .sort((a, b) => a.at - b.at);
    // Before the order (or, with none read, the showing): what the edit's ordering waited on.
    const ordered = Number.isFinite(order.at) ? order.at : end;
    const lt = { editor: 0, primary: 0, watcher: 0, other: 0 };
    for (const t of timelines) {
      const ms = overlap(t.longTasks, w.at, end);
      if (!ms) continue;
      if (t.bot === w.watcher) lt.watcher += ms;
      else if (t.bot === order.bot) lt.primary += ms;
      else if (t.bot === w.editor) lt.editor += ms;
      else lt.other += ms;
    }
    const ms = end - w.at;
    const s: AttributedSample = {
      ...w, region, ms: round(ms), primary: order.bot, orderedAt: round(order.at),
      toOrderMs: round(order.at - w.at), toWatcherMs: round(end - order.at),
      events: events.map((ev) => `${round(ev.at - w.at)} bot${ev.bot} ${ev.what}`),
      longTaskMs: { editor: round(lt.editor), primary: round(lt.primary), watcher: round(lt.watcher), other: round(lt.other) },
    };
    if (ms > SLOW_MS || !Number.isFinite(w.visibleAt)) {
      const has = (re: RegExp, bots: number[] | null, until: number) => events.some((ev) => re.test(ev.what) && ev.at <= until && (!bots || bots.includes(ev.bot)));
      s.cause = has(HOST_CHANGE, null, end) ? 'host_change'
        : !w.confirmed ? 'kept_tentative'
        : has(LEASE_WAIT, [order.bot], ordered) ? 'lease_wait'
        : has(CLIENT_MOVE, [w.editor], ordered) || has(CLIENT_MOVE, [w.watcher], end) ? 'reattach'
        : lt.primary >= LONG_TASK_MS ? 'long_task_primary'
        : lt.watcher >= LONG_TASK_MS ? 'long_task_watcher'
        : lt.editor >= LONG_TASK_MS ? 'long_task_editor'
        : lt.other >= LONG_TASK_MS ? 'long_task_other'
        : order.bot < 0 ? 'unordered'
        : 'unexplained';
      s.leg = order.bot < 0 ? 'unordered' : order.at - w.at >= end - order.at ? 'to_primary' : 'to_watcher';
    }
    return s;
  });
  const slow = list.filter((s) => s.cause);
  const byCause: Record<string, number> = {};
  for (const c of CAUSES) byCause[c] = slow.filter((s) => s.cause === c).length;
  const byLeg: Record<string, number> = {};
  for (const l of ['to_primary', 'to_watcher', 'unordered']) byLeg[l] = slow.filter((s) => s.leg === l).length;
  return { slowMs: SLOW_MS, samples: list.length, slow: slow.length, byCause, byLeg, list };
}
