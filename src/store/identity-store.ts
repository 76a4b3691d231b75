// Identities in IndexedDB. Tabs of one browser profile share IndexedDB, yet each must
// present its own node id (docs/DESIGN.md "Two tabs of one browser share IndexedDB"), so
// node identities live in a small pool of slots and each tab claims one slot for its
// whole life:
// - with the Web Locks API: an exclusive lock `vp-node-identity-<slot>` requested with
//   ifAvailable and held until release() (or the tab dies, which frees it at once);
// - without it (old browsers, Node): a lease record in IndexedDB, renewed every
//   leaseMs/3 and considered free once expired (a crashed tab frees its slot after
//   leaseMs). A read-and-write in one IDB transaction is atomic across tabs.
// When every slot is taken a fresh unpersisted identity is used (ephemeral: true).
// A node identity's id must show work (core/id-work.ts): one is minted (~1 s, in a worker
// in a tab: app/node-id-minter.ts) when a slot is first used, and a stored one whose id
// shows too little (kept before ids cost work) is replaced by a new one at claim time.
// The *player* identity is one shared record: every tab of the profile is the same player.
//
// Keys are stored as JWK (extractable) so the player identity can be exported; the
// node-identity pool could use non-extractable CryptoKeys later, at the cost of export.
import { openDB, type IDBPDatabase } from 'idb';
import { realClock, type Clock, type TimerHandle } from '../core/clock';
import { ID_WORK_BITS, idWorkOk } from '../core/id-work';
import { generateIdentity, generateNodeIdentity, identityFromJson, type Identity, type IdentityJson } from '../core/identity';

export const IDENTITY_DB = 'vp-identity';
const DB_VERSION = 1;
const NODE_STORE = 'node-keys';
const LEASE_STORE = 'node-leases';
const PLAYER_STORE = 'player';
const PLAYER_KEY = 'player';
/** Beside the player key: its proof of work (app/key-work-minter.ts), with the key it is for. */
const WORK_KEY = 'work';

/**
 * The database's layout, for a tool that writes a profile as this module would (the browser
 * tests seed returning players' profiles: e2e/returning-player.ts).
 */
export const IDENTITY_LAYOUT = {
  db: IDENTITY_DB,
  version: DB_VERSION,
  stores: [{ name: NODE_STORE }, { name: LEASE_STORE, keyPath: 'slot' }, { name: PLAYER_STORE }],
  nodeStore: NODE_STORE,
  playerStore: PLAYER_STORE,
  playerKey: PLAYER_KEY,
  workKey: WORK_KEY,
} as const;

/** Documented defaults (docs/STYLE.md: every option has a documented default). */
export const IDENTITY_STORE_DEFAULTS = {
  dbName: IDENTITY_DB,
  /** Slots in the node-identity pool: tabs of one profile that get a persistent node id. */
  poolSize: 8,
  /** Lease length for the no-Web-Locks fallback. */
  leaseMs: 15_000,
};

/** The subset of the Web Locks API this module uses (injectable for tests). */
export interface LockManagerLike {
  request(name: string, options: { ifAvailable: boolean }, cb: (lock: unknown) => Promise<unknown>): Promise<unknown>;
}

export interface IdentityStoreOptions {
  dbName?: string;
  poolSize?: number;
  leaseMs?: number;
  /** Default: globalThis.navigator?.locks; null forces the lease fallback. */
  locks?: LockManagerLike | null;
  clock?: Clock;
  /** Makes a node identity showing `bits` of work (default: generateNodeIdentity on this thread). */
  mint?: (bits: number) => Promise<Identity>;
}

export interface ClaimedIdentity {
  readonly identity: Identity;
  /** Pool slot, or -1 for an ephemeral identity. */
  readonly slot: number;
  readonly ephemeral: boolean;
  readonly lockKind: 'web-locks' | 'lease' | 'none';
  /** Resolves once a key minted for the slot is stored (at once for a stored or ephemeral one); never rejects. */
  readonly stored: Promise<void>;
  /** Frees the slot for another tab. Idempotent. */
  release(): Promise<void>;
}

interface Lease { slot: number; holder: string; until: number }

type Db = IDBPDatabase;

export function openIdentityDb(dbName = IDENTITY_DB): Promise<Db> {
  return openDB(dbName, DB_VERSION, {
    upgrade(db) {
      for (const s of IDENTITY_LAYOUT.stores) if (!db.objectStoreNames.contains(s.name)) db.createObjectStore(s.name, 'keyPath' in s ? { keyPath: s.keyPath } : undefined);
    },
  });
}

