// A hostile peer for browser tests: the Sybil attacker of src/testing/sybil-scenario.ts as
// a real node. It joins through the real relay over real WebRTC with the headless peer's
// stack (node-datachannel, app/headless-peer.ts), but its hosting is stopped at once: it
// answers nothing honestly. It holds keys of its own besides its node identity (extra
// Ed25519 keypairs that are no live nodes) and mints epoch certificates that name whatever
// host set and "previous" set it likes, granted by its own keys only; then it sends them
// where a certificate is believed (CLAIM, HANDOFF, SYNC, OFFER, an unasked SNAPSHOT), puts a
// location record and an edit log under them into the DHT, and answers SUBSCRIBE with a
// SNAPSHOT under them. Or, asked to (`hosting`), it hosts as an honest node does and lies
// only in the rosters it sends players (`rewriteLooks`). Every frame it sends is counted by
// type. Test-only: no product code imports it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHeadlessPeer, type HeadlessPeer } from '../src/app/headless-peer';
import { generateNodeIdentity, identityFromJson, type Identity } from '../src/core/identity';
import { ID_WORK_BITS } from '../src/core/id-work';
import { hexToId, idEquals, idToHex, sortByDistance, type NodeId } from '../src/core/node-id';
import type { Signer } from '../src/core/signer';
import { signGrant, type ClaimTerms, type EpochCert } from '../src/region/epoch-cert';
import { columnIndex, REGION_BLOCKS, regionName, type RegionCoord, type RegionKeys } from '../src/region/region-key';
import { putEdits, putLocation } from '../src/region/region-records';
import { encodeEntries, entryKey, type Entry } from '../src/region/region-state';
import { GLASS } from '../src/world/blocks';
import { chunkOf, localOf } from '../src/world/coords';
import type { ReplicaFrame } from '../src/host/host-wires';
import type { PlayerLook } from '../src/region/player-look';
import { nextReturningPlayer } from './returning-player';

/** Planted blocks are GLASS this high: no honest edit of the test goes there. */
export const PLANTED_Y = 250;

/** `n` planted GLASS blocks spread over region `r`, stamped (e, 1..n): as entries, and as block positions. */
export function plantedBlocks(r: RegionCoord, e: number, n = 32): { entries: Entry[]; at: [number, number, number][] } {
  const at = Array.from({ length: n }, (_, i): [number, number, number] => [r.rx * REGION_BLOCKS + ((i * 5) % REGION_BLOCKS), PLANTED_Y, r.rz * REGION_BLOCKS + ((i * 7) % REGION_BLOCKS)]);
  const entries = at.map(([x, y, z], i) => ({ key: entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), y, localOf(z)), id: GLASS, e, s: i + 1 }));
  return { entries, at };
}

type PlayerFrame = Parameters<HeadlessPeer['net']['wire']['players']['send']>[1];

