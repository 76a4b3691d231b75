// The player's place and view, written synchronously to localStorage whenever the page is
// hidden or unloads. An IndexedDB write started then may never finish (a reload right
// after a mouse move lost the view); a localStorage write always does. On load the newer
// of this copy and the IndexedDB one wins (both carry `savedAt`); a crash leaves only the
// IndexedDB copy of the periodic save, which is then the newer.
import type { SavedPlayer } from '../store/world-store';

/** `scope`: the world's store scope (store/store-scope.ts), its name and seed. */
const key = (scope: string) => `vp-player:${scope}`;

export function journalPlayer(scope: string, p: SavedPlayer): void {
  try {
    localStorage.setItem(key(scope), JSON.stringify(p));
  } catch {
    // Storage full or disabled: the IndexedDB copy is still written.
  }
}

export function readJournal(scope: string): SavedPlayer | undefined {
  try {
    const raw = localStorage.getItem(key(scope));
    if (!raw) return undefined;
    const p = JSON.parse(raw) as Record<string, unknown>;
    const num = (k: string) => typeof p[k] === 'number' && Number.isFinite(p[k]);
    if (!['x', 'y', 'z', 'yaw', 'pitch', 'selected', 'savedAt'].every(num) || typeof p.flying !== 'boolean') return undefined;
    return p as unknown as SavedPlayer;
  } catch {
    return undefined;
  }
}

/** The more recently saved of two copies (one without `savedAt` is the older). */
export function newerPlayer(a: SavedPlayer | undefined, b: SavedPlayer | undefined): SavedPlayer | undefined {
  if (!a || !b) return a ?? b;
  return (a.savedAt ?? 0) >= (b.savedAt ?? 0) ? a : b;
}
