// Which direct links to hold. Links are costly (a WebRTC connection each, docs/DESIGN.md), so a
// node keeps at most `maxLinks` and spends them on covering its k-buckets: first one link
// in every non-empty bucket (so greedy routing always progresses, see router.ts), then a
// second one per bucket for redundancy under churn, up to `softLinks` (leaving headroom
// for inbound links). A link made by a peer covers the same bucket index on both ends
// (XOR is symmetric), so inbound links fill our buckets as much as our own dials.
// Pinned links (peers the application talks to often) are never closed for budget, and are
// not counted in it: they have a bound of their own (`maxPinnedLinks`, link-pins.ts). Counted
// in it, a primary's pins to its backups and subscribers (18-36 in a random walk) took the
// slots of the links that cover its buckets, and our own dials stopped. A pinned link still
// covers its bucket, so the budget dials only what the pins leave uncovered.
import { bucketIndex, type NodeId } from '../core/node-id';
import type { Contact, RoutingTable } from './routing-table';

export interface LinkBudgetOptions {
  /** Hard cap on live unpinned links. Default 32 (docs/DESIGN.md). */
  maxLinks: number;
  /** Our own dials stop at this many links, leaving room for inbound ones. Default 24. */
  softLinks: number;
  /** Links wanted per non-empty bucket. Default 2. */
  linksPerBucket: number;
  /**
   * Peers the application may pin at once (link-pins.ts). Default 64: at 48 (a host's share
   * 36) a primary of two or three busy regions dropped the pins of subscribers looking in
   * from next door, and its PENDINGs to them went routed, late (docs/HOSTING.md "Which links
   * are pinned").
   */
  maxPinnedLinks: number;
  /**
   * Unpinned links to read-only peers held at once (read-only-peers.ts), outside the budget:
   * such a link covers no bucket (nothing is routed through it), so it must not take the
   * place of one that does. Default 32.
   */
  maxReadOnlyLinks: number;
}

export const LINK_BUDGET_DEFAULTS: LinkBudgetOptions = { maxLinks: 32, softLinks: 24, linksPerBucket: 2, maxPinnedLinks: 64, maxReadOnlyLinks: 32 };

/** What the budget of unpinned links reads (the pins have their own bound: link-pins.ts). */
export type LinkCaps = Pick<LinkBudgetOptions, 'maxLinks' | 'softLinks' | 'linksPerBucket'>;

export interface HeldLink {
  readonly id: NodeId;
  readonly hex: string;
  readonly bucket: number;
  pinned: boolean;
  openedAt: number;
  /** Its peer is read-only: outside the budget, covering no bucket (maxReadOnlyLinks). */
  readOnly?: boolean;
}

export interface LinkPlan {
  dial: Contact[];
  close: string[];
}

/** The links the budget counts: pinned ones and read-only peers' have their own bounds. */
function unpinnedCount(links: ReadonlyMap<string, HeldLink>): number {
  let n = 0;
  for (const l of links.values()) if (!l.pinned && !l.readOnly) n++;
  return n;
}

/** Links per bucket they cover: a read-only peer's covers none (no route goes through it). */
function countByBucket(links: Iterable<HeldLink>): Map<number, number> {
  const m = new Map<number, number>();
  for (const l of links) if (!l.readOnly) m.set(l.bucket, (m.get(l.bucket) ?? 0) + 1);
  return m;
}

/**
 * Plans dials (to cover buckets) and closes (when over budget). `busy(hex)` excludes
 * contacts being dialled or backing off; `rand` picks among a bucket's contacts so
 * that not every node dials the same popular peer.
 */
export function planLinks(
  table: RoutingTable,
  links: ReadonlyMap<string, HeldLink>,
  opts: LinkCaps,
  busy: (hex: string) => boolean,
  rand: () => number,
  pendingDials = 0,
): LinkPlan {
  const counts = countByBucket(links.values());
  const dial: Contact[] = [];
  const unpinned = unpinnedCount(links);
  let total = unpinned + pendingDials;
  const buckets = table.nonEmptyBuckets();
  for (let want = 1; want <= opts.linksPerBucket; want++) {
    const cap = want === 1 ? opts.maxLinks : opts.softLinks;
    for (const b of buckets) {
      if (total >= cap) break;
      if ((counts.get(b) ?? 0) >= want) continue;
      const options = table.bucket(b).filter((c) => !links.has(c.hex) && !busy(c.hex) && !dial.includes(c));
      if (options.length === 0) continue;
      dial.push(options[Math.floor(rand() * options.length)]!);
      counts.set(b, (counts.get(b) ?? 0) + 1);
      total++;
    }
  }
  const close: string[] = [];
  let excess = unpinned - opts.maxLinks;
  if (excess > 0) {
    // Oldest redundant links go first: a fresh link may be a newcomer's only one.
    const live = [...links.values()].filter((l) => !l.pinned && !l.readOnly).sort((a, b) => a.openedAt - b.openedAt);
    const c = countByBucket(links.values());
    for (const l of live) {
      if (excess <= 0) break;
      if ((c.get(l.bucket) ?? 0) <= 1) continue;
      close.push(l.hex);
      c.set(l.bucket, c.get(l.bucket)! - 1);
      excess--;
    }
  }
  return { dial, close };
}

/**
 * Decides on an inbound link from `remote`: accept under the cap; at the cap accept it in
 * place of our oldest redundant unpinned link (one in a bucket holding two or more), so a
 * newcomer dialling us as its bootstrap is not turned away while we hold spare links.
 */
export function admitInbound(
  selfId: NodeId,
  remote: NodeId,
  links: ReadonlyMap<string, HeldLink>,
  opts: LinkCaps,
): { accept: boolean; close?: string } {
  if (unpinnedCount(links) < opts.maxLinks) return { accept: true };
  const counts = countByBucket(links.values());
  const b = bucketIndex(selfId, remote);
  counts.set(b, (counts.get(b) ?? 0) + 1);
  let victim: HeldLink | undefined;
  for (const l of links.values()) {
    if (l.pinned || l.readOnly || (counts.get(l.bucket) ?? 0) <= 1) continue;
    if (!victim || l.openedAt < victim.openedAt) victim = l;
  }
  return victim ? { accept: true, close: victim.hex } : { accept: false };
}
