// What the hosting simulation at scale (hosting-scale-sim.ts) reports: its figures, their
// distributions, and the few lines of text the CLI, the test and docs/BENCHMARKS.md show.
import type { EditTailFigures } from './edit-tail';
import type { NearMisses } from './position-rates';
import { dist, type Dist } from './sample-dist';

export { dist, type Dist };

/** An edit shown to an observer later than this counts as late. */
export const LATE_MS = 1000;


export interface HostingScaleFigures {
  /** Hosting peers. */
  peers: number;
  /** Players: one on each hosting peer (up to `peers`), then the play-only peers'. */
  players: number;
  /** Play-only peers (read-only DHT nodes that host nothing): players past `peers`. */
  playOnly: number;
  /** `linksPerPlayer` of the play-only players (those are the hosting players'). */
  playOnlyLinksPerPlayer: Dist;
  /** Live DHT links per play-only peer, sampled once a second (`dhtLinksPerPeer` and the pinned/unpinned split: hosting peers'). */
  playOnlyDhtLinks: Dist;
  /** Upload per play-only peer over the measured window, kB/s (`hostKbps`: the hosting peers'). */
  playOnlyKbps: Dist;
  /**
   * At the run's end: play-only peers in hosting peers' routing tables (summed over tables),
   * regions they are primary or backup of, hosting frames that reached them (dropped), routed
   * messages they forwarded for others, and peers' read-only marks (dht stats) summed.
   */
  readOnly: { inTables: number; hosting: number; playOnlyFrames: number; forwarded: number; marked: number };
  seed: number;
  crowd: boolean;
  latencyMs: number;
  /** Links' base latency within this fraction of latencyMs either side. */
  latencySpread: number;
  measuredSec: number;
  /** Peers that joined at once (runHostingScale `joinBatch`), and the virtual time all the joins took. */
  joinBatch: number;
  joinSec: number;
  /** Chunk columns per region side the run was built with (REGION_SIZE), and the regions around the player subscribed live (1: 3 x 3). */
  regionSize: number;
  liveRadius: number;
  /** Distinct hosts a player's region client is attached to, sampled once a second per player. */
  linksPerPlayer: Dist;
  /** Live DHT links per peer (bucket and pinned), sampled once a second. */
  dhtLinksPerPeer: Dist;
  /** Of those, the links the peer pinned (its primaries as a player, its backups and subscribers as a primary). */
  pinnedLinksPerPeer: Dist;
  /** The rest, per sample: the links the DHT's budgets hold (`maxLinks`, and `maxReadOnlyLinks` for play-only peers'; pinned ones have their own bound). */
  unpinnedLinksPerPeer: Dist;
  /** Of those, the links to hosting peers: what `maxLinks` alone bounds (link-set.ts counts a play-only peer's link apart). */
  hostingLinksPerPeer: Dist;
  /**
   * Share of a player's attached subscriptions (to another peer's region) held over a direct
   * link to its primary, sampled once a second: the rest go routed, hop by hop, both ways.
   */
  playLinksDirect: number;
  /** Pins refused over the whole run, summed over the peers alive at its end (dht/link-pins.ts: `maxPinnedLinks` pinned already). */
  pinsRefused: number;
  /** Upload per hosting peer over the measured window, kB/s (1 kB = 1000 bytes): HostWires' bytes. */
  hostKbps: Dist;
  /** The peer that sent the most, and what: kB/s and frames/s by 'channel TYPE'. */
  busiest: { hex: string; kbps: number; byType: Record<string, { kbps: number; fps: number }> } | undefined;
  /**
   * Submit to another player drawing the block: the first of its pending (PENDING, ordered
   * and not yet committed) and its committed arrival. Samples: observers its commit reached.
   */
  editVisibleMs: Dist;
  /** Submit to another player's state holding it, committed (the DELTA: what `editVisibleMs` was before subscribers were shown PENDINGs). */
  editCommittedMs: Dist;
  /** Where the slow samples' time went (edit-tail.ts). */
  editTail: EditTailFigures;
  edits: { submitted: number; confirmed: number; notConfirmed: number; samples: number; late: number; missing: number; left: number };
  /** New positions per second of a player within the interest radius (at the 2 s window's end). */
  remoteHz: Dist;
  /** New positions per second of each of a player's 32 nearest while it is among them (position-rates.ts `whileNear`). */
  nearest32Hz: Dist;
  /** `remoteHz` over the 32 nearest at the window's end, whatever they were before (position-rates.ts `windowEnd`). */
  nearest32WindowHz: Dist;
  /** The same, over the pairs among the 32 nearest at both ends of the window. */
  nearest32StableHz: Dist;
  /** Time since the last new position of each of a player's 32 nearest, sampled every 100 ms. */
  nearest32AgeMs: Dist;
  /** Submit to its first observer showing it, per edit (diagnosis: the commit's part of editVisibleMs). */
  editFirstVisibleMs: Dist;
  /** Submit to the editor's CONFIRM. */
  editConfirmMs: Dist;
  /** Submit to an observer showing an edit the host refused first and its editor retried (not in editVisibleMs). */
  editRetriedMs: Dist;
  /**
   * Entries of POSITIONS frames that put another player back at a position it had left (the
   * region it walked out of lists it where it was until PLAYER_TTL_MS): the position a player
   * shows jumps back and forth meanwhile.
   */
  staleEntries: number;
  /** Share of (player, other within the radius) pairs seen within the last second. */
  visibility: number;
  visibilityPairs: number;
  /** Pairs not seen, with the distance (blocks) of the first few, for diagnosis. */
  unseen: { viewer: string; other: string; dist: number; at: number }[];
  /** Region attaches per player per minute (moving subscriptions and failovers). */
  attachesPerPlayerMin: number;
  failovers: number;
  /** Summed over the players' clients and the peers' hosts over the whole run (diagnosis). */
  clientStats: { attaches: number; reattaches: number; redirects: number; failovers: number; gaps: number; stale: number; positionsLost: number; confirmed: number; rejected: number; timeouts: number; pendingShown: number; pendingTakenBack: number; pendingRefused: number; relayUnproven: number };
  /**
   * POSITIONS streams lost in the measured window (until the end of the run's settling): hosts
   * asked to start again, and losses by cause (a frame missing REORDER_MS, too many waiting,
   * one unreadable: region/position-streams.ts).
   */
  positionsLost: { asked: number; gap: number; overflow: number; unreadable: number };
  /** Why positions of the 32 nearest missed the viewer (`nearest32Hz`'s misses: position-rates.ts). */
  nearMisses: NearMisses;
  /** Re-attaches in the measured window by region and cause ("0,0 silence": play/region-client-types.ts ReattachCause). */
  reattachCauses: Record<string, number>;
  /** Gaps (re-subscribing with `missed`) by cause over the whole run, summed over the players' clients. */
  gapCauses: Record<string, number>;
  hostStats: { claimsWon: number; handoffs: number; stepDowns: number; reconfigs: number };
  /**
   * What the peers' DHT links dropped over the measured window, summed: frames over a link's
   * rate (link-set.ts), links closed for it, routed frames with no route; a dropped frame is
   * a lost position, delta or beat.
   */
  dhtDrops: { rateLimited: number; floodLinksClosed: number; noRoute: number; ttl: number };
  /**
   * The peers' DHT work from the players' start (warm-up and measured window), summed:
   * lookups run (of them value reads), the lookups' RPCs, and routed frames passed on (any kind).
   */
  dhtLookups: { lookups: number; gets: number; rpcs: number; forwarded: number };
  kills: number;
  wallSec: number;
}


