// A tab's part in the shared world over its joined peer (page-join.ts): the regions it hosts
// (HostingService, ticking from the worker so a background tab keeps 20 Hz), the player's
// client of the regions around them (RegionClient + NetworkChunkSource), and the signed
// player record kept in the DHT under the player's id.
import type { Clock } from '../core/clock';
import type { Identity } from '../core/identity';
import { idToHex } from '../core/node-id';
import { defaultPlayerName } from '../world/player-name';
import type { Ticker } from '../core/ticker';
import { seededRandom } from '../core/seeded-random';
import { HostItems } from '../agree/host-items';
import { openItemWire, type ItemWire } from '../agree/item-wire';
import { webCryptoVerifier } from '../core/signer';
import { CertChecker } from '../region/cert-checker';
import { HostWires } from '../host/host-wires';
import { RegionClient } from '../play/region-client';
import { HostingService } from '../host/hosting-service';
import { NetworkChunkSource } from '../play/network-chunk-source';
import type { PlayerState } from '../play/player-record';
import { PlayerRecordPublisher } from '../play/player-record-publisher';
import { IdbHostStore, type HostStore } from '../store/host-store';
import { IdbTentativeStore, type TentativeStore } from '../store/tentative-store';
import { makePlayerPass, PLAYER_PASS_BITS } from '../region/player-pass';
import { playerWork, type PlayerWork } from './key-work-minter';
import { loadPlayerIdentity } from '../store/identity-store';
import type { PageConfig } from './config';
import { makeInvite } from '../bootstrap/invite';
import type { Peer } from '../bootstrap/peer';
import type { ProbeFrameGate } from '../play/probe-frame-gate';
import { storeScope } from '../store/store-scope';

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

export interface NetSession {
  readonly peer: Peer;
  readonly wire: HostWires;
  readonly host: HostingService;
  /** The host has loaded its store and answers frames (those that came before are answered then, in order). */
  readonly started: Promise<void>;
  readonly client: RegionClient;
  readonly source: NetworkChunkSource;
  /** Items at this node as a host of its regions (agree/host-items.ts), on the items channel the player side reads too. */
  readonly items: { host: HostItems; wire: ItemWire };
  readonly player: Identity;
  /** The player key's proof of work, when this tab edits (its player pass waits for it). */
  readonly work: Promise<PlayerWork> | undefined;
  /** The last hosting decisions of this tab (claims, grants, refusals), oldest first. */
  readonly trace: readonly string[];
  /** Stores the signed player record in the DHT (throttled unless `force`: play/player-record-publisher.ts). */
  publishPlayer(state: PlayerState, force?: boolean): Promise<void>;
  /** The newest valid record of this player in the DHT, if any. */
  fetchPlayer(): Promise<PlayerState | undefined>;
  stop(): void;
}

/**
 * Where a session keeps what it keeps; each defaults to this browser's IndexedDB. The
 * headless Node peer passes its own (store/level-store.ts) and its node identity as player.
 */
export interface SessionStores {
  host?: HostStore | null;
  tentative?: TentativeStore;
  player?: Identity;
  /**
   * The player key's proof of work (app/key-work-minter.ts `playerWork`), begun early by a
   * page that edits: its edits carry a player pass made from it. Without it the session
   * edits nothing (a hosting page, the headless peer): hosts refuse its edits.
   */
  work?: Promise<PlayerWork>;
}

/** Starts hosting regions and playing in the shared world over a joined peer. */
/**
 * `draws`: the page draws frames (a player page with rendering on): its host clock says it
 * is busy and follows an idle one (agree/world-clock.ts), and sends its probe rounds through
 * the page's frame gate (play/probe-frame-gate.ts). Null: the page draws nothing.
 */
