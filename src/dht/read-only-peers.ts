// Read-only nodes (BEP 43's `ro`, libp2p Kademlia's client mode): a node that looks up,
// gets, puts its own records and links directly, but serves as nobody's contact, holder or
// router: a phone tab, or a player who plays without hosting. It flags every frame it
// sends (`ro: 1`, messages.ts); whoever reads such a frame keeps its sender out of the
// routing table (so out of every NODES answer and every lookup's closest set), passes its
// link over as a hop for anyone but itself (router.ts), and keeps such links outside the
// link budget, under a bound of their own (link-set.ts `setReadOnly`).
//
// A flag is taken only from the frame's own sender, which the link proves (direct frames)
// or the route signature does (routed ones, at the destination): a node can say this of
// itself only, so no flag can make us drop an honest full node. A frame without the flag
// clears it (a tab reloaded with hosting on).

/** Peers remembered as read-only (least recently flagged out first): one per proven sender. */
export const READ_ONLY_PEERS_KEPT = 4096;

/** The peers whose last flaggable frame to us said they are read-only. */
export class ReadOnlyPeers {
  /** Insertion order is recency: the oldest is forgotten first. */
  private readonly peers = new Set<string>();

  constructor(private readonly size = READ_ONLY_PEERS_KEPT) {}

  has(hex: string): boolean {
    return this.peers.has(hex);
  }

  /**
   * What a frame from `hex` said about its sender's mode. Returns 'marked' when the peer
   * became read-only by it, 'cleared' when it stopped being so, else undefined.
   */
  saw(hex: string, readOnly: boolean): 'marked' | 'cleared' | undefined {
    const had = this.peers.delete(hex);
    if (!readOnly) return had ? 'cleared' : undefined;
    this.peers.add(hex);
    if (this.peers.size > this.size) this.peers.delete(this.peers.values().next().value!);
    return had ? undefined : 'marked';
  }
}
