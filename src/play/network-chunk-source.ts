// The peer-hosted world's chunk source: terrain from the seed, plus the region's edits
// from its hosts. Regions near the player (the 3 x 3 around it by default) are live
// subscriptions (snapshot, then deltas); farther ones are read once from the region's
// edit log stored in the DHT and refreshed lazily, so the links a player holds stay
// bounded however far it can see (docs/DESIGN.md "Hosting").
//
// Remote edits arrive as 'blocks' events (world coordinates) for the app to apply to the
// WorldModel; remote players as 'players' events. The player's own position goes in
// through setPosition(), which also moves the subscriptions and sends MOVE.
//
// Edits go to the region's primary; when none that is certified can be had (this tab is
// alone, or cut off), they are kept tentative (tentative-edits.ts): shown over the region
// state on every load, stored locally, retried until confirmed.
import type { Clock } from '../core/clock';
import { Emitter } from '../core/emitter';
import { idToHex } from '../core/node-id';
import type { Dht } from '../dht/dht';
import type { PlayerFrame } from '../region/subscription-messages';
import type { RegionClient } from './region-client';
import type { TakenBack } from './pending-view';
import { columnAt, columnIndex, REGION_BLOCKS, regionAt, regionName, regionOf, RegionKeys, type RegionCoord } from '../region/region-key';
import { entryKey, RegionState, type Entry } from '../region/region-state';
import { MemoryTentativeStore, type TentativeStore } from '../store/tentative-store';
import type { Chunk } from '../world/chunk';
import { EditLog, editAt } from '../world/chunk-edits';
import { CHUNK_VOLUME, chunkOf, localOf, worldOf } from '../world/coords';
import { generateChunk } from '../world/terrain';
import type { EditOutcome, TentativeAware } from './block-editor';
import type { BlockChange, ChunkSource, ChunkSourceEvents } from './chunk-source';
import { TentativeEdits, type TentativeOptions } from './tentative-edits';
import type { Pose } from '../world/pose';
import type { Signer, Verifier } from '../core/signer';
import { OwnLook } from './own-look';
import { PlayerLooks } from './player-looks';
import { RemotePlayerList, type RemotePlayer } from './remote-player-list';
import { MovePace } from './move-pace';
import { MoveKeepAlive } from './move-keepalive';
import { MOVE_HZ, MOVE_KEEPALIVE_MS } from '../region/move-rate';

export const NETWORK_SOURCE_DEFAULTS = {
  /** Regions within this many regions of the player's are live subscriptions (1: 3 x 3). */
  liveRadius: 1,
  /** The centre region moves only once the player is this many blocks past its border. */
  hysteresisBlocks: 8,
  /** load() of a live region waits this long for its snapshot, then uses the stored log. */
  snapshotWaitMs: 5000,
  /** MOVE frames per second (on average, on the page's frames: move-pace.ts; the rate hosts expect: region/move-rate.ts). */
  moveHz: MOVE_HZ,
  /** Shown to other players until setName chooses another (a valid name: world/player-name.ts). */
  name: 'player',
};

export type NetworkSourceOptions = typeof NETWORK_SOURCE_DEFAULTS;

/** A far region's stored edit log is re-read when older than this. */
const FAR_REFRESH_MS = 30_000;
export type { BlockChange, RemotePlayer };

export interface NetworkSourceEvents extends ChunkSourceEvents {
  /** Everyone the primaries around us report, ourselves excluded. */
  players: { players: RemotePlayer[] };
}

export interface NetworkChunkSourceArgs {
  seed: string;
  world: string;
  client: RegionClient;
  dht: Pick<Dht, 'get' | 'selfId'>;
  clock: Clock;
  options?: Partial<NetworkSourceOptions>;
  /** Where tentative edits are kept (IdbTentativeStore in the tab; in memory, not durable, without). */
  tentative?: TentativeStore;
  tentativeOptions?: Partial<TentativeOptions>;
  /** This node's key: signs the player's look (own-look.ts). None: the others show this player unnamed. */
  signer?: Signer;
  /** Checks the other players' looks (player-looks.ts). None: every other player shows unnamed. */
  verify?: Verifier;
  /** The wall clock looks are stamped and judged with (default Date.now). */
  wallClock?: () => number;
}

interface FarRegion {
  at: number;
  state: Promise<RegionState>;
}

