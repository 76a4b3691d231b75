// The player's own STUN/TURN servers ("Network" on the start screen's connection problem):
// for a player whose network, or their friends', lets no direct connection through and
// whose world's deploy set no TURN relay. Kept in this browser (localStorage, one key for
// every world, like ui/player-settings.ts) and added to the deploy's servers at the next
// start (app/net-session.ts deployDefaults). Never put in an invite. Checked by the same
// rules as every other ICE list (net/ice-servers.ts): a value that does not pass is not kept.
import { iceServersFromUrls, MAX_ICE_SERVERS, MAX_ICE_URLS, type IceServer } from '../net/ice-servers';

/** What the player typed: server URLs, and the TURN username and password ('' for none). */
export interface IceSettings {
  urls: string[];
  username: string;
  credential: string;
}

export const ICE_SETTINGS_KEY = 'voxel-populi/ice-servers';
/** URLs one player may give (each TURN entry takes up to MAX_ICE_URLS of them). */
export const MAX_PLAYER_ICE_URLS = MAX_ICE_URLS * 2;

const EMPTY: IceSettings = { urls: [], username: '', credential: '' };

/** "stun:a, turn:b" or one per line: the URLs, trimmed, blanks dropped. */
export function parseUrlList(text: string): string[] {
  return text.split(/[\s,]+/).map((u) => u.trim()).filter(Boolean);
}

/**
 * The servers for RTCPeerConnection; throws an Error in words when they are not valid
 * (a bad URL, a turn: URL without username and password, too many).
 */
export function iceSettingsServers(s: IceSettings): IceServer[] {
  if (s.urls.length > MAX_PLAYER_ICE_URLS) throw new Error(`at most ${MAX_PLAYER_ICE_URLS} server URLs`);
  const servers = iceServersFromUrls(s.urls, s.username || undefined, s.credential || undefined);
  if (servers.length > MAX_ICE_SERVERS) throw new Error(`at most ${MAX_ICE_SERVERS} servers`);
  return servers;
}

/** The slice of Storage used (localStorage; tests pass a stand-in). */
export type IceSettingsStorage = Pick<Storage, 'getItem' | 'setItem'>;

/** The stored settings; none, unreadable or no longer valid: empty. */
export function loadIceSettings(storage: IceSettingsStorage | undefined): IceSettings {
  try {
    const raw = JSON.parse(storage?.getItem(ICE_SETTINGS_KEY) ?? 'null') as Partial<IceSettings> | null;
    if (!raw || !Array.isArray(raw.urls) || !raw.urls.every((u) => typeof u === 'string')) return EMPTY;
    const s = { urls: raw.urls, username: typeof raw.username === 'string' ? raw.username : '', credential: typeof raw.credential === 'string' ? raw.credential : '' };
    iceSettingsServers(s);
    return s;
  } catch {
    return EMPTY;
  }
}

/** This page's localStorage, or undefined where reading it throws (a sandboxed frame, storage turned off). */
export function pageStorage(): IceSettingsStorage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

/** The stored servers, ready for RTCPeerConnection ([] when none). */
export function storedIceServers(storage: IceSettingsStorage | undefined): IceServer[] {
  return iceSettingsServers(loadIceSettings(storage));
}

/**
 * Checks and stores the settings. Returns undefined when kept, else what is wrong (the
 * value's fault, or storage refused it).
 */
export function saveIceSettings(storage: IceSettingsStorage | undefined, s: IceSettings): string | undefined {
  try {
    iceSettingsServers(s);
  } catch (e) {
    return (e as Error).message.replace(/^--ice(\[\d+\])?(\.\w+)?: /, '');
  }
  try {
    if (!storage) return 'this browser keeps no settings here';
    storage.setItem(ICE_SETTINGS_KEY, JSON.stringify(s));
    return undefined;
  } catch {
    return 'this browser refused to keep it (private mode or full storage)';
  }
}
