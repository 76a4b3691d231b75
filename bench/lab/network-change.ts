// The lab's network-change cases: two linked homes play; home A's network changes under it
// (its NAT forgets every mapping, or its public address moves) while A keeps placing blocks.
// Measured: from the change to the first confirmation of an edit A made after it (the
// lab's `network_change_recovery_ms`); then every edit A made must end confirmed
// (none left tentative) and be seen by B: nothing lost.
import type { Page } from 'playwright-core';
import { EYE_HEIGHT, PLAYER_REACH } from '../../src/world/player-body';
import { groundAt } from '../../e2e/page-world';

export interface NetworkChangeOptions {
  /** A places one block this often, before, during and after the change. */
  editEveryMs: number;
  /** Steady play (edits confirmed) before the change. */
  beforeMs: number;
  /** Editing goes on this long after the first confirmation past the change. */
  afterMs: number;
  /** No confirmation by then: the case failed. */
  giveUpMs: number;
  /** After the last edit: every edit settled (confirmed, none tentative) and seen by B within this. */
  settleMs: number;
  /** After both players were moved, before the first edit: the primary's belief of where A stands catches up (an edit sooner is refused as out of reach). */
  movedMs: number;
}

export const NETWORK_CHANGE_LAB = { editEveryMs: 500, beforeMs: 3000, afterMs: 3000, giveUpMs: 60_000, settleMs: 60_000, movedMs: 2000 } satisfies NetworkChangeOptions;

export interface NetworkChangeOutcome {
  /** The change to the first confirmation of an edit A submitted after it; null: none within giveUpMs. */
  recoveryMs: number | null;
  /** The change to A's first peer connection made after it reaching `connected`; null: none (the old ones carried on). */
  newLinkMs: number | null;
  /** The change to A's first link closed after it (its reason in `trace`); null: none closed. */
  closedMs: number | null;
  /**
   * Link events of A and B after the change, in order: `+ms who open|close peer (why)`, from
   * window.voxel.net.linkEvents() (empty where the built app has none).
   */
  trace: string[];
  /** A's links in the overlay just before the change, and the least seen until the recovery. */
  linksBefore: number;
  linksLeast: number;
  submitted: number;
  /** Submitted after the change, before the recovery (kept tentative or held in flight). */
  meanwhile: number;
  /** Edits refused or failed outright (setBlock rejected): each one a defect here. */
  refused: number;
  /** Still tentative at A when the settling ended. */
  tentativeLeft: number;
  /** Edits A submitted that B does not show when the settling ended. */
  unseenAtB: number;
  /** The blocks A placed (x, y, z, id; setBlock not rejected), in order. */
  placed: number[][];
  problems: string[];
}

/** One edit as A's page logged it (epoch ms; 0: not yet). */
interface Logged { x: number; y: number; z: number; id: number; sub: number; res: number; conf: number; err: string }