export interface HostilePeer {
  readonly node: HeadlessPeer;
  readonly id: NodeId;
  readonly hex: string;
  /** Its node key first, then the extra keys (no live nodes). */
  readonly keys: readonly Signer[];
  /** Frames sent so far by type (only those the wire took), SUBSCRIBEs answered, and looks rewritten (`looks rewritten`). */
  readonly sent: Record<string, number>;
  /** A certificate of `terms` for the region `key`, granted by every key of its own that `terms` names. */
  mint(key: NodeId, terms: ClaimTerms): Promise<EpochCert>;
  /** Epoch `e` over its first `n` keys, itself primary, built on a "previous" epoch `e - 1` of the same set. */
  mintAt(key: NodeId, n: number, e: number): Promise<EpochCert>;
  /** Sends a host frame (links to `to` first, so the frame goes direct). */
  toHost(to: NodeId, m: ReplicaFrame): Promise<void>;
  /** Sends a player frame. */
  toPlayer(to: NodeId, m: PlayerFrame): Promise<void>;
  /** A SNAPSHOT of `entries` under `cert`, as a primary of `r` would send it. */
  snapshot(r: RegionCoord, cert: EpochCert, entries: Entry[]): PlayerFrame;
  /** From now on a SUBSCRIBE of `r` is answered with a snapshot of `entries` under `cert`. */
  serve(r: RegionCoord, cert: EpochCert, entries: Entry[]): void;
  /**
   * From now on, as a host, it puts `forge(look)` where a player's look goes in the rosters
   * it sends players (POSITIONS); counted as `looks rewritten`.
   */
  rewriteLooks(forge: (look: PlayerLook, player: NodeId) => PlayerLook): void;
  /** Puts a location record and an edit log of `entries` for the region `key` under `cert` (itself its primary) into the DHT. */
  poisonRecords(key: NodeId, cert: EpochCert, entries: Entry[]): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A region 2 to 5 regions from `x, z` (none the tabs looked at while they loaded at the
 * spawn), not in `used`, whose key has the hostile node (`hostileHex`) farthest of all the
 * nodes (`ids` and it): the tabs alone host it. Added to `used`.
 */
export function regionWithoutAttacker(keys: RegionKeys, x: number, z: number, ids: string[], hostileHex: string, used: Set<string>): Promise<RegionCoord> {
  return regionWhere(keys, x, z, [...ids, hostileHex], used, (order) => order.at(-1) === hostileHex, 'far from');
}

/** As regionWithoutAttacker, but the hostile node is the nearest of all to the key: it is the region's first choice of primary. */
export function regionNearestAttacker(keys: RegionKeys, x: number, z: number, ids: string[], hostileHex: string, used: Set<string>): Promise<RegionCoord> {
  return regionWhere(keys, x, z, [...ids, hostileHex], used, (order) => order[0] === hostileHex, 'nearest to');
}

async function regionWhere(keys: RegionKeys, x: number, z: number, all: string[], used: Set<string>, fits: (order: string[]) => boolean, what: string): Promise<RegionCoord> {
  const rx0 = Math.floor(x / REGION_BLOCKS), rz0 = Math.floor(z / REGION_BLOCKS);
  for (let d = 2; d <= 5; d++) {
    for (let dx = -d; dx <= d; dx++) {
      for (let dz = -d; dz <= d; dz++) {
        const r = { rx: rx0 + dx, rz: rz0 + dz };
        if (Math.max(Math.abs(dx), Math.abs(dz)) !== d || used.has(regionName(r))) continue;
        if (fits(sortByDistance(all, hexToId, await keys.key(r)))) return (used.add(regionName(r)), r);
      }
    }
  }
  throw new Error(`no region near the spawn is ${what} the hostile node`);
}

/** The hostile node's data dir and node identity, made before it joins: a test picks the region it attacks by the id. */
export interface HostileSeat {
  dataDir: string;
  identity: Identity;
  id: NodeId;
  hex: string;
  /** A player key and its pass's proof of work (region/player-pass.ts), when minted ahead. */
  player?: { identity: Identity; nonce: number };
}

/**
 * A seat for a hostile node. Its node id shows the work every peer checks (core/id-work.ts),
 * and a player pass shows more (PLAYER_PASS_BITS): ~1 CPU-s each in Node, paid while the tabs
 * start or inside a test. So both come from a returning player's profile minted ahead
 * (e2e/returning-player.ts), one no tab of the run gets; once those ran out, the node id is
 * minted here, and the pass by whoever shows one.
 */
export async function hostileSeat(): Promise<HostileSeat> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vp-hostile-'));
  const ahead = await nextReturningPlayer();
  if (!ahead) {
    const identity = await generateNodeIdentity({ bits: ID_WORK_BITS });
    return { dataDir, identity, id: identity.id, hex: idToHex(identity.id) };
  }
  const identity = await identityFromJson(ahead.nodes[0], 'node');
  return { dataDir, identity, id: identity.id, hex: idToHex(identity.id), player: { identity: await identityFromJson(ahead.player, 'player'), nonce: ahead.work.nonce } };
}

/**
 * Joins `world` (with `seed`, default the name) through `relay` as the hostile node of `seat`, holding `extraKeys` keypairs
 * besides its own. With `hosting`, its hosting runs as an honest node's does (it claims,
 * grants and serves players) and only `rewriteLooks` makes it lie.
 */
