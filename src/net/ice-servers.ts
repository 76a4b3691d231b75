// ICE servers (STUN, TURN) from outside the code: a deploy's build-time list
// (VITE_ICE_SERVERS), the relay's grant of short-lived TURN credentials (relay-protocol.ts)
// and the headless peer's flags. Every list is checked here, bounded, before an
// RTCPeerConnection sees it: a browser throws on a TURN URL without a username, and a
// relay of another version (or a hostile one) must not make a tab try hundreds of servers.
// Pure (valibot only), so the relay, vite.config.ts and Node share it.
import * as v from 'valibot';

/** Servers in one list: browsers slow down gathering past a few (Firefox warns at 5). */
export const MAX_ICE_SERVERS = 8;
/** URLs of one server entry (e.g. turn udp, turn tcp, turns). */
export const MAX_ICE_URLS = 4;
const MAX_URL = 256;
const MAX_SECRET = 256;

const IceUrl = v.pipe(
  v.string(),
  v.maxLength(MAX_URL, `an ICE server URL is at most ${MAX_URL} characters`),
  v.regex(/^(stuns?|turns?):[^\s/?#][^\s]*$/, 'an ICE server URL is stun:, stuns:, turn: or turns: followed by a host'),
);
const Secret = (what: string) => v.pipe(v.string(), v.minLength(1, `${what} is empty`), v.maxLength(MAX_SECRET, `${what} is at most ${MAX_SECRET} characters`));

const isTurn = (u: string) => u.startsWith('turn');

/** One RTCIceServer. TURN needs username and credential (the browser throws otherwise); STUN takes none. */
export const IceServerSchema = v.pipe(
  v.strictObject({
    urls: v.union([IceUrl, v.pipe(v.array(IceUrl), v.minLength(1, 'urls is empty'), v.maxLength(MAX_ICE_URLS, `at most ${MAX_ICE_URLS} urls per server`))], 'urls is a URL or a list of URLs'),
    username: v.optional(Secret('username')),
    credential: v.optional(Secret('credential')),
  }),
  v.check((s) => !(Array.isArray(s.urls) ? s.urls : [s.urls]).some(isTurn) || (s.username !== undefined && s.credential !== undefined), 'a turn: or turns: server needs username and credential'),
);

export const IceServerListSchema = v.pipe(v.array(IceServerSchema), v.maxLength(MAX_ICE_SERVERS, `at most ${MAX_ICE_SERVERS} ICE servers`));

export type IceServer = v.InferOutput<typeof IceServerSchema>;

/** Whether a tab may use every candidate, or only TURN relays (hides the player's address from peers). */
export type IcePolicy = 'all' | 'relay';

/** The URLs of a server entry, as a list. */
export const iceUrls = (s: Pick<IceServer, 'urls'>): string[] => (Array.isArray(s.urls) ? s.urls : [s.urls]);

/** `where` and the first fault, e.g. "VITE_ICE_SERVERS[1].urls: ...". */
function describeIssue(where: string, issues: readonly v.BaseIssue<unknown>[]): string {
  const i = issues[0];
  const path = i?.path?.map((p) => (typeof p.key === 'number' ? `[${p.key}]` : `.${String(p.key)}`)).join('') ?? '';
  return `${where}${path}: ${i?.message ?? 'invalid'}`;
}

/** Checks a list of servers; throws an Error naming `where` and the first fault. */
export function checkIceServers(value: unknown, where: string): IceServer[] {
  const r = v.safeParse(IceServerListSchema, value);
  if (!r.success) throw new Error(describeIssue(where, r.issues));
  return r.output;
}

/** Reads a JSON array of RTCIceServer (VITE_ICE_SERVERS, --ice '[...]'); undefined or blank: []. */
export function parseIceServersJson(text: string | undefined, where: string): IceServer[] {
  if (text === undefined || text.trim() === '') return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${where} is not JSON (${(e as Error).message}); expected e.g. [{"urls":"stun:stun.example.org:3478"}]`, { cause: e });
  }
  return checkIceServers(json, where);
}

/** VITE_ICE_POLICY / ?ice= / --ice-policy: 'relay' or 'all' (undefined or blank: 'all'). */
export function parseIcePolicy(text: string | undefined, where: string): IcePolicy {
  if (text === undefined || text.trim() === '' || text === 'all') return 'all';
  if (text === 'relay') return 'relay';
  throw new Error(`${where} is 'relay' or 'all', not ${JSON.stringify(text.slice(0, 40))}`);
}

/**
 * Server entries from plain URLs (the headless peer's `--ice a,b`): `user` and `credential`
 * go to the turn:/turns: ones (one entry with all of them), STUN URLs get none.
 */
export function iceServersFromUrls(urls: string[], user?: string, credential?: string): IceServer[] {
  const stun = urls.filter((u) => !isTurn(u));
  const turn = urls.filter(isTurn);
  const list: unknown[] = stun.map((u) => ({ urls: u }));
  for (let i = 0; i < turn.length; i += MAX_ICE_URLS) {
    list.push({ urls: turn.slice(i, i + MAX_ICE_URLS), ...(user !== undefined ? { username: user } : {}), ...(credential !== undefined ? { credential } : {}) });
  }
  return checkIceServers(list, '--ice');
}

/**
 * The servers a peer dials with: its own (build time, flags) and those a doorway granted.
 * A granted entry replaces an own entry naming one of its URLs (the grant's credentials are
 * fresh, a build's may be stale); the rest keep their order, own ones first. Cut to
 * MAX_ICE_SERVERS, granted ones kept first when it has to cut (they carry the TURN relay).
 */
export function mergeIceServers(own: readonly IceServer[], granted: readonly IceServer[]): IceServer[] {
  const grantedUrls = new Set(granted.flatMap(iceUrls));
  const kept = own.filter((s) => !iceUrls(s).some((u) => grantedUrls.has(u)));
  const room = Math.max(0, MAX_ICE_SERVERS - granted.length);
  return [...kept.slice(0, room), ...granted.slice(0, MAX_ICE_SERVERS)];
}
