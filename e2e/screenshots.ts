// Where browser tests write their screenshots. A test run must leave the tree as it found
// it, so by default they go to .test-results/screenshots/ (ignored); `npm run screenshots`
// sets SCREENSHOT_DIR=docs/screenshots to refresh the images the docs show.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR || '.test-results/screenshots';

/** The path to write screenshot `name` to (its folder created). */
export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return join(SCREENSHOT_DIR, name);
}
