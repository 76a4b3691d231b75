// A fresh browser context as a returning player's browser: before the first page of the
// game, the context's IndexedDB gets the identities a profile keeps (src/store/identity-store.ts)
// from e2e/fixtures/returning-players.json, minted once ahead. A new profile spends ~2 CPU-s
// of proof of work (its node id, its player pass) before it can join, and the browser tests
// open many of them (fewer than 160 a run): measured on 4 files, ~15% of their time. What a new profile does is
// still tested where it matters (e2e/start-screen opens fresh ones: `OpenOptions.fresh`).
// A profile that already holds a player (a persistent one reopened) is left as it is. Each
// context of a run gets profiles no other context got (the files share one worker process,
// so this module's counter spans the run); when they run out, contexts mint as new ones do.
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { identityFromJson, type IdentityJson } from '../src/core/identity';
import { idToHex } from '../src/core/node-id';
import { ID_WORK_BITS } from '../src/core/id-work';
import { PLAYER_PASS_BITS } from '../src/region/player-pass';
import { IDENTITY_LAYOUT, playerWorkRecord } from '../src/store/identity-store';
import { NODE_KEY_FLAG } from '../src/app/early-mint';

interface Fixture { nodes: IdentityJson[]; player: IdentityJson; nonce: number }
interface FixtureFile { idWorkBits: number; passBits: number; profiles: Fixture[] }

const file = JSON.parse(readFileSync(new URL('./fixtures/returning-players.json', import.meta.url), 'utf8')) as FixtureFile;
// Node ids showing more work than asked pass as well (the bits were lowered since they were minted).
if (file.idWorkBits < ID_WORK_BITS || file.passBits !== PLAYER_PASS_BITS) {
  throw new Error(`e2e/fixtures/returning-players.json shows ${file.idWorkBits}/${file.passBits} bits of work, the game asks ${ID_WORK_BITS}/${PLAYER_PASS_BITS}: rerun e2e/fixtures/mint-returning-players.ts`);
}

let next = 0;
/** Each context's seeding, so tabs opened in it at once all wait for it. */
const seeding = new WeakMap<BrowserContext, Promise<string[] | undefined>>();
let ranOut = false;

/**
 * Seeds `context` (once; tabs opened at once wait for the same seeding) on `origin` with the
 * next returning player's identities. Resolves to the node ids (hex) its first tabs claim when
 * it wrote them; undefined when the context already held a player or no fixture is left.
 * `tab`: a blank tab of the context about to open the game, which writes them (left on a blank
 * page of the origin) instead of a tab opened and closed for it: a renderer process fewer a
 * context, 0.85 CPU-s of the browser and 0.35 of Playwright's client less a context (6
 * contexts each way, twice, in one headless shell at load 40).
 */
export function seedReturningPlayer(context: BrowserContext, origin: string, tab?: Page): Promise<string[] | undefined> {
  let done = seeding.get(context);
  if (!done) {
    done = seed(context, origin, tab);
    seeding.set(context, done);
  }
  return done;
}

/** What one returning player's profile holds: the identity store's records (writeIdentities writes them). */
export interface IdentityRecords {
  layout: typeof IDENTITY_LAYOUT;
  /** The localStorage item the game sets once it stored a node key (src/app/early-mint.ts). */
  nodeKeyFlag: string;
  nodes: IdentityJson[];
  player: IdentityJson;
  work: ReturnType<typeof playerWorkRecord>;
}

/** The next fixture profile's records, none given out before (undefined once they ran out). */
export async function nextReturningPlayer(): Promise<IdentityRecords | undefined> {
  const fixture = file.profiles[next];
  if (!fixture) {
    if (!ranOut) console.warn(`returning-player: all ${file.profiles.length} fixture profiles used; later contexts mint their own`);
    ranOut = true;
    return undefined;
  }
  next++;
  const { player, nodes } = fixture;
  return { layout: IDENTITY_LAYOUT, nodeKeyFlag: NODE_KEY_FLAG, nodes, player, work: playerWorkRecord((await identityFromJson(player, 'player')).publicKey, fixture.nonce) };
}

/** The node ids (hex) of `records`' identities: what the profile's first tabs run as. */
export function seededIds(records: IdentityRecords): Promise<string[]> {
  return Promise.all(records.nodes.map(async (n) => idToHex((await identityFromJson(n, 'node')).id)));
}

/**
 * In a page of the game's origin (either engine): writes `records` into the identity store
 * unless it already holds a player; true when it wrote them.
 */
export async function writeIdentities({ layout, nodeKeyFlag, nodes, player, work }: IdentityRecords): Promise<boolean> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(layout.db, layout.version);
    req.onupgradeneeded = () => {
      for (const s of layout.stores) if (!req.result.objectStoreNames.contains(s.name)) req.result.createObjectStore(s.name, 'keyPath' in s ? { keyPath: s.keyPath } : undefined);
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const tx = db.transaction([layout.nodeStore, layout.playerStore], 'readwrite');
  const players = tx.objectStore(layout.playerStore);
  const had = await new Promise((r) => { const q = players.get(layout.playerKey); q.onsuccess = () => r(q.result); });
  if (!had) {
    players.put(player, layout.playerKey);
    players.put(work, layout.workKey);
    nodes.forEach((n, slot) => tx.objectStore(layout.nodeStore).put(n, slot));
  }
  await new Promise<void>((resolve, reject) => { tx.oncomplete = () => resolve(); tx.onerror = () => reject(tx.error); });
  db.close();
  // What the game sets once it stored a node key: a returning player's tabs wait for the store before drawing one.
  if (!had) localStorage.setItem(nodeKeyFlag, '1');
  return !had;
}

async function seed(context: BrowserContext, origin: string, tab?: Page): Promise<string[] | undefined> {
  const records = await nextReturningPlayer();
  if (!records) return undefined;
  const blank = `${origin}/__returning-player`;
  await context.route(blank, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>seed</title>' }));
  const page = tab ?? await context.newPage();
  try {
    await page.goto(blank);
    return (await page.evaluate(writeIdentities, records)) ? await seededIds(records) : undefined;
  } finally {
    if (!tab) await page.close();
    await context.unroute(blank);
  }
}

/**
 * Fails loudly when a seeded context's tab runs under a node id it minted itself instead of
 * one seeded (the identity store's layout changed under this file): the tests would pass,
 * only slower, and nobody would know. Checked while the context has no more game tabs than
 * seeded ids (a third tab of a profile mints a slot of its own, as in any browser).
 */
export async function expectSeededId(page: Page, ids: string[], origin: string): Promise<void> {
  if (page.context().pages().filter((p) => p.url().startsWith(origin)).length > ids.length) return;
  const id = await page.evaluate(() => window.voxel?.net?.id());
  if (id !== undefined && !ids.includes(id)) throw new Error(`returning-player: the tab runs as ${id}, not one of the seeded ${ids.join(', ')}: did src/store/identity-store.ts change its layout?`);
}
