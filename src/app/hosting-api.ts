// window.voxel.hosting: what this tab hosts and how the shared world looks from here, for
// tests, bots and the dashboard.
import type { WorldClockStatus } from '../agree/world-clock';
import type { Clock } from '../core/clock';
import { idToHex } from '../core/node-id';
import type { RemotePlayers, RemotePlayerSample } from '../play/remote-player-smoother';
import { presentPlayers, type PresentPlayer } from '../play/present-players';
import { columnIndex, regionAt } from '../region/region-key';
import { entryKey } from '../region/region-state';
import { chunkOf, localOf } from '../world/coords';
import type { NetSession } from './net-session';
import type { WorkerTicker } from './worker-ticker';

export interface HostingApi {
  /** Plays without hosting: a read-only DHT node that claims and backs up no region (`?hosting=play`, a phone's default). */
  playOnly(): boolean;
  /** Region names ("rx,rz") this tab is primary or backup of. */
  roles(): { primary: string[]; backup: string[] };
  /** Regions the player holds live subscriptions to. */
  liveRegions(): string[];
  /** Remote players as drawn this frame (smoothed). */
  players(): RemotePlayerSample[];
  /** Authoritative ticks per second per primary region, over the last measurement window. */
  tickHz(): number;
  /** One region as this tab's host and client see it (diagnostics). */
  region(name: string): RegionDiagnostics;
  /** The committed edit of block (x, y, z) in this tab's subscription of its region, with its stamp (diagnostics); undefined when not subscribed or no edit of it is held. */
  block(x: number, y: number, z: number): { id: number; e: number; s: number } | undefined;
  /** The last hosting decisions (claims, grants, refusals) and the region client's attaches, oldest first. */
  trace(): string[];
  /** Flat counters: host_*, client_*, wire_* and ticker/clock figures. */
  stats(): Record<string, number>;
  /** A region's item records as this tab hosts them (none: not hosted here), each with whether its proof checks now (docs/ITEMS.md "Signed decisions"). */
  items(name: string): Promise<HostedItemRecord[]>;
  /** This node's host clock (the one its hosted regions' spawn times are read on and that answers probes): time, bound, reference. */
  clock(): WorldClockStatus & { now: number };
}

export interface HostedItemRecord {
  id: string;
  owner: string | null;
  gen: number;
  x: number;
  y: number;
  z: number;
  /** A tombstone: carried off to this region. */
  away?: string;
  /** The proof's vote id and epoch, and how many hosts signed it (absent: no proof yet). */
  proof?: { vote: string; e: number; signers: number };
  /** The proof checks against the host set of its epoch, as this host knows it. */
  valid: boolean;
}

/** At most this many present players are listed per region (the count says how many there are). */
export const MAX_PRESENT_LISTED = 32;

export interface RegionDiagnostics {
  host?: {
    role: string; epoch: number; promised: number; primary: string; hosts: string[]; entries: number; version: string; subscribers: number;
    /** As primary: who stands in the region now, by name then id, at most MAX_PRESENT_LISTED (a backup hears no MOVE: none). */
    present: PresentPlayer[];
    /** How many stand there in all. */
    presentCount: number;
  };
  /** The player's subscription: `version`, the highest stamp its state holds ("e<E>s<S>"). */
  client?: { primary: string; epoch: number; ready: boolean; entries: number; version: string };
}

