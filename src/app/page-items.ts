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
import type { PageConfig } from './config';
import type { ItemService } from '../play/item-service';
import { groundAt, ItemsNearPlayer } from '../play/items-near-player';
import { ItemAppearances } from '../play/item-appearances';
import type { ProbeFrameGate } from '../play/probe-frame-gate';
import { ItemFramePacer } from '../play/item-frame-pacer';
import { TIME_OF_DAY } from '../render/time-of-day';
import { LocalItems } from '../play/local-items';
import type { ItemsApi } from './voxel-api';
import type { WorldView } from './world-view';
import { storeScope } from '../store/store-scope';

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
  /** The player's side of the hosts' items (network mode). */
  private readonly hosted: PlayerItems | undefined;
  /** What lies in view, what is held and selected, which frames to draw. */
  private readonly near: ItemsNearPlayer;

  constructor(private readonly p: PageItemsParts) {
    const net = p.net;
    const gate = p.probeGate ?? null;
    const pacer = p.view.canvas ? new ItemFramePacer(p.cfg.itemPacing !== false) : null;
    this.clock = new WorldClock({
      local: realClock, base: performance.timeOrigin,
      send: (to, msg) => void net?.wire.send(hexToId(to), msg),
      references: () => this.hosted?.clockReferences() ?? [],
      ...(gate ? { sendAt: (go: () => void) => gate.sendAt(go) } : {}),
    });
    this.clock.start();
    const local = !p.cfg.net || new URL(location.href).searchParams.get('items') === 'local';
    const items = local ? new LocalItems({ seed: p.cfg.seed, self: p.self, clock: this.clock, ground: (x, z) => groundAt(p.world, x, z), rng: seededRandom((Math.random() * 2 ** 32) >>> 0), ...(p.cfg.itemSpawnMs ? { spawnMeanMs: p.cfg.itemSpawnMs } : {}) }) : null;
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
    const appearances = new ItemAppearances(performance.timeOrigin, p.view.canvas !== null);
    const near = (this.near = new ItemsNearPlayer({ service, world: p.world, session: p.session, appearances, pacer, probeGate: gate }));
    this.api = {
      mode: items ? 'local' : this.hosted ? 'hosted' : 'off',
      inView: () => near.inView(),
      inventory: () => service?.inventory() ?? [],
      item: (id) => service?.item(id),
      pickUp: (id) => service?.touch(id, near.feet()) ?? Promise.resolve({ taken: false, reason: 'unknown-item' }),
      drop: (id) => near.drop(id),
      clock: () => ({ now: this.clock.now(), ...this.clock.status(), roundsIdle: gate?.rounds.idle ?? 0, roundsLate: gate?.rounds.late ?? 0, roundsDeferred: gate?.deferred ?? 0, framesHeld: pacer?.held ?? 0 }),
      spawnNow: () => items?.spawnNow(near.feet()),
      stats: () => service?.stats() ?? {},
      bar: () => this.bar.ids(),
      appearances: () => appearances.list(),
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
    const fixed = this.p.cfg.dayFraction;
    this.p.view.setWorldTime(fixed === undefined ? now : fixed * TIME_OF_DAY.dayMs);
    const shows = this.near.step(frameMs, now);
    if (!shows) return;
    this.p.view.setItems(shows.shown, now);
    this.bar.show(shows.held, shows.selected);
  }

  /** What the player holds of the hosts' items, for the signed player record (the one-tab mode's items are this browser's alone: none). */
  held(): HeldItem[] {
    return this.hosted ? (this.service?.inventory() ?? []).map((i) => ({ id: i.id, kind: i.kind })) : [];
  }

  /** At the top of each frame: whether to draw it (play/items-near-player.ts `frameChoice`). */
  frameChoice(frameMs = performance.now()): 'skip' | 'due' | 'draw' {
    return this.near.frameChoice(frameMs, this.worldAt(frameMs));
  }

  /** The frame `frameChoice` allowed is not drawn after all (the frame rate limit). */
  notDrawn(): void {
    this.near.notDrawn();
  }

  /** The world time at local time `frameMs` (a frame's time, at or before now). */
  private worldAt(frameMs: number): number {
    return this.clock.now() - Math.max(0, performance.now() - frameMs);
  }

  /** The keys of the inventory bar (player-controls.ts). */
  readonly keys = {
    dropItem: () => {
      const it = this.near.selectedItem();
      if (it) void this.near.drop(it.id).then((r) => { if (!r.dropped) this.p.onMessage(`Cannot drop the ${it.kind} here (${r.reason})`); });
    },
    nextItem: () => this.near.selectNext(),
  };
}
