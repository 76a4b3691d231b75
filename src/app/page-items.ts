// Items and the world clock on the player page: the synchronised WorldClock drives the time of
// day every frame. With the network (mode 'hosted'), the items are the region hosts'
// (play/network-items.ts over play/player-items.ts) and the clock follows the hosts of the region
// the player stands in; in the one-tab mode (play/local-items.ts; `?net=off`, or `?items=local`)
// the tab's own item ledgers spawn items near the player and the clock is its own reference
// (epoch ms). Either way the frame loop walks the player into items, the models are drawn
// and the inventory bar shows what is held (Q drops the selected item, E selects the next).
// window.voxel.items reads the same.
import { webCryptoVerifier, type Signer } from '../core/signer';
import * as v from 'valibot';
import { realClock } from '../core/clock';
import { ledgerStateSchema } from '../agree/item-ledger';
import { seededRandom } from '../core/seeded-random';
import { WorldClock } from '../agree/world-clock';
import type { HeldItem } from '../play/player-record';
import type { PlayerSession } from '../play/player-session';
import { PlayerItems } from '../play/player-items';
import type { RegionClient } from '../play/region-client';
import type { ItemWire } from '../agree/item-wire';
import { hexToId } from '../core/node-id';
import { NetworkItems } from '../play/network-items';
import type { WorldModel } from '../play/world-model';
import { InventoryBar } from '../ui/inventory-bar';
import { SOLID } from '../world/blocks';
import { chunkOf } from '../world/coords';
import type { PageConfig } from './config';
import type { ItemService, Point } from '../play/item-service';
import { ItemAppearances } from '../play/item-appearances';
import type { ProbeFrameGate } from '../play/probe-frame-gate';
import { ItemFramePacer } from '../play/item-frame-pacer';
import { TIME_OF_DAY } from '../render/time-of-day';
import { LocalItems } from '../play/local-items';
import type { ItemsApi } from './voxel-api';
import type { WorldView } from './world-view';
import { storeScope } from '../store/store-scope';

/** Items within this many blocks are drawn and listed. */
const VIEW_RADIUS = 48;
/** A dropped item lands this far ahead of the player (out of reach, so it is not taken straight back). */
const DROP_AHEAD = 3;
/** The one-tab mode's ledgers are kept this often (and when the tab is hidden or left). */
const KEEP_EVERY_MS = 5000;
const keptSchema = v.pipe(v.array(ledgerStateSchema), v.maxLength(25));

export interface PageItemsParts {
  cfg: PageConfig;
  world: WorldModel;
  session: PlayerSession;
  view: WorldView;
  hudRoot: HTMLElement;
  /** The player id items are held under (the node id, hex: what the hosts see claims come from). */
  self: string;
  /** The network session's region client and items channel (absent: no hosts to carry items). */
  /** `signer`: the node identity (its id is `self`), which signs the player's drop and carry requests. */
  net?: { client: RegionClient; wire: ItemWire; signer: Signer; recorded: () => Promise<readonly HeldItem[] | undefined> } | undefined;
  onMessage: (text: string) => void;
  /** A drawing page's clock probe rounds go out at the top of a frame it skips (play/probe-frame-gate.ts; shared with the host clock). Absent: the page draws nothing. */
  probeGate?: ProbeFrameGate | undefined;
}

export class PageItems {
  readonly clock: WorldClock;
  readonly service: ItemService | null;
  readonly api: ItemsApi;
  private readonly bar: InventoryBar;
  /** When each item first showed here, machine clock (the spawn-skew figure). */
  private readonly appearances: ItemAppearances;
  private selected = 0;
  /** A drawing page's clock probe rounds go out at the top of a frame it skips (null: the page draws nothing). */
  private readonly probeGate: ProbeFrameGate | null;
  /** The player's side of the hosts' items (network mode). */
  private readonly hosted: PlayerItems | undefined;
  /** A drawing page's frames around an item's appearance (null: the page draws nothing). */
  private readonly pacer: ItemFramePacer | null;