interface DriverWindow {
  labEdits?: { start(spots: number[][], everyMs: number): void; stop(): void; log(): Logged[] };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Regions are 4x4 chunks of 16 (src/region): the name hosting-api's region() takes. */
const regionOf = (x: number, z: number) => `${Math.floor(Math.floor(x / 16) / 4)},${Math.floor(Math.floor(z / 16) / 4)}`;

/**
 * Installed in A's page: every `everyMs` the next spot gets a block (not waiting for the
 * previous edit). An edit is confirmed when its setBlock says so, or, if it was kept
 * tentative, when it leaves the tentative list (the tab's own retry got it confirmed).
 */
function installDriver(): void {
  const w = window as unknown as DriverWindow;
  const log: Logged[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;
  let watch: ReturnType<typeof setInterval> | undefined;
  w.labEdits = {
    start(spots, everyMs) {
      let i = 0;
      timer = setInterval(() => {
        if (i >= spots.length) return clearInterval(timer);
        const [x, y, z, id] = spots[i++]!;
        const e: Logged = { x: x!, y: y!, z: z!, id: id!, sub: Date.now(), res: 0, conf: 0, err: '' };
        log.push(e);
        window.voxel.setBlock(e.x, e.y, e.z, e.id).then(
          (r) => { e.res = Date.now(); if (r.confirmed) e.conf = e.res; },
          (err: Error) => { e.res = Date.now(); e.err = `${err.name}: ${err.message}`; },
        );
      }, everyMs);
      watch = setInterval(() => {
        const held = new Set(window.voxel.tentative().map((t) => `${t.x},${t.y},${t.z}`));
        const now = Date.now();
        for (const e of log) if (e.res && !e.conf && !e.err && !held.has(`${e.x},${e.y},${e.z}`)) e.conf = now;
      }, 50);
    },
    stop() { clearInterval(timer); },
    log() { return log; },
  };
  // The watcher runs on; the page is closed at the end of the case.
  void watch;
}

/** A's peer connections that reached `connected` (epoch ms), from the lab's recorder (lab.ts). */
function connectedAt(p: Page): Promise<number[]> {
  return p.evaluate(() => ((window as unknown as { labPcs?: { connectedAt: number | null }[] }).labPcs ?? [])
    .flatMap((r) => (r.connectedAt === null ? [] : [r.connectedAt])));
}

const linkCount = (p: Page) => p.evaluate(() => window.voxel.net!.links().length);

type LinkEv = { at: number; id: string; open: boolean; outbound?: boolean; reason?: string };
/** The page's link events since `t0` (epoch ms); [] where the app keeps none. */
const linkEventsSince = (p: Page, t0: number): Promise<LinkEv[]> => p.evaluate((t0) => {
  const net = window.voxel.net as unknown as { linkEvents?: () => LinkEv[] };
  return (net.linkEvents?.() ?? []).filter((e) => e.at >= t0);
}, t0);

/**
 * Runs one change on two pages already linked (A: `pa`, the home that changes; B: `pb`).
 * `change` does the change to A's network (topology.ts changeNetwork).
 */
export async function runNetworkChange(pa: Page, pb: Page, change: () => void, o: NetworkChangeOptions = NETWORK_CHANGE_LAB, log: (s: string) => void = () => {}): Promise<NetworkChangeOutcome> {
  const problems: string[] = [];
  await Promise.all([pa, pb].map((p) => p.waitForFunction(() => window.voxel?.hosting !== undefined, null, { timeout: 60_000, polling: 50 })));
  // Both players stand in the middle of A's region, so every spot within reach lies in it
  // and B is subscribed to it (it sees A's edits).
  const spawn = await pa.evaluate(() => window.voxel.player());
  const region = regionOf(spawn.x, spawn.z);
  const [rx, rz] = region.split(',').map(Number) as [number, number];
  const cx = rx * 64 + 32, cz = rz * 64 + 32;
  await pa.evaluate(([x, z]) => window.voxel.teleport(x!, 160, z!), [cx + 0.5, cz + 0.5]);
  const feet = await groundAt(pa, cx, cz);
  await Promise.all([pa, pb].map((p) => p.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [cx + 0.5, feet, cz + 0.5])));
  await Promise.all([pa, pb].map((p) => p.waitForFunction((r) => window.voxel.hosting!.region(r).client?.ready === true, region, { timeout: 30_000, polling: 50 })));
  // Spots around A, each edited once, up to three blocks high on the columns around it: only
  // those within the crosshair's reach of A's eye (the primary allows two more blocks), so
  // no edit is refused as out of reach, and a kept one is never retried in vain.
  const spots: number[][] = [];
  const around: [number, number][] = [];
  for (let dx = -4; dx <= 4; dx++) {
    for (let dz = -4; dz <= 4; dz++) if (Math.abs(dx) > 1 || Math.abs(dz) > 1) around.push([cx + dx, cz + dz]);
  }
  // Every column's ground in one look, once all are loaded (a look per column cost ~2 s of
  // round trips to the page on a loaded machine).
  await pa.waitForFunction((cs) => cs.every(([x, z]) => window.voxel.getBlock(x, 100, z) >= 0), around, { timeout: 30_000, polling: 50 });
  const columns = await pa.evaluate((cs) => cs.map(([x, z]): [number, number, number] => {
    for (let y = 250; y > 0; y--) { const b = window.voxel.getBlock(x, y, z); if (b !== 0 && b !== 5) return [x, y + 1, z]; }
    return [x, 100, z];
  }), around);
  const eye = { x: cx + 0.5, y: feet + EYE_HEIGHT, z: cz + 0.5 };
  const reachable = (x: number, y: number, z: number) => Math.hypot(x + 0.5 - eye.x, y + 0.5 - eye.y, z + 0.5 - eye.z) <= PLAYER_REACH;
  for (const layer of [0, 1, 2]) for (const [x, y, z] of columns) if (reachable(x, y + layer, z)) spots.push([x, y + layer, z, [11, 12, 10][layer]!]);
  if (spots.length < 40) throw new Error(`only ${spots.length} spots within reach of A (${cx}, ${feet}, ${cz})`);
  // The primary's belief of where the teleported player stands catches up first (an edit
  // sooner is refused as out of reach).
  await sleep(o.movedMs);

  await pa.evaluate(installDriver);
  await pa.evaluate(([s, ms]) => (window as unknown as DriverWindow).labEdits!.start(s as number[][], ms as number), [spots, o.editEveryMs] as const);
  const edits = () => pa.evaluate(() => (window as unknown as DriverWindow).labEdits!.log());
  // Steady play first: an edit confirmed, then beforeMs of editing.
  const playing = Date.now();
  while (!(await edits()).some((e) => e.conf)) {
    if (Date.now() - playing > 30_000) throw new Error('no edit of A was confirmed before the change');
    await sleep(100);
  }
  await sleep(o.beforeMs);
  const linksBefore = await linkCount(pa);

  const t0 = Date.now();
  change();
  log(`network changed with ${linksBefore} links at A`);
  let recoveryMs: number | null = null;
  let linksLeast = linksBefore;
  // When A's link count first fell (polled; the trace has the exact time where the app logs link events).
  let fellMs: number | null = null;
  while (Date.now() - t0 < o.giveUpMs) {
    const n = await linkCount(pa);
    if (n < linksBefore && fellMs === null) fellMs = Date.now() - t0;
    linksLeast = Math.min(linksLeast, n);
    const first = Math.min(...(await edits()).filter((e) => e.sub >= t0 && e.conf).map((e) => e.conf));
    if (Number.isFinite(first)) { recoveryMs = first - t0; break; }
    await sleep(100);
  }
  if (recoveryMs === null) problems.push(`no edit confirmed within ${o.giveUpMs} ms of the change`);
  await sleep(o.afterMs);
  await pa.evaluate(() => (window as unknown as DriverWindow).labEdits!.stop());
  const fresh = (await connectedAt(pa)).filter((t) => t >= t0);
  const newLinkMs = fresh.length ? Math.min(...fresh) - t0 : null;
  const [aEvents, bEvents] = await Promise.all([linkEventsSince(pa, t0), linkEventsSince(pb, t0)]);
  const firstClose = aEvents.find((e) => !e.open);
  const closedMs = firstClose ? Math.round(firstClose.at - t0) : fellMs;
  const trace = [...aEvents.map((e) => ['A', e] as const), ...bEvents.map((e) => ['B', e] as const)].sort((x, y) => x[1].at - y[1].at)
    .map(([who, e]) => `+${Math.round(e.at - t0)} ${who} ${e.open ? `open ${e.outbound ? 'out' : 'in'}` : 'close'} ${e.id.slice(0, 8)}${e.reason ? ` (${e.reason})` : ''}`);
  log(`links after the change: ${trace.join('; ') || 'no events'}`);
  // Since the page opened: how often A was told 'alone' (no certified primary to be had), re-attached, and its host could not certify.
  const alone = await pa.evaluate(() => {
    const s = window.voxel.hosting!.stats();
    return { alone: s.client_alone, reattaches: s.client_reattaches, uncertifiable: s.host_uncertifiable };
  });
  log(`A's region client: ${JSON.stringify(alone)}`);

  // Settling: every edit answered and none tentative at A, and B shows each.
  const settleEnd = Date.now() + o.settleMs;
  let all = await edits();
  while (Date.now() < settleEnd) {
    all = await edits();
    const tentative = await pa.evaluate(() => window.voxel.tentative().length);
    if (all.every((e) => e.res) && tentative === 0) break;
    await sleep(200);
  }
  const placed = all.filter((e) => !e.err).map((e) => [e.x, e.y, e.z, e.id]);
  let unseenAtB = placed.length;
  while (Date.now() < settleEnd + 15_000) {
    unseenAtB = await pb.evaluate((ps) => ps.filter(([x, y, z, id]) => window.voxel.getBlock(x!, y!, z!) !== id).length, placed);
    if (unseenAtB === 0) break;
    await sleep(250);
  }
  const tentativeLeft = await pa.evaluate(() => window.voxel.tentative().length);
  const refused = all.filter((e) => e.err);
  for (const e of refused.slice(0, 3)) problems.push(`edit at ${e.x},${e.y},${e.z} (${e.sub - t0} ms after the change): ${e.err}`);
  if (tentativeLeft) problems.push(`${tentativeLeft} edits still tentative at A`);
  if (unseenAtB) problems.push(`${unseenAtB} of A's edits not shown at B`);
  const meanwhile = all.filter((e) => e.sub >= t0 && (recoveryMs === null || e.sub < t0 + recoveryMs)).length;
  return { recoveryMs, newLinkMs, closedMs, trace, linksBefore, linksLeast, submitted: all.length, meanwhile, refused: refused.length, tentativeLeft, unseenAtB, placed, problems };
}
