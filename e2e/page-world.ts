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
