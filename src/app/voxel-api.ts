// window.voxel: the automation API. Bots and browser tests drive the world through the
// same code paths a person's input takes (a setBlock is the BlockEditor call a click
// makes). Names are stable: later issues extend this object, never rename it.
import type { BlockEditor, EditOutcome } from '../play/block-editor';
import type { PlayerSession } from '../play/player-session';
import type { WorldModel } from '../play/world-model';
import type { RayHit } from '../play/raycast';
import type { Pose } from '../world/pose';
import { BLOCKS } from '../world/blocks';
import type { HostingApi } from './hosting-api';
import type { PageConfig } from './config';
import type { WorldClockStatus } from '../agree/world-clock';
import type { DropOutcome, ItemInfo, PickupOutcome } from '../play/item-service';
import type { Appearance } from '../play/item-appearances';
import type { NetApi } from './net-api';
import type { ChatApi } from './page-chat';
import type { MoveInput } from '../play/physics';
import type { PlayerSettings } from '../ui/player-settings';
import type { FullscreenState } from '../ui/fullscreen';
import type { WhoRow } from '../ui/who-list';
import type { DrawnAvatar } from '../render/remote-avatars';

export interface VoxelStats {
  fps: number;
  chunksLoaded: number;
  chunksPending: number;
  lastMeshMs: number;
  drawCalls: number;
  triangles: number;
  geometries: number;
  /** Terrain shader programs compiled with the block texture atlas (2 once terrain was drawn; 0 with ?render=off). */
  atlasPrograms: number;
  atlasLayers: number;
  /** ms from navigation start to the terrain under the player drawn (NaN until then). */
  readyMs: number;
  /** The player's edits applied to the world model whose outcome has not come yet (play/block-editor.ts `unsettled`): a reload now would lose them. */
  unsettledEdits: number;
  /** Edits kept tentative: shown and stored locally, no certified primary confirmed them yet. */
  tentativeEdits: number;
  /** Frames after ready with a column missing inside render distance - 2 (should stay 0). */
  gapFrames: number;
  frames: number;
  /** Block changes that fell out of changes()' 512-entry list (a watcher looking for one of them no longer finds it). */
  changesDropped: number;
}

/** A block change as it arrived in this tab: `at` in epoch ms; `e`, `s`: the host's stamp of the edit (shared world). */
export interface BlockArrival {
  x: number;
  y: number;
  z: number;
  id: number;
  at: number;
  e?: number;
  s?: number;
}

export interface VoxelApi {
  ready(): Promise<void>;
  getBlock(x: number, y: number, z: number): number;
  /**
   * The code path of a click. Resolves once stored: `confirmed` false when no certified
   * primary could be had (alone, cut off) and the edit is kept tentative (see tentative()).
   */
  setBlock(x: number, y: number, z: number, id: number): Promise<EditOutcome>;
  /** Edits kept tentative (shown, stored locally, retried until a primary confirms them). */
  tentative(): { x: number; y: number; z: number; id: number }[];
  player(): Pose & { flying: boolean };
  /**
   * Moves the player; resolves once the new position is stored in this tab. Its signed DHT
   * record follows on the walking cadence (at most every 10 s, net-session.ts), as for a
   * player who walked there: the bench bots step by teleport 10 times a second, and a forced
   * publish each time cost 10 lookups and ~40 STOREs a second per bot, each STORE a record
   * signature its holders check, which no walking player pays.
   */
  teleport(x: number, y: number, z: number): Promise<void>;
  /**
   * Moves the player as a page frame of a walk moves it: its position only, saved on the
   * walking cadence (player-saving.ts), not at once as teleport saves it. The bench bots walk
   * each 100 ms step in parts, so MOVE (region/move-rate.ts) finds a new position on every
   * frame as it does for a player walking by the keys.
   */
  step(x: number, y: number, z: number): void;
  /** Sets the view direction (radians; yaw 0 looks at -z, pitch up positive); resolves once stored, as teleport does. */
  look(yaw: number, pitch: number): Promise<void>;
  /** The block under the crosshair within reach, as a click would pick it. */
  target(): RayHit | null;
  /** Chooses the hotbar slot (0-based) a right click places from. */
  select(slot: number): void;
  blocks(): { id: number; name: string }[];
  stats(): VoxelStats;
  setRenderDistance(n: number): Promise<void>;
  /** Stores the player's position now (it is also stored every few seconds and on hide). */
  savePlayer(): Promise<void>;
  /**
   * Recent block changes applied to this tab's world (own and others', newest last, at
   * most 512), with `at` in epoch ms (timeOrigin + now: comparable across the tabs of one
   * machine). Bots time edit-to-visible latency with it.
   */
  changes(): BlockArrival[];
  /** The peer network; set once the tab has joined (absent with ?net=off). */
  net?: NetApi;
  /** Region hosting and remote players; set with `net`. */
  hosting?: HostingApi;
  /** A fresh signed invite link to this world from this tab (the pause menu's Copy-invite); set with `net`. */
  invite?: () => Promise<string>;
  /** Why the start went wrong as the start screen said it (its kind), if it did; set with `net`. */
  startProblem?: () => string | undefined;
  /** Items and the synchronised world clock (app/page-items.ts); set once the world view exists. */
  items?: ItemsApi;
  /** The player's settings as applied (pause menu; kept in localStorage). */
  settings?: () => PlayerSettings;
  /** Chooses the name other players see, as the settings' name field does ('' for the default); false when the name rule refuses it. */
  setName?: (name: string) => boolean;
  /** Chooses the colour other players see, as the settings' choice does: a palette index (world/player-colour.ts), null for the one the id gives; false outside the palette. */
  setColour?: (colour: number | null) => boolean;
  /** Other players' avatars as the scene holds them now: id, name, body and label colours ('#rrggbb'); empty when not drawing. */
  avatars?: () => DrawnAvatar[];
  /** Text chat with the players around (set with `net` when the tab plays in the shared world). */
  chat?: ChatApi;
  /**
   * How this tab takes part: 'host' (hosts regions and plays), 'play' (plays without hosting:
   * `?hosting=play`, and a phone's default), 'off' (`?hosting=off`), 'alone' (`?net=off`);
   * `chosen` says whether by the URL, the touch-device default, or the default.
   */
  hostingMode?: () => { mode: 'host' | 'play' | 'off' | 'alone'; chosen: PageConfig['hostingChosen'] };
  /** Who is here, as the Tab list shows it: the players around, nearest first (at most 64), with short id, distance in blocks and the round trip of a direct link ('-' without one). */
  who?: () => WhoRow[];
  /** The move the held keys ask for now (null on a page without keyboard input). */
  moveInput?: () => MoveInput | null;
  /** Whether the page is fullscreen and the keyboard locked (ui/fullscreen.ts; null on a page without input). */
  fullscreen?: () => FullscreenState | null;
}