export class NetworkChunkSource implements ChunkSource, TentativeAware {
  readonly events = new Emitter<NetworkSourceEvents>();
  readonly opts: NetworkSourceOptions;
  /** Edits no certified primary confirmed yet: shown, stored locally, retried. */
  readonly tentative: TentativeEdits;
  private readonly keys: RegionKeys;
  private readonly far = new Map<string, FarRegion>();
  /** The other players shown, from the watched regions' POSITIONS. */
  private readonly players: RemotePlayerList;
  private readonly selfHex: string;
  private centre: RegionCoord | undefined;
  private pos: Pose | undefined;
  private readonly movePace: MovePace;
  private readonly moveKeepAlive = new MoveKeepAlive(MOVE_KEEPALIVE_MS);
  private stops: (() => void)[] = [];
  private readonly own: OwnLook;
  /** The other players' proven looks (none without a verifier). */
  readonly looks: PlayerLooks | undefined;

  constructor(private readonly args: NetworkChunkSourceArgs) {
    this.opts = { ...NETWORK_SOURCE_DEFAULTS, ...args.options };
    this.movePace = new MovePace(this.opts.moveHz);
    this.keys = args.client.keys;
    this.selfHex = idToHex(args.dht.selfId);
    this.players = new RemotePlayerList(this.selfHex, () => this.looks);
    this.own = new OwnLook({ world: args.world, name: this.opts.name, selfHex: this.selfHex, ...(args.signer ? { signer: args.signer } : {}), ...(args.wallClock ? { wallClock: args.wallClock } : {}) });
    this.looks = args.verify && new PlayerLooks({
      world: args.world, verify: args.verify, clock: args.clock, ...(args.wallClock ? { wallClock: args.wallClock } : {}),
      onShown: (hex, look) => this.players.showLook(hex, look),
    });
    this.stops.push(args.client.events.on('edits', ({ region, entries }) => this.emitBlocks(region, entries)));
    this.stops.push(args.client.events.on('pending', ({ region, shown, takenBack }) => this.onPending(region, shown, takenBack)));
    this.stops.push(args.client.events.on('players', ({ region, players, gone, via }) => this.onPlayers(region, players, gone, via)));
    this.tentative = new TentativeEdits({
      store: args.tentative ?? new MemoryTentativeStore(),
      clock: args.clock,
      submit: (x, y, z, id, at, r) => args.client.submit(x, y, z, id, at, r),
      request: () => args.client.newRequest(),
      position: () => this.pos,
      revert: (x, y, z) => void this.revert(x, y, z),
      isLive: (r) => this.isLive(r),
      // A far region subscribed only to retry in: let it go again.
      idle: (r) => {
        if (this.centre && !this.isLive(r)) this.args.client.unsubscribe(r);
      },
      ...(args.tentativeOptions ? { options: args.tentativeOptions } : {}),
    });
    this.stops.push(args.client.events.on('attached', ({ region }) => this.tentative.wake(region)));
  }

  close(): void {
    this.tentative.close();
    for (const s of this.stops) s();
    this.stops = [];
    for (const r of this.args.client.subscribed()) this.args.client.unsubscribe(r);
  }

  /** Live subscriptions (at most (2 * liveRadius + 1)^2, plus regions just edited). */
  liveRegions(): RegionCoord[] {
    return this.args.client.subscribed();
  }

  // ---- the player -------------------------------------------------------------------

  /** The name other players see. */
  get name(): string {
    return this.own.name;
  }

  /**
   * Chooses the name other players see, signed into our look (own-look.ts) and sent with the
   * next MOVE (none: the default of the options). False, and nothing changes, for a name
   * outside the rule (world/player-name.ts): no receiver would take it.
   */
  setName(name?: string): boolean {
    return this.own.setName(name);
  }

  /** The colour other players see (a palette index: world/player-colour.ts). */
  get colour(): number {
    return this.own.colour;
  }

  /**
   * Chooses the colour other players see, as setName the name (none: the one our id gives).
   * False, and nothing changes, for an index outside the palette.
   */
  setColour(colour?: number): boolean {
    return this.own.setColour(colour);
  }