function defaultLocks(): LockManagerLike | null {
  const nav = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator;
  return nav?.locks ?? null;
}

type Mint = () => Promise<Identity>;

/** Loads the slot's keypair, minting and storing one the first time (or in place of one peers would refuse). */
/**
 * The slot's keypair and its storing: a minted one is stored behind the claim, not before
 * it (on a loaded machine an IndexedDB write took up to a second of the first join); the
 * slot is this tab's until it releases it, and `release` waits for the write.
 */
async function slotIdentity(db: Db, slot: number, bits: number, mint: Mint): Promise<{ identity: Identity; stored: Promise<void> }> {
  const json = (await db.get(NODE_STORE, slot)) as IdentityJson | undefined;
  if (json) {
    try {
      const identity = await identityFromJson(json, 'node');
      if (idWorkOk(identity.id, bits)) return { identity, stored: Promise.resolve() };
    } catch {
      // A corrupt record must not brick the slot: replace it.
    }
  }
  const identity = await mint();
  // Not stored (the tab died first, or the write failed): the slot's next claim mints again.
  const stored = identity.toJson().then((j) => db.put(NODE_STORE, j, slot)).then(() => undefined, (e: unknown) => console.warn('node key not stored', e));
  return { identity, stored };
}

/** Tries to take the Web Lock for one slot; resolves to a release function or null. */
function tryLock(locks: LockManagerLike, name: string): Promise<(() => void) | null> {
  return new Promise((resolve, reject) => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    locks
      .request(name, { ifAvailable: true }, async (lock) => {
        if (!lock) {
          resolve(null);
          return;
        }
        resolve(release);
        await held;
      })
      .catch(reject);
  });
}

export async function claimNodeIdentity(opts: IdentityStoreOptions = {}): Promise<ClaimedIdentity> {
  const o = { ...IDENTITY_STORE_DEFAULTS, ...opts };
  const locks = opts.locks === undefined ? defaultLocks() : opts.locks;
  const clock = opts.clock ?? realClock;
  // The work a node id must show (core/id-work.ts): a stored id showing less is replaced.
  const mint: Mint = () => (opts.mint ?? ((bits) => generateNodeIdentity({ bits })))(ID_WORK_BITS);
  const db = await openIdentityDb(o.dbName);

  if (locks) {
    for (let slot = 0; slot < o.poolSize; slot++) {
      const unlock = await tryLock(locks, `vp-node-identity-${o.dbName}-${slot}`);
      if (!unlock) continue;
      try {
        const { identity, stored } = await slotIdentity(db, slot, ID_WORK_BITS, mint);
        let done = false;
        return {
          identity, slot, ephemeral: false, lockKind: 'web-locks', stored,
          release: async () => {
            if (done) return;
            done = true;
            await stored;
            unlock();
            db.close();
          },
        };
      } catch (e) {
        unlock();
        db.close();
        throw e;
      }
    }
  } else {
    const holder = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
    const slot = await takeLease(db, o.poolSize, holder, Date.now(), o.leaseMs);
    if (slot >= 0) {
      let timer: TimerHandle | undefined;
      let done = false;
      const renew = () => {
        timer = clock.setTimeout(() => {
          if (done) return;
          void renewLease(db, slot, holder, Date.now() + o.leaseMs).then(renew, () => undefined);
        }, Math.floor(o.leaseMs / 3));
      };
      let stored: Promise<void> = Promise.resolve();
      const release = async () => {
        if (done) return;
        done = true;
        clock.clearTimeout(timer);
        await stored;
        await dropLease(db, slot, holder);
        db.close();
      };
      // Renewed from now: minting the slot's key may outlast a lease on a slow machine.
      renew();
      const claimed = await slotIdentity(db, slot, ID_WORK_BITS, mint).catch(async (e: unknown) => {
        await release();
        throw e;
      });
      stored = claimed.stored;
      return { identity: claimed.identity, slot, ephemeral: false, lockKind: 'lease', stored, release };
    }
  }
  db.close();
  const identity = await mint();
  return { identity, slot: -1, ephemeral: true, lockKind: 'none', stored: Promise.resolve(), release: async () => undefined };
}

