// Small moves of a player page that several browser tests make: find the ground, stand on
// it, and say a chat line once the region stood in has a primary to carry it.
import type { Page } from 'playwright-core';

/** Highest non-air, non-water block + 1 at (x, z) as `p` sees it (100 when none is loaded). */
export const airAbove = (p: Page, x: number, z: number): Promise<number> => p.evaluate(([x, z]) => {
  for (let y = 200; y > 0; y--) { const id = window.voxel.getBlock(x!, y, z!); if (id !== 0 && id !== 5) return y + 1; }
  return 100;
}, [x, z]);

/** Says `text` from `p`, asking again until its region has a primary it is attached to (20 s at most). */
export async function sayOnceHeard(p: Page, text: string): Promise<void> {
  await p.waitForFunction(async (l) => {
    try {
      await window.voxel.chat!.say(l);
      return true;
    } catch {
      return false;
    }
  }, text, { timeout: 20_000, polling: 250 });
}
