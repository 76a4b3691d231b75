// The first hop of our own routed requests (overlay-router.ts): a retry (`detour` > 0)
// leaves by a link none of the earlier requests to that destination took.
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { DHT_DEFAULTS } from './dht-options';
import type { LinkSet, PeerLink } from './link-set';
import { dhtCodec } from './messages';
import { OverlayRouter } from './overlay-router';
import { newStats } from './stats';

/** A 20-byte id whose first byte is `b` (the rest zero). */
const id = (b: number): NodeId => {
  const x = new Uint8Array(20);
  x[0] = b;
  return x;
};

function router(linkIds: NodeId[]) {
  const map = new Map<string, PeerLink>();
  for (const l of linkIds) map.set(idToHex(l), { id: l, hex: idToHex(l) } as PeerLink);
  const sentBy: string[] = [];
  const links = { map, get: (hex: string) => map.get(hex), sendFrame: (pl: PeerLink) => (sentBy.push(pl.hex), true) } as unknown as LinkSet;
  const r = new OverlayRouter(id(0), idToHex(id(0)), links, newStats(), { ...DHT_DEFAULTS, wallNow: () => 0 }, () => {});
  return { r, sentBy };
}

describe('OverlayRouter first hops', () => {
  it('a retry leaves by a first hop no earlier request to that destination took', () => {
    // Target 0x80; an informer of it 0xc0; links 0x81 (best toward the target), 0xc1 (best
    // toward the informer, then 0x81) and 0x20.
    const target = id(0x80);
    const informer = id(0xc0);
    const { r, sentBy } = router([id(0x81), id(0xc1), id(0x20)]);
    const ask = () => dhtCodec.encode({ t: 'FIND_NODE', r: 1, target });
    r.send(target, ask(), [], 0); // plain routing: the best link toward the target
    r.send(target, ask(), [informer], 1); // through the informer: its best link is untried
    r.send(target, ask(), [informer], 2); // its next-best (0x81) was tried: the one left
    r.send(target, ask(), [], 3); // all tried: round and round
    expect(sentBy.slice(0, 3)).toEqual([idToHex(id(0x81)), idToHex(id(0xc1)), idToHex(id(0x20))]);
    expect(sentBy).toHaveLength(4);
    // Another destination starts afresh.
    r.send(informer, ask(), [], 1);
    expect(sentBy[4]).toBe(idToHex(id(0xc1)));
  });
});
