// Keeping a page busy without spending CPU: the page asks a path synchronously (its main
// thread waits for the answer, as on a starved machine or behind a slow audio device) and
// the test's browser context answers it late. Used for how long a click counts as the user's.
import type { BrowserContext } from 'playwright-core';

/**
 * How long Chromium counts a click as the user's (its transient user activation): a pointer
 * lock asked for later than this after the click is refused ("A user gesture is required").
 */
export const USER_ACTIVATION_MS = 5000;

export class PageStall {
  /** Requests held back so far (with a positive wait). */
  held = 0;
  private nextMs = 0;

  private constructor() {}

  /** Answers `context`'s requests to a path ending in `path`: the next one after next(ms), the rest at once. */
  static async on(context: BrowserContext, path: string): Promise<PageStall> {
    const stall = new PageStall();
    await context.route(`**${path}`, async (r) => {
      const ms = stall.nextMs;
      stall.nextMs = 0;
      if (ms > 0) stall.held++;
      await new Promise((res) => setTimeout(res, ms));
      await r.fulfill({ body: '' });
    });
    return stall;
  }

  /** The next request waits `ms` for its answer. */
  next(ms: number): void {
    this.nextMs = ms;
  }
}