  constructor(private readonly p: PageItemsParts) {
    const net = p.net;
    const gate = (this.probeGate = p.probeGate ?? null);
    this.pacer = p.view.canvas ? new ItemFramePacer(p.cfg.itemPacing !== false) : null;
    this.clock = new WorldClock({
      local: realClock, base: performance.timeOrigin,
      send: (to, msg) => void net?.wire.send(hexToId(to), msg),
      references: () => this.hosted?.clockReferences() ?? [],
      ...(gate ? { sendAt: (go: () => void) => gate.sendAt(go) } : {}),
    });
    this.clock.start();
    const local = !p.cfg.net || new URL(location.href).searchParams.get('items') === 'local';
    const items = local ? new LocalItems({ seed: p.cfg.seed, self: p.self, clock: this.clock, ground: (x, z) => this.ground(x, z), rng: seededRandom((Math.random() * 2 ** 32) >>> 0), ...(p.cfg.itemSpawnMs ? { spawnMeanMs: p.cfg.itemSpawnMs } : {}) }) : null;
    if (!items && net) {
      this.hosted = new PlayerItems({ client: net.client, wire: net.wire, self: p.self, signer: net.signer, seed: p.cfg.seed, clock: realClock, world: this.clock, verify: webCryptoVerifier });
      this.hosted.start();
      const hosted = this.hosted;
      // What the player's own record says it holds shows until the regions holding it answer.
      void net.recorded().then((held) => hosted.remember(held ?? []), () => {});
    }
    this.service = items ?? (this.hosted ? new NetworkItems(this.hosted, p.self, () => this.clock.now()) : null);
    const service = this.service;
    if (items) this.keep(items);
    this.bar = new InventoryBar(p.hudRoot);
    this.appearances = new ItemAppearances(performance.timeOrigin, p.view.canvas !== null);
    this.api = {
      mode: items ? 'local' : this.hosted ? 'hosted' : 'off',
      inView: () => service?.inView(this.feet(), VIEW_RADIUS) ?? [],
      inventory: () => service?.inventory() ?? [],
      item: (id) => service?.item(id),
      pickUp: (id) => service?.touch(id, this.feet()) ?? Promise.resolve({ taken: false, reason: 'unknown-item' }),
      drop: (id) => this.drop(id),
      clock: () => ({ now: this.clock.now(), ...this.clock.status(), roundsIdle: this.probeGate?.rounds.idle ?? 0, roundsLate: this.probeGate?.rounds.late ?? 0, roundsDeferred: this.probeGate?.deferred ?? 0, framesHeld: this.pacer?.held ?? 0 }),
      spawnNow: () => items?.spawnNow(this.feet()),
      stats: () => service?.stats() ?? {},
      bar: () => this.bar.ids(),
      appearances: () => this.appearances.list(),
    };
  }

  /** One-tab items live in this browser's localStorage (per world: its name and seed), checked when read back like any stored state. */
  private keep(items: LocalItems): void {
    const key = `voxel-populi/items/${storeScope(this.p.cfg.world, this.p.cfg.seed)}`;
    try {
      const kept = v.safeParse(keptSchema, JSON.parse(localStorage.getItem(key) ?? '[]'));
      if (kept.success) items.restore(kept.output);
    } catch {
      // unreadable: start empty
    }
    let last = '';
    const save = () => {
      const now = JSON.stringify(items.states());
      if (now === last) return;
      last = now;
      try { localStorage.setItem(key, now); } catch { /* full or refused: items stay in memory */ }
    };
    setInterval(save, KEEP_EVERY_MS);
    addEventListener('pagehide', save);
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') save(); });
  }

