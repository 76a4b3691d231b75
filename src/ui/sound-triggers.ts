// When the pick-up and chat sounds play, as plain arithmetic (tested without a browser): a
// pick-up when an item the player did not hold before is in its inventory (the hosts
// confirmed the claim), never for what it held when the page started; a chat blip for a
// line from another player (not the player's own), at most one per CHAT_BLIP_GAP_MS so a
// burst of lines is one blip, not a buzz.

/** The least time between two chat blips (ms). */
export const CHAT_BLIP_GAP_MS = 400;

/** Watches what the player holds and says when an item was newly picked up. */
export class PickupWatch {
  private held: Set<string> | null = null;

  /** The ids held now: true when one of them was not held at the last look (not at the first look). */
  update(ids: Iterable<string>): boolean {
    const now = new Set(ids);
    const before = this.held;
    this.held = now;
    if (!before) return false;
    for (const id of now) if (!before.has(id)) return true;
    return false;
  }
}

/** Says whether a chat line that arrives now blips. */
export class ChatBlipGate {
  private last = -Infinity;

  /** A line arrived at `nowMs`, said by this player (`own`) or another: true when it blips. */
  arrived(own: boolean, nowMs: number): boolean {
    if (own || nowMs - this.last < CHAT_BLIP_GAP_MS) return false;
    this.last = nowMs;
    return true;
  }
}