async function takeLease(db: Db, poolSize: number, holder: string, now: number, leaseMs: number): Promise<number> {
  const tx = db.transaction(LEASE_STORE, 'readwrite');
  const leases = (await tx.store.getAll()) as Lease[];
  const busy = new Set(leases.filter((l) => l.until > now).map((l) => l.slot));
  let slot = -1;
  for (let s = 0; s < poolSize; s++) if (!busy.has(s)) { slot = s; break; }
  if (slot >= 0) await tx.store.put({ slot, holder, until: now + leaseMs } satisfies Lease);
  await tx.done;
  return slot;
}

async function renewLease(db: Db, slot: number, holder: string, until: number): Promise<void> {
  const tx = db.transaction(LEASE_STORE, 'readwrite');
  const lease = (await tx.store.get(slot)) as Lease | undefined;
  // Only renew our own lease: if it expired and someone else took the slot, theirs wins.
  if (lease?.holder === holder) await tx.store.put({ slot, holder, until } satisfies Lease);
  await tx.done;
}

async function dropLease(db: Db, slot: number, holder: string): Promise<void> {
  const tx = db.transaction(LEASE_STORE, 'readwrite');
  const lease = (await tx.store.get(slot)) as Lease | undefined;
  if (lease?.holder === holder) await tx.store.delete(slot);
  await tx.done;
}

/** Databases whose player key this page created (not read, not imported). */
const madeHere = new Set<string>();

/**
 * This page created the profile's player key: no record of that player can be in the DHT
 * yet, so a newcomer's spawn need not wait for a lookup of one (app/player-saving.ts).
 */
export function playerIdentityMadeHere(dbName = IDENTITY_DB): boolean {
  return madeHere.has(dbName);
}

/** The profile's player identity (shared by its tabs), created on first use. */
export async function loadPlayerIdentity(dbName = IDENTITY_DB): Promise<Identity> {
  const db = await openIdentityDb(dbName);
  try {
    const json = (await db.get(PLAYER_STORE, PLAYER_KEY)) as IdentityJson | undefined;
    if (json) return await identityFromJson(json, 'player');
    const id = await generateIdentity();
    const fresh = await id.toJson(); // before the transaction: awaiting other work would commit it
    // If another tab created one meanwhile, keep theirs.
    const tx = db.transaction(PLAYER_STORE, 'readwrite');
    const existing = (await tx.store.get(PLAYER_KEY)) as IdentityJson | undefined;
    const added = !existing && (await tx.store.add(fresh, PLAYER_KEY).then(() => true, () => false));
    await tx.done.catch(() => undefined);
    if (added) madeHere.add(dbName);
    return existing ? identityFromJson(existing, 'player') : id;
  } finally {
    db.close();
  }
}

/** JSON of the player identity, to carry it to another browser. */
export async function exportPlayerIdentity(dbName = IDENTITY_DB): Promise<IdentityJson> {
  return (await loadPlayerIdentity(dbName)).toJson();
}

/** Replaces the player identity with one exported elsewhere (validated first). */
export async function importPlayerIdentity(json: unknown, dbName = IDENTITY_DB): Promise<Identity> {
  const id = await identityFromJson(json, 'player');
  const db = await openIdentityDb(dbName);
  try {
    await db.put(PLAYER_STORE, await id.toJson(), PLAYER_KEY);
  } finally {
    db.close();
  }
  madeHere.delete(dbName); // a key from elsewhere may have a record
  return id;
}

interface StoredWork { key: string; nonce: number }

const keyText = (k: Uint8Array) => Array.from(k, (b) => b.toString(16).padStart(2, '0')).join('');

/** The record kept beside the player key for its proof of work (also what a seeded profile holds: e2e/returning-player.ts). */
export const playerWorkRecord = (publicKey: Uint8Array, nonce: number): StoredWork => ({ key: keyText(publicKey), nonce });

/** The stored proof-of-work nonce for the player key `publicKey` (undefined: none, or for another key). */
export async function loadPlayerWork(publicKey: Uint8Array, dbName = IDENTITY_DB): Promise<number | undefined> {
  const db = await openIdentityDb(dbName);
  try {
    const w = (await db.get(PLAYER_STORE, WORK_KEY)) as StoredWork | undefined;
    return w && w.key === keyText(publicKey) && Number.isInteger(w.nonce) ? w.nonce : undefined;
  } finally {
    db.close();
  }
}

/** Keeps the nonce found for the player key `publicKey`. */
export async function savePlayerWork(publicKey: Uint8Array, nonce: number, dbName = IDENTITY_DB): Promise<void> {
  const db = await openIdentityDb(dbName);
  try {
    await db.put(PLAYER_STORE, playerWorkRecord(publicKey, nonce), WORK_KEY);
  } finally {
    db.close();
  }
}
