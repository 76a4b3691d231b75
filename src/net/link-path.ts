// How a live link is carried, read from its RTCPeerConnection's stats: the selected ICE
// candidate pair and the types of its two candidates. A host can then tell whether its
// links go direct (host candidates: same machine or LAN), through a NAT (srflx: a hole
// punched with STUN's help; prflx: an address learned from the checks themselves) or
// through a TURN relay (relay, which costs the TURN server's bandwidth). DOM-free: it reads
// the stats as plain objects (a browser's RTCStatsReport values, simple-peer's getStats).

export type CandidateType = 'host' | 'srflx' | 'prflx' | 'relay';
const TYPES: readonly CandidateType[] = ['host', 'srflx', 'prflx', 'relay'];

/** The selected pair of one link. */
export interface LinkPath {
  local: CandidateType;
  remote: CandidateType;
  /** 'udp' or 'tcp' between the pair's candidates. */
  protocol: string;
  /** How this end reaches its TURN server ('udp', 'tcp', 'tls'), when the local candidate is a relay. */
  relayProtocol?: string;
}

/**
 * One word for the link: 'relay' when either end is a TURN relay (the traffic crosses the
 * TURN server), else 'srflx' when either end is behind a NAT mapping learned by STUN, else
 * 'prflx' when an end was learned from the checks (its address seen by the other side),
 * else 'host' (both ends' own addresses).
 */
export function pathKind(p: Pick<LinkPath, 'local' | 'remote'>): CandidateType {
  const rank = (t: CandidateType) => ['host', 'prflx', 'srflx', 'relay'].indexOf(t);
  return rank(p.local) >= rank(p.remote) ? p.local : p.remote;
}

type Stat = { id?: unknown; type?: unknown; [k: string]: unknown };

const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
const candidateType = (x: unknown): CandidateType | undefined => (TYPES as readonly unknown[]).includes(x) ? (x as CandidateType) : undefined;

/**
 * The selected candidate pair in a stats report, or undefined while there is none (still
 * checking, or closed). The standard way is the transport's selectedCandidatePairId
 * (Chromium, Safari); Firefox marks the pair `selected` instead; a last resort is a
 * nominated pair whose checks succeeded.
 */
export function selectedPath(report: Iterable<Stat>): LinkPath | undefined {
  const byId = new Map<string, Stat>();
  for (const s of report) {
    const id = str(s.id);
    if (id !== undefined) byId.set(id, s);
  }
  const all = [...byId.values()];
  const pairs = all.filter((s) => s.type === 'candidate-pair');
  const selectedId = all.map((s) => (s.type === 'transport' ? str(s.selectedCandidatePairId) : undefined)).find((id) => id !== undefined);
  const pair = (selectedId !== undefined ? byId.get(selectedId) : undefined)
    ?? pairs.find((p) => p.selected === true)
    ?? pairs.find((p) => p.nominated === true && p.state === 'succeeded');
  if (!pair) return undefined;
  const local = byId.get(str(pair.localCandidateId) ?? '');
  const remote = byId.get(str(pair.remoteCandidateId) ?? '');
  const lt = candidateType(local?.candidateType);
  const rt = candidateType(remote?.candidateType);
  if (!lt || !rt) return undefined;
  const relayProtocol = lt === 'relay' ? str(local?.relayProtocol) : undefined;
  return { local: lt, remote: rt, protocol: str(local?.protocol) ?? 'udp', ...(relayProtocol ? { relayProtocol } : {}) };
}

/** Links counted by how they are carried; `unknown`: no stats (yet), or a runtime without them. */
export type PathCounts = Record<CandidateType | 'unknown', number>;

/** Counts links by kind (pathKind of each, or undefined where it is not known). */
export function countPaths(kinds: Iterable<CandidateType | undefined>): PathCounts {
  const n: PathCounts = { host: 0, srflx: 0, prflx: 0, relay: 0, unknown: 0 };
  for (const k of kinds) n[k ?? 'unknown']++;
  return n;
}
