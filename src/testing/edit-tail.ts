// Where a slow edit-to-visible sample's time went (hosting-scale-sim.ts): the simulation
// watches the frames themselves. For each edit, when its EDIT first reached a host (the
// editor's half: its client's queue, attach and pass waits, the link to the primary) and,
// per observer, the first frame that carried it (PENDING, DELTA, a delta riding in
// POSITIONS, or a SNAPSHOT), from whom, and whether over a direct link or routed through
// other peers. A sample drawn later than `slowMs` is put down to the first of: the edit
// reached its primary late; no pending frame reached the observer before the commit; the
// pending frame came late (routed, or a host other than the primary relaying it).
import { columnIndex, regionName } from '../region/region-key';
import { entryKey, tryDecodeEntries } from '../region/region-state';
import type { HostToPlayer, PlayerToHost } from '../region/subscription-messages';
import { chunkOf, localOf } from '../world/coords';
import type { SimPeer } from './host-sim';
import { dist, type Dist } from './sample-dist';
import { LINK_BUDGET_DEFAULTS } from '../dht/link-budget';

interface Carried {
  at: number;
  kind: string;
  direct: boolean;
  fromPrimary: boolean;
  /** Routed: which end lacked a pin on the other, and how long the observer had been attached there. */
  why?: string;
}

export interface EditTailFigures {
  /** Samples drawn later than slowMs, and what made each slow (the first that applies). */
  slow: number;
  editorLate: number;
  /** Of editorLate: its EDIT came to the primary routed. */
  editorRouted: number;
  /** Of editorRouted: whose pin was missing when the EDIT came (`primary pins full`, `editor unpinned`...). */
  editorRoutedWhy: Record<string, number>;
  noPending: number;
  pendingRouted: number;
  /** Of pendingRouted: whose pin was missing (`host unpinned`, `observer pins full`...) and the observer's time attached to that region (`< 1 s`, `1-5 s`, `> 5 s`). */
  pendingRoutedWhy: Record<string, number>;
  pendingRelayed: number;
  pendingLate: number;
  other: number;
  /** Submit to the EDIT's arrival at a host, per edit. */
  toPrimaryMs: Dist;
  /** That arrival to the observer's first frame carrying it, per sample. */
  fanOutMs: Dist;
  /** The first frames that carried an edit to an observer, by kind and link (`PENDING direct`...). */
  firstFrames: Record<string, number>;
}

export class EditTail {
  private readonly arrived = new Map<string, number>();
  /** Edits whose EDIT came to its host routed (the editor held no link to it), and whose pin was missing then. */
  private readonly arrivedRouted = new Map<string, string>();
  private readonly peers = new Map<string, SimPeer>();
  private readonly routedWhy: Record<string, number> = {};
  private readonly pendingWhy: Record<string, number> = {};
  /** `observer hex|region` -> when it last attached there. */
  private readonly attachedAt = new Map<string, number>();
  private readonly carried = new Map<string, Carried>();
  private readonly toPrimary: number[] = [];
  private readonly fanOut: number[] = [];
  private readonly firstFrames: Record<string, number> = {};
  private readonly counts = { slow: 0, editorLate: 0, editorRouted: 0, noPending: 0, pendingRouted: 0, pendingRelayed: 0, pendingLate: 0, other: 0 };

  constructor(
    private readonly now: () => number,
    /** Edits of interest: `region|key|id` -> submitted at. */
    private readonly watching: (k: string) => boolean,
    private readonly slowMs = 150,
    private readonly oneWayMs = 50,
  ) {}

  /** Watches what `peer` receives (as a host: EDITs; as a player: frames carrying edits). */
  watch(peer: SimPeer): () => void {
    this.peers.set(peer.hex, peer);
    const off = peer.client.events.on('attached', ({ region }) => this.attachedAt.set(`${peer.hex}|${regionName(region)}`, this.now()));
    const offFrames = peer.wire.players.events.on('frame', ({ fromHex, msg }) => this.onFrame(peer, fromHex, msg));
    return () => {
      off();
      offFrames();
    };
  }

