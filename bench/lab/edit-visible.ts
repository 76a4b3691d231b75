// The lab's edit-to-visible step: once two homes linked, A places blocks one after another
// and B's page notes the moment each shows there. Both pages run on this one machine, so
// their Date.now() is one clock: B's moment minus A's submit is the figure
// (`lab_edit_visible_ms_*`), per case, over NATs and TURN, with and without loss on a home's
// link. An edit B never shows within SHOW_WAIT_MS, or that A's setBlock refused, is counted,
// never left out.
import type { Tab } from '../../e2e/browser-kit';

/** What the step needs of a tab, of either engine (e2e/browser-kit.ts: chromiumTab wraps a Playwright page). */
export type EditSide = Pick<Tab, 'evaluate' | 'waitFor'>;

export interface EditVisibleOutcome {
  /** Per shown edit: B's first sight minus A's submit, ms. */
  samples: number[];
  /** Edits A submitted that B did not show within SHOW_WAIT_MS (after the last one). */
  unseen: number;
  /** Edits A's setBlock refused, failed or kept tentative (not confirmed). */
  refused: number;
}

const EDITS = 20;
const EDIT_EVERY_MS = 250;
const SHOW_WAIT_MS = 10_000;
/** B looks this often (a setInterval in its page, no round trip to it inside a sample). */
const LOOK_EVERY_MS = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// B's watcher, a plain script (tsx would wrap a function's inner names in a helper the page lacks).
const WATCH = `(spots, every) => {
  // A spot that shows its block already would be timed at once: it is marked -1, not timed.
  const at = spots.map(([x, y, z, id]) => (window.voxel.getBlock(x, y, z) === id ? -1 : null));
  setInterval(() => spots.forEach(([x, y, z, id], i) => {
    if (at[i] === null && window.voxel.getBlock(x, y, z) === id) at[i] = Date.now();
  }), every);
  window.labSeen = { seen: () => at.slice() };
}`;

interface WatchWindow {
  labSeen?: { seen(): (number | null)[] };
}

/** A and B stand in the middle of A's region; A places EDITS blocks around itself; B's moments are read. */
export async function measureEditVisible(pa: EditSide, pb: EditSide, round = 0): Promise<EditVisibleOutcome> {
  await Promise.all([pa, pb].map((p) => p.waitFor(() => window.voxel?.hosting !== undefined, null, 60_000, 50)));
  const spawn = await pa.evaluate(() => window.voxel.player(), null);
  const [rx, rz] = [Math.floor(spawn.x / 64), Math.floor(spawn.z / 64)];
  const cx = rx * 64 + 32, cz = rz * 64 + 32;
  await pa.evaluate(([x, z]) => window.voxel.teleport(x!, 160, z!), [cx + 0.5, cz + 0.5]);
  // The ground under the middle, once its column is loaded (highest block but air and water, + 1).
  await pa.waitFor(([x, z]) => window.voxel.getBlock(x!, 100, z!) >= 0, [cx, cz], 30_000, 50);
  const feet = await pa.evaluate(([x, z]) => {
    for (let y = 250; y > 0; y--) { const b = window.voxel.getBlock(x!, y, z!); if (b !== 0 && b !== 5) return y + 1; }
    return 100;
  }, [cx, cz]);
  await Promise.all([pa, pb].map((p) => p.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [cx + 0.5, feet, cz + 0.5])));
  const region = `${rx},${rz}`;
  await Promise.all([pa, pb].map((p) => p.waitFor((r) => window.voxel.hosting!.region(r).client?.ready === true, region, 30_000, 50)));
  // The primary's belief of where the teleported player stands catches up (an edit sooner is refused as out of reach).
  await sleep(2000);
  // A ring of blocks at head height, 2-3 away: within reach of A's eye, inside no player.
  const ring: number[][] = [];
  for (let dx = -3; dx <= 3; dx++) for (let dz = -3; dz <= 3; dz++) if (Math.max(Math.abs(dx), Math.abs(dz)) >= 2) ring.push([cx + dx, feet + 1, cz + dz]);
  // `round` turns the blocks: a later round on the same spots places a block each does not show.
  const spots = ring.slice(0, EDITS).map(([x, y, z], i) => [x!, y!, z!, [11, 12, 10][(i + round) % 3]!]);
  await pb.evaluate((src) => void (0, eval)(src), `(${WATCH})(${JSON.stringify(spots)}, ${LOOK_EVERY_MS})`);
  const shownBefore = (await pb.evaluate(() => (window as unknown as WatchWindow).labSeen!.seen(), null)).filter((t) => t === -1).length;
  if (shownBefore) throw new Error(`${shownBefore} of the spots show their block before A placed it`);
  const submitted: number[] = [];
  let refused = 0;
  const settled: Promise<void>[] = [];
  for (const [x, y, z, id] of spots) {
    submitted.push(Date.now());
    // Refused, failed, or resolved but kept tentative (no certified primary took it): counted.
    const done = pa.evaluate(([x, y, z, id]) => window.voxel.setBlock(x!, y!, z!, id!).then((r) => (r as { confirmed?: boolean } | undefined)?.confirmed !== false, () => false), [x, y, z, id]);
    settled.push(done.then((ok) => void (ok || refused++)));
    await sleep(EDIT_EVERY_MS);
  }
  await Promise.all(settled);
  const until = Date.now() + SHOW_WAIT_MS;
  let seen: (number | null)[] = [];
  while (Date.now() < until) {
    seen = await pb.evaluate(() => (window as unknown as WatchWindow).labSeen!.seen(), null);
    if (seen.every((t) => t != null)) break;
    await sleep(100);
  }
  const samples = seen.flatMap((t, i) => (t != null ? [t - submitted[i]!] : []));
  return { samples, unseen: spots.length - samples.length, refused };
}
