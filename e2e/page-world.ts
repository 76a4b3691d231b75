// Small moves of a player page that several browser tests (and the lab) make: find the ground, stand on
// it, and say a chat line once the region stood in has a primary to carry it.
import type { Page } from 'playwright-core';

/** Highest non-air, non-water block + 1 at (x, z) as `p` sees it (100 when none is loaded). */
export const airAbove = (p: Page, x: number, z: number): Promise<number> => p.evaluate(([x, z]) => {
  for (let y = 200; y > 0; y--) { const id = window.voxel.getBlock(x!, y, z!); if (id !== 0 && id !== 5) return y + 1; }
  return 100;
}, [x, z]);

/** Feet height at (x, z) as tab `p` sees it (the column loaded first). */
export async function groundAt(p: Page, x: number, z: number): Promise<number> {
  await p.waitForFunction(([x, z]) => window.voxel.getBlock(x!, 100, z!) >= 0, [x, z], { timeout: 30_000, polling: 50 });
  return p.evaluate(([x, z]) => {
    for (let y = 250; y > 0; y--) { const b = window.voxel.getBlock(x!, y, z!); if (b !== 0 && b !== 5) return y + 1; }
    return 100;
  }, [x, z]);
}

/**
 * Says `text` from `p`, asking again every 250 ms until its region has a primary it is
 * attached to (say() throws until then), `timeoutMs` at most. Polled from here, not with
 * waitForFunction: an async predicate is a Promise, truthy at once, so the first refusal
 * ended the wait with nothing said.
 */
export async function sayOnceHeard(p: Page, text: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const refused = await p.evaluate(async (l) => {
      try {
        await window.voxel.chat!.say(l);
        return undefined;
      } catch (e) {
        return (e as Error).message;
      }
    }, text);
    if (refused === undefined) return;
    if (Date.now() > until) throw new Error(`"${text}" not said within ${timeoutMs} ms: ${refused}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Run in a page (`page.evaluate(placeUntilConfirmed, [x, y, z, id])`, either engine): places
 * a block, asking again until one attempt is confirmed, 30 s at most; resolves to what each
 * attempt did ("ok after N ms" last when one was). An attempt may time out or be refused
 * while a region's backups take over after its primary died. Resolved is not confirmed: an
 * edit no certified primary took stays tentative and is retried by the tab itself; it counts
 * once it leaves the tentative list. (Not waitForFunction with an async predicate: its
 * Promise counts as truthy at once, so it would return the first attempt's outcome.)
 */
export async function placeUntilConfirmed([x, y, z, id]: number[]): Promise<string[]> {
  const out: string[] = [];
  const t0 = Date.now();
  while (Date.now() - t0 < 30_000) {
    try {
      const r = await window.voxel.setBlock(x!, y!, z!, id!);
      if (r && !r.confirmed) {
        out.push(`tentative after ${Date.now() - t0} ms`);
        // (No named helper for this test: a bundler's name-keeping wrapper would not exist in the page.)
        while (Date.now() - t0 < 30_000 && window.voxel.tentative().some((e) => e.x === x && e.y === y && e.z === z)) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        if (window.voxel.tentative().some((e) => e.x === x && e.y === y && e.z === z)) return out;
      }
      out.push(`ok after ${Date.now() - t0} ms`);
      return out;
    } catch (err) {
      out.push(`${(err as Error).name} after ${Date.now() - t0} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return out;
}