  private onFrame(peer: SimPeer, fromHex: string, m: HostToPlayer | PlayerToHost): void {
    const now = this.now();
    if (m.t === 'EDIT') {
      const k = `${regionName(m)}|${entryKey(columnIndex(chunkOf(m.x), chunkOf(m.z)), localOf(m.x), m.y, localOf(m.z))}|${m.id}`;
      if (this.watching(k) && !this.arrived.has(k)) {
        this.arrived.set(k, now);
        if (!peer.dht.links.get(fromHex)) this.arrivedRouted.set(k, this.whyRouted(peer, fromHex));
      }
      return;
    }
    if (m.t !== 'PENDING' && m.t !== 'DELTA' && m.t !== 'SNAPSHOT' && m.t !== 'POSITIONS') return;
    // A POSITIONS frame may carry a batch pending and a delta (the pending one is read first).
    const carried = m.t === 'POSITIONS' ? [{ kind: 'PENDING riding', bytes: m.p?.[2] }, { kind: 'DELTA riding', bytes: m.d?.[2] }] : [{ kind: m.t, bytes: m.entries }];
    const primary = peer.client.attachment(m);
    for (const { kind, bytes } of carried) {
      if (!bytes) continue;
      const direct = !!peer.dht.links.get(fromHex);
      const c: Carried = { at: now, kind, direct, fromPrimary: primary?.primary === fromHex };
      if (!direct) {
        const host = this.peers.get(fromHex);
        const since = now - (this.attachedAt.get(`${peer.hex}|${regionName(m)}`) ?? -Infinity);
        c.why = `${host ? this.whyRouted(host, peer.hex, ['host', 'observer']) : 'host unknown'}; attached ${since < 1000 ? '< 1 s' : since < 5000 ? '1-5 s' : '> 5 s'}`;
      }
      for (const e of tryDecodeEntries(bytes) ?? []) {
        const k = `${regionName(m)}|${e.key}|${e.id}`;
        if (!this.watching(k)) continue;
        const ck = `${k}|${peer.hex}`;
        if (!this.carried.has(ck)) this.carried.set(ck, c);
      }
    }
  }

  /** Why a frame between `primary` and `editorHex` came routed: which end had no pin on the other, and why (`names`: what to call the two ends). */
  private whyRouted(primary: SimPeer, editorHex: string, names: readonly [string, string] = ['primary', 'editor']): string {
    const editor = this.peers.get(editorHex);
    const full = (p: SimPeer) => p.dht.links.pins.size >= LINK_BUDGET_DEFAULTS.maxPinnedLinks;
    const end = (p: SimPeer | undefined, other: string, name: string) => !p ? `${name} unknown` : p.dht.links.pins.has(other) ? '' : full(p) ? `${name} pins full` : `${name} unpinned`;
    const why = [end(primary, editorHex, names[0]), end(editor, primary.hex, names[1])].filter((x) => x);
    return why.length > 0 ? why.join(', ') : 'both pinned, no link';
  }

  /** An edit's first observer sample is in: its editor's half. */
  edit(k: string, submittedAt: number): void {
    const a = this.arrived.get(k);
    if (a !== undefined) this.toPrimary.push(a - submittedAt);
  }

  /** One observer's sample: drawn `drawnMs` after the submit at `submittedAt`. */
  sample(k: string, observerHex: string, submittedAt: number, drawnMs: number): void {
    const a = this.arrived.get(k);
    const c = this.carried.get(`${k}|${observerHex}`);
    this.carried.delete(`${k}|${observerHex}`);
    if (c) {
      const name = `${c.kind} ${c.direct ? 'direct' : 'routed'}${c.fromPrimary ? '' : ' by a backup'}`;
      this.firstFrames[name] = (this.firstFrames[name] ?? 0) + 1;
      if (a !== undefined) this.fanOut.push(c.at - a);
    }
    if (drawnMs <= this.slowMs) return;
    const n = this.counts;
    n.slow++;
    if (a === undefined || a - submittedAt > 2 * this.oneWayMs) {
      n.editorLate++;
      const why = this.arrivedRouted.get(k);
      if (why !== undefined) {
        n.editorRouted++;
        this.routedWhy[why] = (this.routedWhy[why] ?? 0) + 1;
      }
    }
    else if (!c || !c.kind.startsWith('PENDING')) n.noPending++;
    else if (!c.direct) {
      n.pendingRouted++;
      if (c.why) this.pendingWhy[c.why] = (this.pendingWhy[c.why] ?? 0) + 1;
    }
    else if (!c.fromPrimary) n.pendingRelayed++;
    else if (c.at - a > 2 * this.oneWayMs) n.pendingLate++;
    else n.other++;
  }

  /** The edit is settled: forget it. */
  done(k: string): void {
    this.arrived.delete(k);
    this.arrivedRouted.delete(k);
  }

  figures(): EditTailFigures {
    return { ...this.counts, editorRoutedWhy: { ...this.routedWhy }, pendingRoutedWhy: { ...this.pendingWhy }, toPrimaryMs: dist(this.toPrimary), fanOutMs: dist(this.fanOut), firstFrames: { ...this.firstFrames } };
  }
}

