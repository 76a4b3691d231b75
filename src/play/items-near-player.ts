// The items around the player and in its hands, as a page shows them, with no page: what lies
// in view, which held item is selected (the inventory bar's: Q drops it, E selects the next),
// where a dropped item lands, what each frame steps and shows, and which frames a drawing page
// draws around an item's appearance. app/page-items.ts wires it to the page (the world clock,
// the sky, the item models, the bar, window.voxel.items).
import { SOLID } from '../world/blocks';
import { chunkOf } from '../world/coords';
import type { ItemAppearances } from './item-appearances';
import type { ItemFramePacer } from './item-frame-pacer';
import type { DropOutcome, ItemInfo, ItemService, Point } from './item-service';
import type { ProbeFrameGate } from './probe-frame-gate';
import type { WorldModel } from './world-model';

/** Items within this many blocks are drawn and listed. */
export const VIEW_RADIUS = 48;
/** A dropped item lands this far ahead of the player (out of reach, so it is not taken straight back). */
const DROP_AHEAD = 3;

/** The height one stands at on column (x, z) of `world`: above its highest solid block; undefined while not loaded. */
export function groundAt(world: WorldModel, x: number, z: number): number | undefined {
  if (!world.has(chunkOf(x), chunkOf(z))) return undefined;
  for (let y = 255; y > 0; y--) if (SOLID[world.blockAt(x, y, z)] === 1) return y + 1;
  return undefined;
}

export interface ItemsNearPlayerParts {
  /** Whoever keeps the items (null: no items on this page). */
  service: ItemService | null;
  world: WorldModel;
  /** The player (a PlayerSession): where its feet are, which way it faces. */
  session: { readonly body: Point; readonly yaw: number };
  /** When each item first showed here (the spawn-skew figure). */
  appearances: ItemAppearances;
  /** A drawing page's frames around an item's appearance (null: the page draws nothing). */
  pacer: ItemFramePacer | null;
  /** A drawing page's clock probe rounds go out at the top of a frame it skips (null: the page draws nothing). */
  probeGate: ProbeFrameGate | null;
}

/** What one frame shows: the items lying in view by its world time, what is held and which of it is selected. */
export interface ItemsFrame {
  shown: ItemInfo[];
  held: ItemInfo[];
  selected: number;
}

export class ItemsNearPlayer {
  private selected = 0;

  constructor(private readonly p: ItemsNearPlayerParts) {}

  feet(): Point {
    const b = this.p.session.body;
    return { x: b.x, y: b.y, z: b.z };
  }

  /** Items lying within VIEW_RADIUS, shown by world time `worldMs` (the service's now when absent; Infinity: also those announced). */
  inView(worldMs?: number): ItemInfo[] {
    return this.p.service?.inView(this.feet(), VIEW_RADIUS, worldMs) ?? [];
  }

  /**
   * Once a frame at local time `frameMs`, world time `now` (before drawing): spawns and walking
   * into items, appearances noted; null without items.
   */
  step(frameMs: number, now: number): ItemsFrame | null {
    this.p.pacer?.drawn(frameMs, now);
    const items = this.p.service;
    if (!items) return null;
    const feet = this.feet();
    items.step(feet);
    this.p.appearances.check(items.inView(feet, VIEW_RADIUS, Infinity), frameMs, now);
    const shown = items.inView(feet, VIEW_RADIUS, now);
    const held = items.inventory();
    this.selected = Math.min(this.selected, Math.max(0, held.length - 1));
    return { shown, held, selected: this.selected };
  }

  /**
   * At the top of each frame (local time `frameMs`, world time `now`): 'skip' when this frame
   * is to draw nothing, 'due' when an item first shows in it (drawn even past the frame rate
   * limit), else 'draw'. Held just before an item appears, so that a frame falls on its time
   * (item-frame-pacer.ts), and when a clock probe round went out (probe-frame-gate.ts), but
   * never a frame an item first shows in: skipping that would show the item a frame later
   * than the tabs whose frames are not skipped.
   */
  frameChoice(frameMs: number, now: number): 'skip' | 'due' | 'draw' {
    const pacer = this.p.pacer;
    if (!pacer) return 'draw';
    const ats = this.inView(Infinity).map((i) => i.at);
    const choice = pacer.choose(frameMs, now, ats);
    if (choice === 'hold') {
      this.p.probeGate?.beforeFrame(); // a held frame is idle time too
      return 'skip';
    }
    const skip = this.p.probeGate?.beforeFrame(choice === 'due') ?? false;
    if (skip) pacer.skipped();
    return skip ? 'skip' : choice;
  }

  /** The frame `frameChoice` allowed is not drawn after all (the frame rate limit). */
  notDrawn(): void {
    this.p.pacer?.skipped();
  }

  /** The held item the bar marks, if any. */
  selectedItem(): ItemInfo | undefined {
    return this.p.service?.inventory()[this.selected];
  }

  /** Marks the next held item (after the last, the first). */
  selectNext(): void {
    const n = this.p.service?.inventory().length ?? 0;
    if (n) this.selected = (this.selected + 1) % n;
  }

  /** Puts held item `id` on the ground DROP_AHEAD blocks ahead of the player. */
  drop(id: string): Promise<DropOutcome> {
    if (!this.p.service) return Promise.resolve({ dropped: false, reason: 'unknown-item' });
    const f = this.feet();
    const yaw = this.p.session.yaw;
    const x = f.x - Math.sin(yaw) * DROP_AHEAD, z = f.z - Math.cos(yaw) * DROP_AHEAD;
    return this.p.service.drop(id, { x, y: groundAt(this.p.world, Math.floor(x), Math.floor(z)) ?? f.y, z });
  }
}