export async function startNetSession(peer: Peer, cfg: PageConfig, clock: Clock, ticker: Ticker, stores: SessionStores = {}, draws: Pick<ProbeFrameGate, 'sendAt'> | null = null): Promise<NetSession> {
  performance.mark('vp:net-session-start');
  const scope = storeScope(cfg.world, cfg.seed);
  // The player key, the host store and the tentative store are opened at once: one after
  // another, their waits came before the player's first subscription.
  // Each tab is its own hosting node: its records are keyed by its node id, and by the
  // world's name and seed (another seed of the name is another network, with other blocks).
  // A play-only tab (a read-only DHT node) hosts nothing, so keeps no host store.
  // Edits no certified primary could confirm are kept in the tentative store (in memory only if it cannot open).
  const [player, store, tentative] = await Promise.all([
    stores.player ?? loadPlayerIdentity(),
    peer.dht.readOnly ? null : stores.host !== undefined ? stores.host : IdbHostStore.open(scope, peer.id).catch(() => null),
    stores.tentative ?? IdbTentativeStore.open(scope).catch(() => undefined),
  ]);
  performance.mark('vp:host-store');
  // The wires and the host that listens to them are made together, with no wait between:
  // frames that came before are held by the channels (dht/app-channels.ts), and those that
  // come while the host loads its store by the host (hosting-service.ts `early`).
  const wire = new HostWires(peer.channels, clock);
  // The last hosting decisions (claims, grants, refusals) and the client's attaches, for window.voxel.hosting.trace().
  const trace: string[] = [];
  const note = (region: string, what: string) => {
    trace.push(`${Math.round(clock.now())} [${region}] ${what}`);
    if (trace.length > 400) trace.splice(0, 100);
  };
  const host = new HostingService({
    dht: peer.dht, wires: wire, clock, ticker, store, world: cfg.world,
    // The node's own identity signs its grants; other hosts' keys must hash to their ids.
    signer: peer.identity, verify: webCryptoVerifier,
    options: { playOnly: peer.dht.readOnly },
    trace: note,
  });
  // Not waited for: frames that come while the host loads its store are held and answered
  // in order once it has (hosting-service.ts `early`), so the player's subscriptions go out
  // now. Pages that only host wait for it (`started`).
  const started = host.start().then(() => void performance.mark('vp:host-started'));
  started.catch((err: unknown) => note('-', `hosting did not start: ${(err as Error).message}`));
  // The work begun early is for the profile's player key; were this another (imported meanwhile), it is found again.
  const work = stores.work?.then((w) => (sameBytes(w.key, player.publicKey) ? w : playerWork(player.publicKey, PLAYER_PASS_BITS)));
  const pass = work?.then((w) => makePlayerPass(player, peer.dht.selfId, w.nonce));
  const client = new RegionClient({ dht: peer.dht, wire: wire.players, clock, world: cfg.world, certs: new CertChecker(webCryptoVerifier, peer.dht.nearView, { idWorkBits: peer.dht.idWorkBits }), verify: webCryptoVerifier, trace: note, ...(pass ? { pass } : {}) });
  const name = defaultPlayerName(idToHex(player.id));
  // The node's key signs the player's look (name and colour, play/own-look.ts); the others' are checked before they show.
  const source = new NetworkChunkSource({ seed: cfg.seed, world: cfg.world, client, dht: peer.dht, clock, options: { name }, signer: peer.identity, verify: webCryptoVerifier, ...(tentative ? { tentative } : {}) });
  const itemWire = openItemWire(peer.channels, clock);
  const hostItems = new HostItems({ host, dht: peer.dht, wire: itemWire, clock, base: performance.timeOrigin, busy: draws !== null, ...(draws ? { sendAt: (go: () => void) => draws.sendAt(go) } : {}), seed: cfg.seed, signer: peer.identity, verify: webCryptoVerifier, rng: seededRandom((Math.random() * 2 ** 32) >>> 0), ...(cfg.itemSpawnMs ? { ledger: { spawnMeanMs: cfg.itemSpawnMs } } : {}) });
  hostItems.start();
  const firstAttach = client.events.on('attached', () => {
    performance.mark('vp:first-attach');
    firstAttach();
  });
  performance.mark('vp:net-session');
  const record = new PlayerRecordPublisher(player, peer.dht, clock);
  return {
    peer, wire, host, started, client, source, player, trace, work, items: { host: hostItems, wire: itemWire },
    publishPlayer: (state, force) => record.publish(state, force),
    fetchPlayer: () => record.fetch(),
    stop() {
      source.close();
      hostItems.stop();
      itemWire.close();
      host.stop();
      peer.stop();
    },
  };
}

/** A signed invite to this world from this tab: its doorways, its node id and a few live contacts. */
export function inviteLinkFor(peer: Peer, cfg: PageConfig, pageUrl: string): Promise<string> {
  const contacts = peer.dht.linkInfo().map((l) => l.hex);
  return makeInvite(pageUrl, { world: cfg.world, seed: cfg.seed, relay: cfg.relayUrl ?? 'none', peerjs: cfg.peerjsUrl, contacts }, peer.identity);
}
