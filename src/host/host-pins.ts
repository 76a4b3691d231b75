// Which peers a host pins its links to (dht/link-pins.ts), and which go first when it wants
// more than its share of the node's pins. A primary pins its backups and its subscribers
// (their EDITs come to it, its PENDINGs go to them: routed, each costs a hop or more); the
// node's pins are bounded (`maxPinnedLinks`, 64), and its own player
// pins the primaries of the regions it sees. First come, first pinned, a busy primary (of two
// or three regions of ~18 subscribers) filled the node's pins with whoever subscribed first,
// mostly players looking in from next door, and refused the player who then walked in and
// edited: its EDIT came routed, and each of the ~14 observers of that edit drew it late (the
// 300-peer simulation: 18 of the 46 samples drawn later than 150 ms, all routed EDITs;
// docs/HOSTING.md "Which links are pinned"). An edit's first leg is every observer's; a
// PENDING's leg is one observer's. So pins go by rank: the backups, then the players near
// enough to edit here, then the rest; a better rank takes the place of the worst held when
// the host's share is full.
import { idToHex, type NodeId } from '../core/node-id';
import { REGION_BLOCKS, type RegionCoord } from '../region/region-key';

/** Lower goes first. */
export const PIN_RANK = {
  /** A backup of a region we are primary of. */
  backup: 0,
  /** A subscriber standing in a region we are primary of, or near enough to edit in it. */
  editor: 1,
  /** Any other subscriber (looking in from next door), or one of a backup's share. */
  watcher: 2,
} as const;
export type PinRank = (typeof PIN_RANK)[keyof typeof PIN_RANK];

/** How far outside a region a player may still edit in it, in blocks: its reach (6, play/player-session.ts) and a step. */
export const EDIT_NEAR_BLOCKS = 8;

/** A subscriber's rank: an editor when it stands in the region, or within EDIT_NEAR_BLOCKS of it (`at`: where it was last heard of, if lately). */
export function subscriberRank(region: RegionCoord, at: { x: number; z: number } | undefined): PinRank {
  if (!at) return PIN_RANK.watcher;
  const out = (v: number, r: number) => Math.max(r * REGION_BLOCKS - v, v - (r + 1) * REGION_BLOCKS, 0);
  return Math.max(out(at.x, region.rx), out(at.z, region.rz)) <= EDIT_NEAR_BLOCKS ? PIN_RANK.editor : PIN_RANK.watcher;
}

export interface PinWant {
  id: NodeId;
  rank: PinRank;
}

export interface PinLinks {
  connect(id: NodeId): void;
  unpin(id: NodeId): void;
}

export class HostPins {
  /** Peers we pinned (hex -> id and rank). */
  private readonly held = new Map<string, PinWant>();
  constructor(
    private readonly links: PinLinks,
    /** The host's share of the node's pins: the rest is its player's (host-options.ts `maxHostPins`). */
    private readonly max: number,
  ) {}

  get size(): number {
    return this.held.size;
  }

  has(hex: string): boolean {
    return this.held.has(hex);
  }

  rankOf(hex: string): PinRank | undefined {
    return this.held.get(hex)?.rank;
  }

  /** Wants `id` pinned at `rank`: now if there is room, or in place of the worst-ranked pin held when that is worse. */
  want(id: NodeId, rank: PinRank): void {
    const hex = idToHex(id);
    const have = this.held.get(hex);
    if (have) {
      if (rank < have.rank) have.rank = rank;
      return;
    }
    if (this.held.size >= this.max) {
      const worst = this.worst();
      if (!worst || worst[1].rank <= rank) return; // the sweep pins it when there is room
      this.drop(worst[0], worst[1]);
    }
    this.held.set(hex, { id, rank });
    this.links.connect(id);
  }

  /** The sweep: the best-ranked `max` of `wanted` stay pinned (held ones first among equals), the rest are let go. */
  keepOnly(wanted: ReadonlyMap<string, PinWant>): void {
    const order = [...wanted].sort(([ha, a], [hb, b]) => a.rank - b.rank || Number(this.held.has(hb)) - Number(this.held.has(ha)));
    const keep = new Map(order.slice(0, this.max));
    for (const [hex, w] of [...this.held]) if (!keep.has(hex)) this.drop(hex, w);
    for (const [hex, w] of keep) {
      const have = this.held.get(hex);
      if (have) have.rank = w.rank;
      else {
        this.held.set(hex, { id: w.id, rank: w.rank });
        this.links.connect(w.id);
      }
    }
  }

  private worst(): [string, PinWant] | undefined {
    let worst: [string, PinWant] | undefined;
    for (const e of this.held) if (!worst || e[1].rank > worst[1].rank) worst = e;
    return worst;
  }

  private drop(hex: string, w: PinWant): void {
    this.held.delete(hex);
    this.links.unpin(w.id);
  }
}
