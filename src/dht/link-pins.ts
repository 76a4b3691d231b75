// Which peers our application asked to keep a direct link to (pinned: a player's region
// primaries, a primary's backups and subscribers), by peer id and by who asked. A pin belongs
// to the peer, not to one link object: when both ends dial at once the duplicate rule keeps
// one link and drops the other (link-set.ts), and when the other end retired the link we
// pinned before the survivor opened, a pin held on the link object was lost with it (the
// hosting simulation at 60 peers: a primary's links to its subscribers opened unpinned and
// were retired for the budget within 100 ms). Owners: a pin stays while anyone holds it, so a
// host sweeping its pins does not unpin the primary its own player is attached to.
// At most `maxPinned` peers are pinned: past it a new pin is refused (counted) and the link,
// if any, stays the budget's to keep or retire.
export class LinkPins {
  /** Peer (hex) -> who pinned it. */
  private readonly owners = new Map<string, Set<string>>();

  constructor(private readonly maxPinned: number) {}

  get size(): number {
    return this.owners.size;
  }

  has(hex: string): boolean {
    return this.owners.has(hex);
  }

  /** Pins `hex` for `owner`; false (nothing pinned) when it is not pinned yet and `maxPinned` peers are. */
  pin(hex: string, owner: string): boolean {
    const have = this.owners.get(hex);
    if (have) {
      have.add(owner);
      return true;
    }
    if (this.owners.size >= this.maxPinned) return false;
    this.owners.set(hex, new Set([owner]));
    return true;
  }

  /** `owner` lets go of `hex`; true when nobody pins it any more. */
  unpin(hex: string, owner: string): boolean {
    const have = this.owners.get(hex);
    if (!have) return true;
    have.delete(owner);
    if (have.size > 0) return false;
    this.owners.delete(hex);
    return true;
  }
}