  /** Where the player is: moves the live subscriptions and sends MOVE (throttled; a standing player's only as a keep-alive). */
  setPosition(p: Pose): void {
    this.pos = { ...p };
    const here = { rx: regionOf(chunkOf(p.x)), rz: regionOf(chunkOf(p.z)) };
    if (!this.centre || this.farFromCentre(p)) this.recentre(here);
    const now = this.args.clock.now();
    if (!this.movePace.due(now)) return;
    const look = this.own.current();
    const to = this.args.client.attachment(here)?.primary;
    if (!this.moveKeepAlive.needed(p, look, to, now)) return;
    if (this.args.client.move(p, look)) {
      this.movePace.sent(now);
      this.moveKeepAlive.sent(p, look, to, now);
    }
  }

  private farFromCentre(p: Pose): boolean {
    const c = this.centre!;
    const h = this.opts.hysteresisBlocks;
    const x0 = c.rx * REGION_BLOCKS, z0 = c.rz * REGION_BLOCKS;
    return p.x < x0 - h || p.x >= x0 + REGION_BLOCKS + h || p.z < z0 - h || p.z >= z0 + REGION_BLOCKS + h;
  }

  private isLive(r: RegionCoord): boolean {
    const c = this.centre;
    return !!c && Math.abs(r.rx - c.rx) <= this.opts.liveRadius && Math.abs(r.rz - c.rz) <= this.opts.liveRadius;
  }

  private recentre(c: RegionCoord): void {
    this.centre = c;
    const rad = this.opts.liveRadius;
    for (const r of this.args.client.subscribed()) {
      if (this.isLive(r)) continue;
      this.args.client.unsubscribe(r);
      this.players.dropRegion(regionName(r));
    }
    // Nearest first: the player's own region, then the ring.
    const want: RegionCoord[] = [];
    for (let dz = -rad; dz <= rad; dz++) for (let dx = -rad; dx <= rad; dx++) want.push({ rx: c.rx + dx, rz: c.rz + dz });
    want.sort((a, b) => Math.hypot(a.rx - c.rx, a.rz - c.rz) - Math.hypot(b.rx - c.rx, b.rz - c.rz));
    for (const r of want) void this.args.client.subscribe(r);
  }

  // ---- ChunkSource ------------------------------------------------------------------

  async load(cx: number, cz: number): Promise<Chunk> {
    const region = { rx: regionOf(cx), rz: regionOf(cz) };
    if (!this.centre) {
      globalThis.performance?.mark?.('vp:first-subscribe');
      this.recentre(region);
    }
    const col = columnIndex(cx, cz);
    const chunk = generateChunk(this.args.seed, cx, cz);
    let state: RegionState | undefined;
    if (this.isLive(region)) {
      const ready = this.args.client.subscribe(region);
      const timedOut = await Promise.race([
        ready.then(() => false),
        new Promise<boolean>((resolve) => this.args.clock.setTimeout(() => resolve(true), this.opts.snapshotWaitMs)),
      ]);
      if (!timedOut) state = this.args.client.state(region);
    }
    state ??= await this.farState(region);
    // The snapshot may have come while we waited (for it, or for the far state): its edits
    // were announced as 'blocks' before this column was in the world, so they were not
    // applied there. The column must carry them itself.
    if (this.isLive(region) && this.args.client.isReady(region)) state = this.args.client.state(region) ?? state;
    EditLog.from(state.column(col)).applyTo(chunk);
    // Edits ordered there but not committed yet, drawn as the 'pending' events draw them.
    if (this.isLive(region)) {
      const pending = this.args.client.pendingEntries(region).filter((e) => Math.floor(e.key / CHUNK_VOLUME) === col);
      for (const e of pending) {
        const b = editAt(e.key % CHUNK_VOLUME, e.id);
        chunk.set(b.x, b.y, b.z, e.id);
      }
    }
    // Our tentative edits over the region state: the player keeps seeing them.
    await this.tentative.ready;
    for (const e of this.tentative.column(cx, cz)) chunk.set(localOf(e.x), e.y, localOf(e.z), e.id);
    return chunk;
  }

  async commitEdit(x: number, y: number, z: number, id: number): Promise<void> {
    await this.submitEdit(x, y, z, id);
  }

  /** Confirmed by the region's primary, or kept tentative (stored locally) when no certified primary can be had. */
  submitEdit(x: number, y: number, z: number, id: number): Promise<EditOutcome> {
    const p = this.pos ?? { x: x + 0.5, y, z: z + 0.5 };
    return this.tentative.edit(x, y, z, id, { x: p.x, y: p.y, z: p.z });
  }

