// The page's items in network mode: what the region hosts decided, seen through the player's
// side of the wiring (play/player-items.ts). Walking into an item sends a claim to the hosts of
// its region and the vote decides; a drop goes to the region's primary. Spawns are the hosts'
// alone (no `spawnNow` here). The frame loop, the inventory bar, the models and
// window.voxel.items read this through ItemService, as they read the one-tab mode.
import { PICKUP_REACH } from '../agree/item-ledger';
import type { PlayerItems } from './player-items';
import { itemInfo, type DropOutcome, type ItemInfo, type ItemService, type PickupOutcome, type Point } from './item-service';

export class NetworkItems implements ItemService {
  /** Items whose claim is under way (walking through one claims it once, not every frame). */
  private readonly claiming = new Set<string>();

  constructor(
    private readonly items: PlayerItems,
    readonly self: string,
    private readonly worldNow: () => number,
  ) {}

  inView(p: Point, radius: number, worldMs = this.worldNow()): ItemInfo[] {
    return this.items.onGround(worldMs).filter((i) => Math.hypot(i.x - p.x, i.z - p.z) <= radius).map(itemInfo);
  }

  inventory(): ItemInfo[] {
    const recorded = this.items.recordedHeld().map((h): ItemInfo => ({ id: h.id, kind: h.kind, x: NaN, y: NaN, z: NaN, owner: this.self, at: NaN, recorded: true }));
    return [...this.items.inventory().map(itemInfo), ...recorded];
  }

  item(id: string): ItemInfo | undefined {
    const it = this.items.latest(id);
    return it && itemInfo(it);
  }

  async touch(id: string, p: Point): Promise<PickupOutcome> {
    const it = () => this.items.latest(id);
    const before = it();
    if (!before) return { taken: false, reason: 'unknown-item' };
    if (before.owner !== null) return { taken: false, reason: 'owned' };
    if (before.at > this.worldNow()) return { taken: false, reason: 'not-yet-shown' };
    this.claiming.add(id);
    try {
      const mine = await this.items.claim(id, p);
      const now = it();
      if (mine && now) return { taken: true, item: itemInfo(now) };
      return { taken: false, reason: now?.owner ? 'owned' : 'undecided' };
    } finally {
      this.claiming.delete(id);
    }
  }

  async drop(id: string, p: Point): Promise<DropOutcome> {
    const held = this.items.inventory().find((i) => i.id === id);
    // Held per the player's record only: its region has not answered, so there is nowhere to drop it yet.
    if (!held) return { dropped: false, reason: this.items.recordedHeld().some((h) => h.id === id) ? 'unknown-item' : 'not-owner' };
    const ok = await this.items.drop(id, p);
    const now = this.items.latest(id);
    // Not taken: no primary answered (here, or the item's region for a carry), or it refused.
    return ok && now ? { dropped: true, item: itemInfo(now) } : { dropped: false, reason: 'outside-area' };
  }

  step(p: Point): void {
    this.items.standAt(p.x, p.z);
    for (const it of this.items.onGround(this.worldNow())) {
      if (this.claiming.has(it.id)) continue;
      if ((it.x - p.x) ** 2 + (it.y - p.y) ** 2 + (it.z - p.z) ** 2 <= PICKUP_REACH ** 2) void this.touch(it.id, p);
    }
  }

  stats(): Record<string, number> {
    return this.items.counters();
  }
}