  /**
   * Once a frame, before drawing: the sky, spawns and walking into items, the models, the
   * bar. `frameMs` is the frame's local time (its requestAnimationFrame time): the frame
   * shows the world at that moment, so an item shows on the first frame whose world time
   * reaches its `at`, in every tab alike, however late this frame's code runs.
   */
  frame(frameMs = performance.now()): void {
    const now = this.worldAt(frameMs);
    this.pacer?.drawn(frameMs, now);
    const fixed = this.p.cfg.dayFraction;
    this.p.view.setWorldTime(fixed === undefined ? now : fixed * TIME_OF_DAY.dayMs);
    const items = this.service;
    if (!items) return;
    const feet = this.feet();
    items.step(feet);
    this.appearances.check(items.inView(feet, VIEW_RADIUS, Infinity), frameMs, now);
    this.p.view.setItems(items.inView(feet, VIEW_RADIUS, now), now);
    const held = items.inventory();
    this.selected = Math.min(this.selected, Math.max(0, held.length - 1));
    this.bar.show(held, this.selected);
  }

  /** What the player holds of the hosts' items, for the signed player record (the one-tab mode's items are this browser's alone: none). */
  held(): HeldItem[] {
    return this.hosted ? (this.service?.inventory() ?? []).map((i) => ({ id: i.id, kind: i.kind })) : [];
  }

  /**
   * At the top of each frame: 'skip' when this frame is to draw nothing, 'due' when an item
   * first shows in it (drawn even past the frame rate limit), else 'draw'. Held just before an
   * item appears, so that a frame falls on its time (play/item-frame-pacer.ts), and when a clock
   * probe round went out (play/probe-frame-gate.ts), but never a frame an item first shows in:
   * skipping that would show the item a frame later than the tabs whose frames are not skipped.
   */
  frameChoice(frameMs = performance.now()): 'skip' | 'due' | 'draw' {
    const pacer = this.pacer;
    if (!pacer) return 'draw';
    const ats = (this.service?.inView(this.feet(), VIEW_RADIUS, Infinity) ?? []).map((i) => i.at);
    const choice = pacer.choose(frameMs, this.worldAt(frameMs), ats);
    if (choice === 'hold') {
      this.probeGate?.beforeFrame(); // a held frame is idle time too
      return 'skip';
    }
    const skip = this.probeGate?.beforeFrame(choice === 'due') ?? false;
    if (skip) pacer.skipped();
    return skip ? 'skip' : choice;
  }

  /** The frame `frameChoice` allowed is not drawn after all (the frame rate limit). */
  notDrawn(): void {
    this.pacer?.skipped();
  }

  /** The world time at local time `frameMs` (a frame's time, at or before now). */
  private worldAt(frameMs: number): number {
    return this.clock.now() - Math.max(0, performance.now() - frameMs);
  }

  /** The keys of the inventory bar (player-controls.ts). */
  readonly keys = {
    dropItem: () => {
      const it = this.service?.inventory()[this.selected];
      if (it) void this.drop(it.id).then((r) => { if (!r.dropped) this.p.onMessage(`Cannot drop the ${it.kind} here (${r.reason})`); });
    },
    nextItem: () => {
      const n = this.service?.inventory().length ?? 0;
      if (n) this.selected = (this.selected + 1) % n;
    },
  };

  private drop(id: string): ReturnType<ItemsApi['drop']> {
    if (!this.service) return Promise.resolve({ dropped: false, reason: 'unknown-item' });
    const f = this.feet();
    const yaw = this.p.session.yaw;
    const x = f.x - Math.sin(yaw) * DROP_AHEAD, z = f.z - Math.cos(yaw) * DROP_AHEAD;
    return this.service.drop(id, { x, y: this.ground(Math.floor(x), Math.floor(z)) ?? f.y, z });
  }

  private feet(): Point {
    const b = this.p.session.body;
    return { x: b.x, y: b.y, z: b.z };
  }

  /** The height one stands at on column (x, z): above its highest solid block; undefined while not loaded. */
  private ground(x: number, z: number): number | undefined {
    const w = this.p.world;
    if (!w.has(chunkOf(x), chunkOf(z))) return undefined;
    for (let y = 255; y > 0; y--) if (SOLID[w.blockAt(x, y, z)] === 1) return y + 1;
    return undefined;
  }
}
