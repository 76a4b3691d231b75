// Pins by peer and owner (link-pins.ts), and what they fix in the link set: the surviving
// link of a pair both ends dialled at once is pinned at both ends, whichever link survived.
import { describe, expect, it } from 'vitest';
import { compareDistance, idToHex, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { MemoryLink, type LinkMedium } from '../net/memory-link';
import { LINK_BUDGET_DEFAULTS } from './link-budget';
import { LinkPins } from './link-pins';
import { LINK_LIMIT_DEFAULTS, LinkSet } from './link-set';
import { newStats } from './stats';

const LATENCY = 20;

describe('LinkPins', () => {
  it('a peer stays pinned while any owner holds it; past maxPinned a new peer is refused, a pinned one still takes owners', () => {
    const pins = new LinkPins(2);
    expect(pins.pin('a', 'play')).toBe(true);
    expect(pins.pin('a', 'host')).toBe(true);
    expect(pins.pin('b', 'host')).toBe(true);
    expect(pins.pin('c', 'play')).toBe(false);
    expect(pins.has('c')).toBe(false);
    expect(pins.pin('b', 'play')).toBe(true);
    expect(pins.unpin('a', 'host')).toBe(false);
    expect(pins.has('a')).toBe(true);
    expect(pins.unpin('a', 'play')).toBe(true);
    expect(pins.has('a')).toBe(false);
    expect(pins.pin('c', 'play')).toBe(true);
    expect(pins.size).toBe(2);
  });
});

describe('LinkSet pins', () => {
  it('both ends pin and dial at once: the link that survives the duplicate rule is pinned at both ends', async () => {
    const clock = new VirtualClock();
    const medium: LinkMedium = { clock, delay: (base) => base, reachable: () => true, count: () => {}, countDrop: () => {} };
    const rand = seededRandom(5);
    let [lo, hi] = [randomId(rand), randomId(rand)];
    if (compareDistance(lo, hi, new Uint8Array(lo.length)) > 0) [lo, hi] = [hi, lo];
    const set = (self: typeof lo) => new LinkSet(self, clock, newStats(), { ...LINK_BUDGET_DEFAULTS, ...LINK_LIMIT_DEFAULTS }, { onMessage: () => {}, onRoute: () => {}, onOpen: () => {}, onClose: () => {} }, 1000);
    const link = (from: typeof lo, to: typeof lo): [MemoryLink, MemoryLink] => {
      const [x, y] = [new MemoryLink(from, to, medium, LATENCY), new MemoryLink(to, from, medium, LATENCY)];
      x.peer = y;
      y.peer = x;
      return [x, y];
    };
    const [L, H] = [set(lo), set(hi)];
    // The lower id is a player pinning its region's primary; the higher, that primary pinning its subscriber.
    L.pin(idToHex(hi), 'play');
    H.pin(idToHex(lo), 'host');
    const [lOut, hIn] = link(lo, hi);
    const [hOut, lIn] = link(hi, lo);
    // The primary's dial opens first at both ends; the player's own dial opens at the player,
    // who keeps the link the lower id dialled and lets the primary's go (CLOSING).
    expect(H.attach(hOut, true)).toBe(true);
    expect(L.attach(lOut, true)).toBe(true);
    expect(L.attach(lIn, false)).toBe(false);
    await clock.advance(2 * LATENCY);
    // The primary heard CLOSING on the link it dialled before the player's reached it.
    expect(H.get(idToHex(lo))).toBeUndefined();
    expect(H.attach(hIn, false)).toBe(true);
    expect(H.get(idToHex(lo))?.pinned).toBe(true);
    expect(L.get(idToHex(hi))?.pinned).toBe(true);
    // The primary's host work lets go: the link is the budget's again.
    H.unpin(idToHex(lo), 'host');
    expect(H.get(idToHex(lo))?.pinned).toBe(false);
  });
});