/** The figures as a few lines of text (the CLI and the docs). */
export function describeFigures(f: HostingScaleFigures): string {
  const r = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
  return [
    `${f.crowd ? 'crowd' : 'random walk'}: ${f.players} players on ${f.peers} peers (seed ${f.seed}, ${f.latencyMs} ms one-way latency, links ${r(f.latencyMs * (1 - f.latencySpread), 0)}-${r(f.latencyMs * (1 + f.latencySpread), 0)} ms), ${r(f.measuredSec, 0)} s measured, ${f.kills} peers churned; joined in ${r(f.joinSec, 0)} s, ${f.joinBatch} at once; regions of ${f.regionSize} x ${f.regionSize} chunks, ${2 * f.liveRadius + 1} x ${2 * f.liveRadius + 1} live`,
    `links per player (hosts attached to): p50 ${f.linksPerPlayer.p50} p99 ${f.linksPerPlayer.p99} max ${f.linksPerPlayer.max}; DHT links per peer p50 ${f.dhtLinksPerPeer.p50} p99 ${f.dhtLinksPerPeer.p99} max ${f.dhtLinksPerPeer.max}, of them pinned p50 ${f.pinnedLinksPerPeer.p50} p99 ${f.pinnedLinksPerPeer.p99} max ${f.pinnedLinksPerPeer.max}; subscriptions over a direct link ${r(f.playLinksDirect * 100, 1)}%; pins refused ${f.pinsRefused}`,
    `upload per hosting peer kB/s: p50 ${r(f.hostKbps.p50)} p99 ${r(f.hostKbps.p99)} max ${r(f.hostKbps.max)}`,
    ...(f.playOnly > 0 ? [`play-only peers ${f.playOnly}: hosts attached to p50 ${f.playOnlyLinksPerPlayer.p50} p99 ${f.playOnlyLinksPerPlayer.p99} max ${f.playOnlyLinksPerPlayer.max}; DHT links p50 ${f.playOnlyDhtLinks.p50} p99 ${f.playOnlyDhtLinks.p99} max ${f.playOnlyDhtLinks.max}; upload kB/s p50 ${r(f.playOnlyKbps.p50)} p99 ${r(f.playOnlyKbps.p99)} max ${r(f.playOnlyKbps.max)}; in hosts' tables ${f.readOnly.inTables}, regions hosted ${f.readOnly.hosting}, hosting frames reaching them ${f.readOnly.playOnlyFrames}, routed frames forwarded ${f.readOnly.forwarded}, read-only marks ${f.readOnly.marked}`] : []),
    ...(f.busiest ? [`busiest peer ${f.busiest.hex} ${r(f.busiest.kbps)} kB/s: ${Object.entries(f.busiest.byType).slice(0, 8).map(([t, c]) => `${t} ${r(c.kbps)} (${r(c.fps, 0)}/s)`).join(', ')}`] : []),
    `edit to visible (drawn, pending or committed) ms: p50 ${r(f.editVisibleMs.p50, 0)} p99 ${r(f.editVisibleMs.p99, 0)} max ${r(f.editVisibleMs.max, 0)} over ${f.edits.samples} samples; edits ${f.edits.submitted} submitted, ${f.edits.notConfirmed} not confirmed; late (>${LATE_MS} ms) ${f.edits.late}, missing ${f.edits.missing}, observer left ${f.edits.left}`,
    `edit to committed at the observer ms: p50 ${r(f.editCommittedMs.p50, 0)} p99 ${r(f.editCommittedMs.p99, 0)} max ${r(f.editCommittedMs.max, 0)}`,
    `slow (drawn > 150 ms) ${f.editTail.slow}: edit reached its primary late ${f.editTail.editorLate} (routed ${f.editTail.editorRouted}: ${JSON.stringify(f.editTail.editorRoutedWhy)}), no pending frame first ${f.editTail.noPending}, pending routed ${f.editTail.pendingRouted} (${JSON.stringify(f.editTail.pendingRoutedWhy)}), relayed by a backup ${f.editTail.pendingRelayed}, late ${f.editTail.pendingLate}, other ${f.editTail.other}; submit to primary ms p50 ${r(f.editTail.toPrimaryMs.p50, 0)} p99 ${r(f.editTail.toPrimaryMs.p99, 0)}; primary to observer's first frame p50 ${r(f.editTail.fanOutMs.p50, 0)} p99 ${r(f.editTail.fanOutMs.p99, 0)}; first frames ${JSON.stringify(f.editTail.firstFrames)}`,
    `edit to first observer ms: p50 ${r(f.editFirstVisibleMs.p50, 0)} p99 ${r(f.editFirstVisibleMs.p99, 0)}; to confirm p50 ${r(f.editConfirmMs.p50, 0)} p99 ${r(f.editConfirmMs.p99, 0)}; refused first and retried: ${f.editRetriedMs.n} samples, p50 ${r(f.editRetriedMs.p50, 0)} p99 ${r(f.editRetriedMs.p99, 0)}`,
    `nearest 32 Hz at the window's end: p10 ${r(f.nearest32WindowHz.p10)} p50 ${r(f.nearest32WindowHz.p50)}; near at both ends: p10 ${r(f.nearest32StableHz.p10)} p50 ${r(f.nearest32StableHz.p50)} (${f.nearest32StableHz.n} of ${f.nearest32WindowHz.n}); age of the newest position ms p50 ${r(f.nearest32AgeMs.p50, 0)} p90 ${r(f.nearest32AgeMs.p90, 0)} p99 ${r(f.nearest32AgeMs.p99, 0)}`,
    `POSITIONS streams lost measured: ${JSON.stringify(f.positionsLost)}; positions of the 32 nearest missed: ${JSON.stringify(f.nearMisses)}`,
    `re-attaches measured, by region and cause: ${JSON.stringify(f.reattachCauses)}; gaps by cause (whole run): ${JSON.stringify(f.gapCauses)}`,
    `client: ${JSON.stringify(f.clientStats)}; hosts: ${JSON.stringify(f.hostStats)}; DHT drops: ${JSON.stringify(f.dhtDrops)}; DHT lookups from the players' start: ${JSON.stringify(f.dhtLookups)}`,
    `remote positions Hz (within the interest radius): p10 ${r(f.remoteHz.p10)} p50 ${r(f.remoteHz.p50)} (${f.remoteHz.n} samples); nearest 32 while among them: p10 ${r(f.nearest32Hz.p10)} p50 ${r(f.nearest32Hz.p50)} (${f.nearest32Hz.n}); ${f.staleEntries} entries put a player back where it was`,
    `visibility ${r(f.visibility * 100, 2)}% of ${f.visibilityPairs} pairs; region attaches per player per minute ${r(f.attachesPerPlayerMin)}, failovers seen ${f.failovers}`,
    `wall ${r(f.wallSec)} s`,
  ].join('\n');
}