  isTentative(x: number, y: number, z: number): boolean {
    return this.tentative.idAt(x, y, z) !== undefined;
  }

  release(): void {
    // Subscriptions follow the player's position, not single columns.
  }

  // ---- far regions --------------------------------------------------------------------

  private farState(region: RegionCoord): Promise<RegionState> {
    const name = regionName(region);
    const now = this.args.clock.now();
    const held = this.far.get(name);
    if (held && now - held.at < FAR_REFRESH_MS) return held.state;
    const state = this.args.client.farEdits(region).then((entries) => RegionState.from(entries ?? []), () => new RegionState());
    if (held) {
      // Refresh lazily: keep serving the old value, announce what changed.
      void Promise.all([held.state, state]).then(([old, fresh]) => {
        const changed = fresh.all().filter((e) => old.get(e.key)?.id !== e.id);
        if (changed.length > 0) this.emitBlocks(region, changed);
      });
    }
    this.far.set(name, { at: now, state });
    if (this.far.size > 256) this.far.delete(this.far.keys().next().value!);
    return held ? held.state : state;
  }

  /** A tentative edit was refused for good, or a confirmed one superseded it: show the block as the region has it. */
  private async revert(x: number, y: number, z: number): Promise<void> {
    const region = regionAt(x, z);
    const cx = chunkOf(x), cz = chunkOf(z);
    const state = this.args.client.state(region) ?? (await this.farState(region));
    const id = state.get(entryKey(columnIndex(cx, cz), localOf(x), y, localOf(z)))?.id ?? generateChunk(this.args.seed, cx, cz).get(localOf(x), y, localOf(z));
    if (this.tentative.idAt(x, y, z) === undefined) this.events.emit('blocks', { changes: [{ x, y, z, id }] });
  }

  // ---- remote edits and players ----------------------------------------------------------

  /** Committed entries: drawn, unless a pending edit of the block, newer, is shown over them. */
  private emitBlocks(region: RegionCoord, entries: Entry[]): void {
    const changes = entries.map((e) => {
      const p = this.args.client.pendingAt(region, e.key);
      return p ? this.change(region, p, true) : this.change(region, e, false);
    });
    this.events.emit('blocks', { changes });
  }

  /** Edits ordered, not committed yet (drawn marked pending), and blocks whose pending edit never committed (drawn as the region state has them). */
  private onPending(region: RegionCoord, shown: Entry[], takenBack: TakenBack[]): void {
    const changes = shown.map((e) => this.change(region, e, true));
    const terrain = new Map<number, Chunk>();
    for (const { key, entry } of takenBack) {
      if (entry) {
        changes.push(this.change(region, entry, false));
        continue;
      }
      // No edit of the block: the terrain's (a column's terrain generated once for all its blocks).
      const col = Math.floor(key / CHUNK_VOLUME);
      const [cx, cz] = columnAt(region, col);
      const b = editAt(key % CHUNK_VOLUME, 0);
      let chunk = terrain.get(col);
      if (!chunk) terrain.set(col, (chunk = generateChunk(this.args.seed, cx, cz)));
      const x = worldOf(cx, b.x), z = worldOf(cz, b.z);
      changes.push({ x, y: b.y, z, id: this.tentative.idAt(x, b.y, z) ?? chunk.get(b.x, b.y, b.z) });
    }
    if (changes.length > 0) this.events.emit('blocks', { changes });
  }

  private change(region: RegionCoord, e: Entry, pending: boolean): BlockChange {
    const col = Math.floor(e.key / CHUNK_VOLUME);
    const [cx, cz] = columnAt(region, col);
    const b = editAt(e.key % CHUNK_VOLUME, e.id);
    const x = worldOf(cx, b.x), z = worldOf(cz, b.z);
    // A block we changed tentatively keeps showing our edit until it is confirmed or refused.
    return { x, y: b.y, z, id: this.tentative.idAt(x, b.y, z) ?? e.id, stamp: { e: e.e, s: e.s }, ...(pending ? { pending } : {}) };
  }

  /** A region's POSITIONS (from the host `via`, hex): the player list takes them, and the page hears the list. */
  private onPlayers(region: RegionCoord, list: PlayerFrame[], gone: string[], via?: string): void {
    this.players.take(regionName(region), list, gone, this.args.clock.now(), via);
    if (this.events.has('players')) this.events.emit('players', { players: this.players.list() });
  }
}
