// Short-lived TURN credentials for the relay to hand out, so no long-lived TURN password is
// shipped in the app's bundle. coturn checks them with nothing but a secret it shares with
// the relay (`use-auth-secret` + `static-auth-secret`, the "TURN REST API" scheme):
//   username   = "<expiry, unix seconds>:<name>"
//   credential = base64(HMAC-SHA1(secret, username))
// coturn refuses a username whose expiry has passed (401), so a leaked credential is good
// until then only. The name is the registering node's id: coturn's logs and per-user quotas
// then see one user per node. Node only (node:crypto, node:fs).
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkIceServers, type IceServer } from '../src/net/ice-servers';
import { MAX_ICE_TTL, type IceGrant } from '../src/net/relay-protocol';

export const TURN_DEFAULTS = {
  /**
   * Seconds a credential is good for: a day, as the TURN REST draft suggests. Long, because a
   * browser refreshes a relayed link's allocation with the credential it was made with, and
   * coturn may refuse that once it has expired (not measured here); new links use the
   * renewed ones (the tab asks the relay again at half the lifetime).
   */
  ttlSeconds: 86_400,
};

export interface TurnConfig {
  /** turn:/turns: URLs of the coturn(s) sharing the secret; stun: URLs are handed out as they are. */
  urls: string[];
  secret: string;
  ttlSeconds: number;
}

/** coturn's REST credential for `name`, good until now + ttl. */
export function mintTurnCredential(secret: string, name: string, ttlSeconds: number, nowMs: number): { username: string; credential: string } {
  const username = `${Math.floor(nowMs / 1000) + ttlSeconds}:${name}`;
  return { username, credential: createHmac('sha1', secret).update(username).digest('base64') };
}

/** The grant for one registered id: STUN URLs as given, the TURN ones with a fresh credential. */
export function makeIceGrant(turn: TurnConfig, name: string, nowMs: number): IceGrant {
  const stun = turn.urls.filter((u) => !u.startsWith('turn'));
  const turnUrls = turn.urls.filter((u) => u.startsWith('turn'));
  const iceServers: IceServer[] = stun.map((u) => ({ urls: u }));
  if (turnUrls.length) iceServers.push({ urls: turnUrls, ...mintTurnCredential(turn.secret, name, turn.ttlSeconds, nowMs) });
  return { iceServers, ttl: turn.ttlSeconds };
}

export interface TurnOptionsInput {
  /** Comma-separated URLs (--turn-url, repeatable; env TURN_URLS). */
  urls: string[];
  /** File holding the shared secret (--turn-secret-file; env TURN_SECRET_FILE). */
  secretFile?: string | undefined;
  /** The secret itself (env TURN_SECRET; a file is better: the environment shows in ps e). */
  secret?: string | undefined;
  /** --turn-ttl seconds (env TURN_TTL). */
  ttl?: string | undefined;
}

/**
 * The relay's TURN settings from its flags and environment; undefined when no URL is given.
 * Throws with a clear message on anything wrong (no secret, a bad URL, a bad ttl), so a
 * relay never starts handing out credentials coturn will refuse.
 */
export function turnConfigFrom(o: TurnOptionsInput): TurnConfig | undefined {
  const urls = o.urls.flatMap((u) => u.split(',')).map((u) => u.trim()).filter(Boolean);
  if (urls.length === 0) {
    if (o.secretFile || o.secret) throw new Error('--turn-secret-file / TURN_SECRET given without --turn-url');
    return undefined;
  }
  // The tab's own bounds (ice-servers.ts), checked here on a sample grant: a relay that
  // starts hands out only what tabs take.
  checkIceServers(makeIceGrant({ urls, secret: 'x', ttlSeconds: 60 }, 'check', 0).iceServers, '--turn-url');
  let secret = o.secret;
  if (o.secretFile) {
    try {
      secret = readFileSync(o.secretFile, 'utf8').trim();
    } catch (e) {
      throw new Error(`--turn-secret-file ${o.secretFile}: ${(e as Error).message}`, { cause: e });
    }
  }
  const needsSecret = urls.some((u) => u.startsWith('turn'));
  if (needsSecret && !secret) throw new Error('--turn-url needs the secret shared with coturn (static-auth-secret): --turn-secret-file PATH or env TURN_SECRET');
  const ttlSeconds = o.ttl === undefined ? TURN_DEFAULTS.ttlSeconds : Number(o.ttl);
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 60 || ttlSeconds > MAX_ICE_TTL) throw new Error(`--turn-ttl is whole seconds from 60 to ${MAX_ICE_TTL}, not ${o.ttl}`);
  return { urls, secret: secret ?? '', ttlSeconds };
}