export async function startHostilePeer(o: { world: string; seed?: string; relay: string; extraKeys: number; seat: HostileSeat; hosting?: boolean }): Promise<HostilePeer> {
  const { dataDir, identity, player } = o.seat;
  // The world's name and seed as the tabs' links name them: another seed is another network, which no tab links to.
  const node = await startHeadlessPeer({ world: o.world, ...(o.seed !== undefined ? { seed: o.seed } : {}), relay: o.relay, dataDir, identity, ...(player ? { player: player.identity } : {}), bindAddress: '127.0.0.1' });
  // Nothing honest answers for it from here on: no grants, no claims, no snapshots but its own.
  if (!o.hosting) node.net.host.stop();
  // Extra signers need no id work: they are never nodes anyone links to, only keys in grants.
  const extra = await Promise.all(Array.from({ length: o.extraKeys }, () => generateNodeIdentity({ bits: 0 })));
  const keys: Signer[] = [node.peer.identity, ...extra];
  const id = node.peer.identity.id;
  const sent: Record<string, number> = {};
  const served = new Map<string, { cert: EpochCert; entries: Entry[] }>();
  const wire = node.net.wire;
  const linked = new Set<string>();
  const link = async (to: NodeId) => {
    const hex = idToHex(to);
    if (linked.has(hex)) return;
    await node.peer.dht.connect(to).catch(() => {});
    linked.add(hex);
  };
  const count = (t: string, ok: boolean) => {
    if (ok) sent[t] = (sent[t] ?? 0) + 1;
    else sent[`${t}_unsent`] = (sent[`${t}_unsent`] ?? 0) + 1;
  };
  const snapshot = (r: RegionCoord, cert: EpochCert, entries: Entry[]): PlayerFrame => {
    const last = entries.reduce((n, x) => (x.e === cert.e ? Math.max(n, x.s) : n), 0);
    return { t: 'SNAPSHOT', rx: r.rx, rz: r.rz, e: cert.e, v: { e: cert.e, s: last }, full: true, hosts: cert.hosts, entries: encodeEntries(entries), cert };
  };
  wire.players.events.on('frame', ({ from, msg }) => {
    if (msg.t !== 'SUBSCRIBE') return;
    const s = served.get(regionName(msg));
    if (!s) return;
    count('SNAPSHOT(answer)', wire.players.send(from, snapshot(msg, s.cert, s.entries)));
  });
  let forge: ((look: PlayerLook, player: NodeId) => PlayerLook) | undefined;
  const send = wire.players.send.bind(wire.players);
  wire.players.send = (to, m) => {
    if (!forge || m.t !== 'POSITIONS' || !m.roster) return send(to, m);
    const f = forge;
    const roster = m.roster.map((r) => (r.l ? (count('looks rewritten', true), { ...r, l: f(r.l, r.id) }) : r));
    return send(to, { ...m, roster });
  };
  const mint = async (key: NodeId, terms: ClaimTerms): Promise<EpochCert> => {
    const named = (k: Signer) => terms.hosts.some((h) => idEquals(h, k.id)) || !!terms.prev?.hosts.some((h) => idEquals(h, k.id));
    return { ...terms, grants: await Promise.all(keys.filter(named).map((k) => signGrant(k, key, terms))) };
  };
  return {
    node, id, hex: idToHex(id), keys, sent,
    mint,
    mintAt: (key, n, e) => {
      const hosts = keys.slice(0, n).map((k) => k.id);
      return mint(key, { e, primary: id, hosts, ...(e > 1 ? { prev: { e: e - 1, hosts } } : {}) });
    },
    async toHost(to, m) {
      await link(to);
      count(m.t, wire.replicas.send(to, m));
    },
    async toPlayer(to, m) {
      await link(to);
      count(m.t, wire.players.send(to, m));
    },
    snapshot,
    serve: (r, cert, entries) => void served.set(regionName(r), { cert, entries }),
    rewriteLooks: (f) => void (forge = f),
    async poisonRecords(key, cert, entries) {
      const auth = { signer: node.peer.identity, cert };
      const last = entries.reduce((n, x) => Math.max(n, x.s), 0);
      // A put its own node's rule refuses throws (no other node would take it either): counted as unsent.
      const [loc, log] = await Promise.allSettled([putLocation(node.peer.dht, key, auth, 1), putEdits(node.peer.dht, key, auth, { e: cert.e, s: last }, entries)]);
      count('DHT location', loc.status === 'fulfilled');
      count('DHT edits', log.status === 'fulfilled');
    },
    async stop() {
      await node.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
