// The adversary kit's hostile anchored primary: a region's real primary, its certificate
// granted by a majority of its set and anchored for every reader, whose tab runs other code.
// No certificate check can refuse what it sends, so what it may write is bounded only by the
// world's rules, which every reader holds each entry to (region-state.ts obeysWorldRules):
// it sends its subscribers and the DHT entries no edit could make (AIR at the unbreakable
// floor, blocks no player may place) beside one that obeys them, so a reader that took the
// frame at all shows the one and must show none of the others.
import { idToHex, type NodeId } from '../core/node-id';
import type { RegionCoord } from '../region/region-key';
import { putEdits } from '../region/region-records';
import { encodeEntries, entryKey, type Entry } from '../region/region-state';
import { AIR, BEDROCK, STONE, WATER } from '../world/blocks';
import { WORLD_FLOOR_Y } from '../world/coords';
import { simKeyHash, type HostSim, type SimPeer } from './host-sim';

/** A frame's worth of entries stamped `e`, seqs `s`..`s + 3`: three against the world's rules, then one within them. */
export function ruleBreakers(e: number, s: number): { against: Entry[]; fit: Entry; all: Entry[] } {
  const col = 0;
  const against: Entry[] = [
    { key: entryKey(col, 3, WORLD_FLOOR_Y, 3), id: AIR, e, s },
    { key: entryKey(col, 4, 90, 4), id: WATER, e, s: s + 1 },
    { key: entryKey(col, 5, 91, 5), id: BEDROCK, e, s: s + 2 },
  ];
  const fit: Entry = { key: entryKey(col, 6, 92, 6), id: STONE, e, s: s + 3 };
  return { against, fit, all: [...against, fit] };
}

/** The region's certified primary in `sim`, played hostile: it writes, sends and publishes what it likes. */
export function hostilePrimary(sim: HostSim, r: RegionCoord) {
  const peer: SimPeer = sim.primaryOf(r)!;
  const region = peer.host.regionState(r)!;
  const e = region.epoch;
  return {
    peer,
    e,
    /** Entries into its own state, as if committed: its SNAPSHOTs carry them. */
    plant(entries: Entry[]): void {
      region.state.merge(entries);
    },
    /** A DELTA of its epoch, seqs `from`.. (one per entry), on its own link to `to`. */
    delta(to: NodeId, from: number, entries: Entry[]): void {
      peer.wire.players.send(to, { t: 'DELTA', rx: r.rx, rz: r.rz, e, from, to: from + entries.length - 1, entries: encodeEntries(entries) });
    },
    /** A PENDING of its epoch, likewise. */
    pending(to: NodeId, from: number, entries: Entry[]): void {
      peer.wire.players.send(to, { t: 'PENDING', rx: r.rx, rz: r.rz, e, from, to: from + entries.length - 1, entries: encodeEntries(entries) });
    },
    /** Its region's edit log in the DHT, signed under its certificate, holding `entries` beside its state. */
    publish(entries: Entry[]): Promise<number> {
      const all = [...region.state.all(), ...entries];
      const top = all.reduce((v, x) => (x.e > v.e || (x.e === v.e && x.s > v.s) ? { e: x.e, s: x.s } : v), { e: 0, s: 0 });
      return putEdits(peer.dht, region.key, { signer: sim.keyring.signer(peer.dht.selfId), cert: region.cert! }, top, all, simKeyHash);
    },
    hex: idToHex(peer.dht.selfId),
  };
}
