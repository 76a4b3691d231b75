// Waiting for a condition the page can only answer asynchronously (IndexedDB, the relay, a
// host's ledger). Playwright's waitForFunction does not await its predicate: an async
// predicate's Promise is truthy, so it returns at the first poll, whatever the Promise later
// resolves to, and the test reads the state before the awaited thing happened.
import type { Page } from 'playwright-core';

/** Polls `fn` in the page (awaited) every `polling` ms until it resolves truthy; throws after `timeout`. */
export async function waitForAsync<A, R>(page: Page, fn: (arg: A) => Promise<R>, arg: A, o: { timeout: number; polling: number; what: string }): Promise<R> {
  const until = Date.now() + o.timeout;
  for (;;) {
    const r = (await page.evaluate(fn as (arg: unknown) => Promise<unknown>, arg)) as R;
    if (r) return r;
    if (Date.now() >= until) throw new Error(`waited ${o.timeout} ms for ${o.what}`);
    await page.waitForTimeout(o.polling);
  }
}