/**
 * window.voxel.items. `mode` 'hosted': the region hosts carry the items (their votes decide
 * pickups and spawns, docs/ITEMS.md) and the clock follows the hosts of the player's region;
 * 'local' is the one-tab mode (?net=off, or ?items=local): this tab keeps the items of the
 * areas it walks through and is their only voter, nobody else sees them; 'off': no items
 * (network without hosting; the clock still runs and drives the sky).
 */
export interface ItemsApi {
  readonly mode: 'local' | 'hosted' | 'off';
  /** Items lying in the world near the player (shown by now): id, kind, position, owner. */
  inView(): ItemInfo[];
  /** What the player holds. */
  inventory(): ItemInfo[];
  /** Any item this tab knows of by id (its owner, where it lies): undefined when unknown here. */
  item(id: string): ItemInfo | undefined;
  /** The code path of walking into the item: claims it from where the player stands. */
  pickUp(id: string): Promise<PickupOutcome>;
  /** Puts a held item back in the world three blocks ahead of the player (the Q key). */
  drop(id: string): Promise<DropOutcome>;
  /** The synchronised world clock: its time, offset to the local clock, error bound, samples; a drawing page's probe rounds sent at the top of a frame it skipped / after waiting for a frame in vain / held past a frame an item first showed in (probe-frame-gate.ts); frames held so that one falls on an item's time (item-frame-pacer.ts). */
  clock(): WorldClockStatus & { now: number; roundsIdle: number; roundsLate: number; roundsDeferred: number; framesHeld: number };
  /** A spawn proposed now in the player's area (the spawn timer's code path; tests; one-tab mode only: hosts spawn on their own). */
  spawnNow(): ItemInfo | undefined;
  /** Ledger refusals by reason, and spawned / taken / dropped counts. */
  stats(): Record<string, number>;
  /** The item ids the inventory bar shows, in order. */
  bar(): string[];
  /** When each item first showed in this tab, machine clock (play/item-appearances.ts; at most 256, oldest first). */
  appearances(): Appearance[];
}

export interface VoxelApiParts {
  world: WorldModel;
  session: PlayerSession;
  editor: BlockEditor;
  ready: Promise<void>;
  stats: () => Omit<VoxelStats, 'changesDropped'>;
  tentative: () => { x: number; y: number; z: number; id: number }[];
  savePlayer: (force?: boolean) => Promise<void>;
  setRenderDistance: (n: number) => Promise<void>;
  onSelect: (slot: number) => void;
}

const MAX_CHANGES = 512;

export function createVoxelApi(p: VoxelApiParts): VoxelApi {
  const changes: BlockArrival[] = [];
  let changesDropped = 0;
  p.world.events.on('blockChanged', ({ x, y, z, id, stamp }) => {
    changes.push({ x, y, z, id, at: performance.timeOrigin + performance.now(), ...(stamp ? { e: stamp.e, s: stamp.s } : {}) });
    if (changes.length > MAX_CHANGES) {
      changes.shift();
      changesDropped++;
    }
  });
  return {
    changes: () => changes.slice(),
    ready: () => p.ready,
    getBlock: (x, y, z) => p.world.blockAt(Math.floor(x), Math.floor(y), Math.floor(z)),
    setBlock: (x, y, z, id) => p.editor.setBlock(x, y, z, id),
    tentative: () => p.tentative(),
    player: () => {
      const b = p.session.body;
      return { x: b.x, y: b.y, z: b.z, yaw: p.session.yaw, pitch: p.session.pitch, flying: p.session.flying };
    },
    teleport: async (x, y, z) => {
      p.session.teleport(x, y, z);
      await p.savePlayer(false);
    },
    step: (x, y, z) => p.session.teleport(x, y, z),
    look: async (yaw, pitch) => {
      p.session.yaw = 0;
      p.session.pitch = 0;
      p.session.look(yaw, pitch);
      await p.savePlayer(false);
    },
    target: () => p.session.target(),
    select: (slot) => {
      p.session.select(slot);
      p.onSelect(p.session.selected);
    },
    blocks: () => BLOCKS.map((b) => ({ id: b.id, name: b.name })),
    stats: () => ({ ...p.stats(), changesDropped }),
    setRenderDistance: p.setRenderDistance,
    savePlayer: () => p.savePlayer(true),
  };
}
