// The headless peer's ICE servers: from its flags (`--ice` URLs or a JSON list,
// `--ice-user`, `--ice-credential`, `--ice-policy`), and written the way node-datachannel
// takes them. Its RTCPeerConnection polyfill folds a TURN server into one URL,
// `turn:USER:CREDENTIAL@host:port`, which libdatachannel splits at the first ':' and '@'
// and then percent-decodes: a TURN REST username ("<expiry>:<name>") would lose its name
// and coturn refuse it (seen: "Cannot find credentials of user <1796365363>"). So the
// username and credential are percent-encoded for it; a browser takes them as they are.
import { iceServersFromUrls, parseIcePolicy, parseIceServersJson, type IcePolicy, type IceServer } from '../net/ice-servers';

export interface IceFlags {
  /** `--ice`: comma-separated stun:/turn: URLs, or a JSON array of RTCIceServer. */
  ice?: string | undefined;
  /** `--ice-user`, `--ice-credential`: for the turn: URLs of a URL list. */
  user?: string | undefined;
  credential?: string | undefined;
  /** `--ice-policy`: all (default) or relay. */
  policy?: string | undefined;
}

/** The servers and policy the flags ask for; throws with the reason on a bad value. */
export function iceFromFlags(f: IceFlags): { iceServers: IceServer[]; icePolicy: IcePolicy } {
  const icePolicy = parseIcePolicy(f.policy, '--ice-policy');
  const text = f.ice?.trim() ?? '';
  if (text.startsWith('[')) {
    if (f.user !== undefined || f.credential !== undefined) throw new Error('--ice-user / --ice-credential go with --ice URLs; in a JSON --ice write username and credential in it');
    return { iceServers: parseIceServersJson(text, '--ice'), icePolicy };
  }
  const urls = text ? text.split(',').map((u) => u.trim()).filter(Boolean) : [];
  if ((f.user !== undefined || f.credential !== undefined) && !urls.some((u) => u.startsWith('turn'))) {
    throw new Error('--ice-user / --ice-credential need a turn: or turns: URL in --ice');
  }
  return { iceServers: iceServersFromUrls(urls, f.user, f.credential), icePolicy };
}

/** The servers as node-datachannel's polyfill must be given them (see above). */
export function nodeDatachannelIceServers(servers: RTCIceServer[]): RTCIceServer[] {
  return servers.map((s) => ({
    urls: s.urls,
    ...(s.username !== undefined ? { username: encodeURIComponent(s.username) } : {}),
    ...(s.credential !== undefined ? { credential: encodeURIComponent(s.credential) } : {}),
  }));
}
