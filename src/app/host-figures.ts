// The hosting dashboard's figures, sampled from a hosting peer: one function for host.html
// (ui/host-dashboard.ts draws them) and for the headless Node peer (printed, and served as
// JSON). DOM-free. Each call is one sample of the history (rates and charts).
import type { Clock } from '../core/clock';
import type { HostDashboardData, HostRegionRow } from '../ui/host-dashboard';
import type { HostHistory } from '../ui/host-history';
import type { HostingApi } from './hosting-api';
import type { NetApi } from './net-api';
import { estimateNetworkSize } from '../bootstrap/network-size';
import type { Peer } from '../bootstrap/peer';
import { pathKind, type LinkPath } from '../net/link-path';

/** What the dashboard shows but the page's storage figures and invite link. */
export type HostFigures = Omit<HostDashboardData, 'storage' | 'invite'>;

export interface HostFigureSources {
  world: string;
  peer: Peer;
  hosting: HostingApi;
  net: NetApi;
  history: HostHistory;
  clock: Clock;
  /** When hosting started, on `clock`. */
  started: number;
  /** How each link is carried and its bytes, by node id hex (WebRtcTransport.linkPaths); none: not shown. */
  paths?: ReadonlyMap<string, { path: LinkPath | undefined; bytes: number }>;
}

export function sampleHostFigures(sources: HostFigureSources): HostFigures {
  const { peer, hosting, net, history, clock } = sources;
  const roles = hosting.roles();
  const st = hosting.stats();
  const ns = net.stats();
  const regionEntries: Record<string, number> = {};
  const rows: HostRegionRow[] = [];
  for (const [role, names] of [['primary', roles.primary], ['backup', roles.backup]] as const) {
    for (const name of names) {
      const hosted = hosting.region(name).host;
      regionEntries[name] = hosted?.entries ?? 0;
      rows.push({ name, role, players: hosted?.subscribers ?? 0, present: hosted?.present ?? [], presentCount: hosted?.presentCount ?? 0, entries: hosted?.entries ?? 0, editsPerSec: 0 });
    }
  }
  history.push({ at: clock.now(), links: peer.dht.linkInfo().length, bytesIn: ns.bytesIn ?? 0, bytesOut: ns.bytesOut ?? 0, edits: Object.values(regionEntries).reduce((n, e) => n + e, 0), regionEntries });
  for (const r of rows) r.editsPerSec = history.regionRates[r.name] ?? 0;
  return {
    world: sources.world,
    nodeId: peer.id,
    status: peer.status,
    links: net.links().map((l) => {
      const carried = sources.paths?.get(l.id);
      return { hex: l.id, rttMs: l.rttMs, ...(carried?.path ? { path: pathKind(carried.path) } : {}), ...(carried ? { bytes: carried.bytes } : {}) };
    }),
    networkSize: estimateNetworkSize(peer.identity.id, peer.dht.closestContacts(peer.identity.id, 20)),
    regions: rows,
    tickHz: hosting.tickHz(),
    uptimeMs: clock.now() - sources.started,
    edits: { accepted: st.host_editsAccepted ?? 0, confirmed: st.host_confirms ?? 0, refused: st.host_editsRejected ?? 0, takenOver: st.host_claimsWon ?? 0, handedOn: st.host_stepDowns ?? 0 },
    traffic: { inBytes: ns.bytesIn ?? 0, outBytes: ns.bytesOut ?? 0 },
    history: history.series,
    ...(peer.status === 'alone' && peer.lastError ? { problem: `No other peer reachable yet (${peer.lastError.message}); hosting alone until one joins.` } : {}),
  };
}
