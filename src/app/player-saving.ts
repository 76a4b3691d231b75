// The player's place, view, fly mode and hotbar slot: where the session starts, and how it
// is kept. Starting place: the newer of the IndexedDB copy and the localStorage journal
// (player-journal.ts), else the player's record in the DHT, else open ground. Kept: every
// 2 s when it changed (IndexedDB, then the DHT record, best effort), and journalled when
// the page hides or unloads, where an IndexedDB write may never finish.
import { PlayerSession } from '../play/player-session';
import type { WorldModel } from '../play/world-model';
import type { SavedPlayer, WorldStore } from '../store/world-store';
import type { HeldItem } from '../play/player-record';
import type { NetSession } from './net-session';
import { journalPlayer, newerPlayer, readJournal } from './player-journal';
import { openGroundSpawn } from '../play/spawn-point';
import { playerIdentityMadeHere } from '../store/identity-store';

const SAVE_EVERY_MS = 2000;

/** The newer of the stored and the journalled copy (undefined for a newcomer in this browser). */
export async function loadSavedPlayer(store: WorldStore | null, scope: string, onError: (err: Error) => void): Promise<SavedPlayer | undefined> {
  const stored = await store?.loadPlayer().catch((err: Error) => { onError(err); return undefined; });
  return newerPlayer(stored, readJournal(scope));
}

/**
 * The session of a returning player where they left, else where their DHT record says, else
 * on open ground. A player key made by this page has no record yet: not looked up.
 */
export async function startSession(world: WorldModel, saved: SavedPlayer | undefined, net: NetSession | null, seed: string): Promise<PlayerSession> {
  const fromDht = saved || playerIdentityMadeHere() ? undefined : await net?.fetchPlayer();
  const spawn = saved ?? (fromDht && { ...fromDht, flying: false, selected: 0 }) ?? { ...openGroundSpawn(seed), yaw: 0, pitch: 0, flying: false, selected: 0 };
  const session = new PlayerSession(world, spawn.x, spawn.y, spawn.z);
  session.yaw = spawn.yaw;
  session.pitch = spawn.pitch;
  session.flying = spawn.flying;
  session.select(spawn.selected);
  return session;
}

export interface PlayerSavingArgs {
  /** The world's store scope (store/store-scope.ts): the journal's key. */
  scope: string;
  session: PlayerSession;
  store: WorldStore | null;
  net: NetSession | null;
  onError: (err: Error) => void;
  /** What the player holds (the region hosts' items), signed into the DHT record with the place. */
  held?: () => HeldItem[];
}

/**
 * Saves the player periodically and when the page hides or unloads; returns the save
 * itself (`force` false: the DHT record may skip an unchanged publish).
 */
export function keepPlayerSaved({ scope, session, store, net, onError, held }: PlayerSavingArgs): (force?: boolean) => Promise<void> {
  const snapshot = (): SavedPlayer => ({ x: session.body.x, y: session.body.y, z: session.body.z, yaw: session.yaw, pitch: session.pitch, flying: session.flying, selected: session.selected });
  // A change of what is held is a change to save too (the DHT record lists it).
  const state = () => ({ player: snapshot(), items: held?.() ?? [] });
  let lastSaved = JSON.stringify(state());
  const savePlayer = async (force = true) => {
    const { player, items } = state();
    lastSaved = JSON.stringify({ player, items });
    await store?.savePlayer({ ...player, savedAt: Date.now() });
    await net?.publishPlayer({ ...player, items }, force).catch(() => {}); // best effort: the local copy is the first resort
  };
  const saveIfMoved = () => {
    if (JSON.stringify(state()) !== lastSaved) savePlayer(false).catch(onError);
  };
  const leaving = () => {
    journalPlayer(scope, { ...snapshot(), savedAt: Date.now() }); // sure to land, unlike the IndexedDB write
    saveIfMoved();
  };
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') leaving(); });
  addEventListener('pagehide', leaving);
  setInterval(saveIfMoved, SAVE_EVERY_MS);
  return savePlayer;
}