/** `ticker`: the tick source's counters (a tab's WorkerTicker; the headless peer counts its clock ticks). */
export function createHostingApi(net: NetSession, remote: RemotePlayers, clock: Clock, ticker: Pick<WorkerTicker, 'stats'>): HostingApi {
  let lastTicks = net.host.stats.ticks, lastAt = clock.now(), hz = 0;
  // Measured from the clock (worker-driven), so it stays honest in a hidden tab.
  const measure = () => {
    const now = clock.now();
    const regions = net.host.roles().primary.length;
    const ticks = net.host.stats.ticks;
    if (regions > 0) hz = ((ticks - lastTicks) * 1000) / (now - lastAt) / regions;
    lastTicks = ticks;
    lastAt = now;
    clock.setTimeout(measure, 2000);
  };
  clock.setTimeout(measure, 2000);
  const prefixed = (prefix: string, o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => typeof v === 'number').map(([k, v]) => [`${prefix}${k}`, v as number]));
  return {
    playOnly: () => net.peer.dht.readOnly,
    roles: () => net.host.roles(),
    liveRegions: () => net.source.liveRegions().map((r) => `${r.rx},${r.rz}`),
    players: () => remote.sample(performance.now()),
    tickHz: () => hz,
    region: (name) => {
      const [rx, rz] = name.split(',').map(Number) as [number, number];
      const coord = { rx, rz };
      const hosted = net.host.regionState(coord);
      const attachment = net.client.attachment(coord);
      const client = net.client.state(coord);
      const short = (hex: string) => hex.slice(0, 8);
      const present = hosted?.duty ? presentPlayers(hosted.duty.presence.standing(hosted.ctx.clock.now()), net.source.looks) : [];
      return {
        ...(hosted ? { host: { role: hosted.role, epoch: hosted.epoch, promised: hosted.promised, primary: short(hosted.primaryHex), hosts: hosted.hosts.map((x) => short(idToHex(x))), entries: hosted.state.size, version: `e${hosted.state.version.e}s${hosted.state.version.s}`, subscribers: hosted.duty?.subscribers.size ?? hosted.knownSubs.length, present: present.slice(0, MAX_PRESENT_LISTED), presentCount: present.length } } : {}),
        ...(attachment ? { client: { primary: short(attachment.primary), epoch: attachment.epoch, ready: net.client.isReady(coord), entries: client?.size ?? 0, version: client ? `e${client.version.e}s${client.version.s}` : '' } } : {}),
      };
    },
    block: (x, y, z) => {
      const e = net.client.state(regionAt(x, z))?.get(entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), y, localOf(z)));
      return e && { id: e.id, e: e.e, s: e.s };
    },
    trace: () => [...net.trace],
    clock: () => ({ now: net.items.host.clock.now(), ...net.items.host.clock.status() }),
    items: async (name) => (await net.items.host.checkedRecords(name)).map(({ rec, valid }): HostedItemRecord => ({
      id: rec.id, owner: rec.owner, gen: rec.gen, x: rec.x, y: rec.y, z: rec.z, ...(rec.away !== undefined ? { away: rec.away } : {}),
      ...(rec.proof ? { proof: { vote: rec.proof.vote, e: rec.proof.e, signers: rec.proof.sigs.length } } : {}), valid,
    })),
    stats: () => ({
      ...prefixed('host_', net.host.stats),
      ...prefixed('host_refused_', net.host.stats.editRefusals),
      ...prefixed('host_passRefused_', net.host.stats.passRefusals),
      ...prefixed('host_chatRefused_', net.host.stats.chatRefused),
      ...prefixed('items_request_', net.items.host.requests.stats),
      ...prefixed('client_', net.client.stats),
      // Other players' looks (name and colour) shown, the same again, and dropped by reason (play/player-looks.ts).
      ...(net.source.looks ? { looks_shown: net.source.looks.stats.shown, looks_repeats: net.source.looks.stats.repeats, looks_refused_again: net.source.looks.stats.refusedAgain, ...prefixed('looks_dropped_', net.source.looks.stats.dropped) } : {}),
      ...net.client.latency.snapshot.flat('client_snapshot_ms'),
      ...net.client.latency.confirm.flat('client_confirm_ms'),
      ...net.host.latency.store.flat('host_store_ms'),
      ...net.host.latency.ack.flat('host_ack_ms'),
      ...net.host.latency.commit.flat('host_commit_ms'),
      ...net.host.latency.confirm.flat('host_confirm_ms'),
      ...prefixed('wire_', net.wire.drops),
      wire_partsEvicted: net.wire.partsEvicted,
      // Frames sent by channel and type ('out_player_DELTA', 'out_replica_HEARTBEAT'): what a tab's sends are made of.
      ...Object.fromEntries([...net.wire.outByType()].map(([k, c]) => [`out_${k.replace(' ', '_')}`, c.frames])),
      ticker_ticks: ticker.stats.ticks,
      ticker_fallback: ticker.stats.fallback ? 1 : 0,
      tick_hz: hz,
    }),
  };
}
