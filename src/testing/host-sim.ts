// Many hosting peers on the in-memory network and one virtual clock: the harness of the
// hosting tests and of the failover benchmark. Each peer is a real DhtNode with a
// HostingService and a RegionClient on one pair of HostWires; its MemoryHostStore outlives it, so a
// peer restarted with the same id comes back with its regions (a reloaded tab).
import { createHash } from 'node:crypto';
import { clockTicker } from '../core/ticker';
import { groupedTicker } from './grouped-ticker';
import { idWorkOk } from '../core/id-work';
import { compareDistance, idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { AppChannels } from '../dht/app-channels';
import { NOBODY_NEAR } from '../dht/near-view';
import type { DhtNode, DhtOptions } from '../dht/dht-node';
import { MemoryHostStore } from '../store/host-store-memory';
import type { HostOptions } from '../host/host-options';
import { HostWires } from '../host/host-wires';
import { RegionClient } from '../play/region-client';
import { HostingService } from '../host/hosting-service';
import { regionName, type KeyHash, type RegionCoord } from '../region/region-key';
import { regionRecordRules } from '../region/region-records';
import { CertChecker } from '../region/cert-checker';
import { SimKeyring } from './sim-keyring';
import type { Verifier } from '../core/signer';
import { mintWork } from '../core/key-work';
import { makePlayerPass, type PlayerPass } from '../region/player-pass';
import { PASS_RULES } from '../host/player-passes';
import { SimWorld, type SimWorldOptions } from './sim-world';
import { networkId } from '../net/network-id';
import { StarvedTurns } from './starved-clock';

/** Region and record keys hashed synchronously: WebCrypto's digest settles outside the virtual clock (same keys). */
export const simKeyHash: KeyHash = (text) => Promise.resolve(new Uint8Array(createHash('sha256').update(text).digest()).slice(0, 20));

export interface HostSimOptions extends SimWorldOptions {
  world?: string;
  /**
   * Ids drawn until they show this much id work (core/id-work.ts), and asked of every id by
   * each peer's DHT and certificate checks, as a tab's are at ID_WORK_BITS (default 0: drawn
   * ids, no work). The attack simulations run at SIM_ID_WORK_BITS, so that keys an attacker
   * drew without the work are far from every key there as in the product.
   */
  idWorkBits?: number;
  dht?: Partial<DhtOptions>;
  host?: Partial<HostOptions>;
  /** 'grouped': each node's sources of one rate tick together, as in a tab (grouped-ticker.ts); default one timer each (clockTicker). */
  ticker?: 'grouped';
}

export interface SimPeer {
  hex: string;
  dht: DhtNode;
  wire: HostWires;
  host: HostingService;
  client: RegionClient;
  store: MemoryHostStore;
  /** A play-only peer: its DHT is read-only (dht/read-only-peers.ts) and it hosts nothing. */
  playOnly: boolean;
  /** The world it hosts and plays (HostSim's, unless JoinOptions.world named another). */
  world: string;
  /** Its tab's main thread: HostSim `starve` makes its timers and the frames that reach it late. */
  turns: StarvedTurns;
}

/** How a peer joins (HostSim add / addBatch). */
export interface JoinOptions {
  /** Plays without hosting: a read-only DHT node, its HostingService `playOnly`. */
  playOnly?: boolean;
  /**
   * A full DHT node that hosts nothing (a `?hosting=off` tab): its DHT says so (`noHost`) and
   * its HostingService never starts, so it answers pings but never a hosting frame.
   */
  noHost?: boolean;
  /**
   * Another world than the simulation's (seeded with its name): the peer hosts and plays it,
   * and is of its network (net/network-id.ts), as a tab of that world on the same relay.
   */
  world?: string;
  /** The peers it joins through (default: one live peer at random, of any world). */
  boot?: NodeId[];
  /** Called with the peer's DHT before it joins (a test stubs what the node sees while it joins). */
  beforeJoin?: (dht: DhtNode) => void;
  /**
   * Its HostingService is made but never started, its DHT a host's as any other: an
   * attacker's node that runs its own code from its first frame (testing/sybil-scenario.ts
   * `Attacker`). Started, it would answer a HANDOFF that reaches it while it joins as an
   * honest host does, before the test could take it over.
   */
  hostile?: boolean;
  /**
   * What the peer's player side checks signatures with (its RegionClient's certificates and
   * relays; ItemHostSim's PlayerItems): default the keyring's, which spends no derivation
   * budget (testing/budgeted-keyring.ts models one).
   */
  verify?: Verifier;
}

/** Work a simulated player's pass shows (the tabs' PLAYER_PASS_BITS would cost ~1 s per simulated peer). */
export const SIM_PASS_BITS = 8;

/**
 * Simulated DHT defaults: quick RPC timeouts so lookups past a dead node do not stall; ids
 * drawn by the simulation, not minted, so none shows work (core/id-work.ts).
 */
export const SIM_DHT: Partial<DhtOptions> = { rpcTimeoutMs: 600, joinRefresh: 'empty', idWorkBits: 0 };

/** Id work the attack simulations mint ids at (HostSimOptions.idWorkBits): 16 draws an id, where a tab pays 8,192. */
export const SIM_ID_WORK_BITS = 4;

export class HostSim extends SimWorld {
  readonly world: string;
  readonly peers = new Map<string, SimPeer>();
  readonly stores = new Map<string, MemoryHostStore>();
  /** region:epoch -> primaries that accepted an edit in it (must stay single). */
  readonly accepts = new Map<string, Set<string>>();
  /** region -> every (epoch, primary, time) a primary confirmed edits at. */
  readonly confirms: { region: string; epoch: number; primary: string; at: number }[] = [];
  /** The simulation's key directory: each id's signing key (see sim-keyring.ts). */
  readonly keyring: SimKeyring;
  /** Peers whose hosting's signature checks answer late (slowVerify): hex -> ms. */
  private readonly verifyDelay = new Map<string, number>();
  /** Each peer's player pass, once made (hex -> pass). */
  private readonly passes = new Map<string, PlayerPass>();

  constructor(private readonly opts: HostSimOptions = {}) {
    // A join, a claim or a failover settles within two virtual minutes or has failed.
    super(opts, 120_000);
    this.keyring = new SimKeyring(`sim-${this.seed}`);
    this.world = opts.world ?? 'sim';
  }

  live(): SimPeer[] {
    return [...this.peers.values()];
  }

  pick(): SimPeer {
    const all = this.live();
    return all[Math.floor(this.rand() * all.length)]!;
  }

  /** Ids drawn (HostSimOptions.idWorkBits: tries included) by `newId` and `groundId`. */
  idDraws = 0;

  /** A new random id, showing HostSimOptions.idWorkBits of work. */
  newId(): NodeId {
    for (;;) {
      const id = randomId(this.rand);
      this.idDraws++;
      if (idWorkOk(id, this.opts.idWorkBits ?? 0)) return id;
    }
  }

  /**
   * A new id showing the work (as `newId`) whose distance to `key` lies past `after`'s and
   * short of `before`'s: an id ground into a place near a key, as an attacker must grind it
   * (each try a key generation; `idDraws` counts them).
   */
  groundId(key: NodeId, after: NodeId | undefined, before: NodeId | undefined): NodeId {
    for (;;) {
      const id = this.newId();
      if ((!after || compareDistance(id, after, key) > 0) && (!before || compareDistance(id, before, key) < 0)) return id;
    }
  }

  /** Starts a peer (a new random id, or `id` again after a kill) and waits for its join. */
  add(id: NodeId = this.newId(), opts: JoinOptions = {}): Promise<SimPeer> {
    return this.settle(this.join(id, opts));
  }

  /**
   * Starts `n` peers at once, each bootstrapping off a random peer already joined, and waits
   * for all: a batch's joins overlap in virtual time, where `add` one after another makes
   * every joined peer run its upkeep through each join in turn (quadratic in the peers).
   */
  async addBatch(n: number, opts: JoinOptions = {}): Promise<SimPeer[]> {
    const ids = Array.from({ length: n }, () => this.newId());
    return this.settle(Promise.all(ids.map((id) => this.join(id, opts))));
  }

  /** A peer's start, not settled (add / addBatch run the clock). */
  private async join(id: NodeId, opts: JoinOptions): Promise<SimPeer> {
    const playOnly = opts.playOnly ?? false;
    const world = opts.world ?? this.world;
    const hex = idToHex(id);
    const others = this.live();
    const boot = opts.boot ?? (others.length > 0 ? [others[Math.floor(this.rand() * others.length)]!.dht.selfId] : []);
    // A simulation of one world keeps the unnamed network its tests always ran in.
    const network = opts.world !== undefined ? networkId(world, world) : undefined;
    // The tab's own thread: every timer of the peer runs on it (straight through until `starve`).
    // Its draws are its own stream (from the seed and id), so other peers' draws do not move.
    const turns = new StarvedTurns(this.clock, seededRandom(this.seed * 104_729 + parseInt(hex.slice(0, 8), 16)));
    const clock = turns.clock();
    const dht = this.makeDht(id, boot, {
      ...SIM_DHT,
      // The owner rules a tab runs for region records, over the simulation's keys.
      // The DHT hands the rule its own view of who is near a key (record-rules.ts).
      // Its certificates count near only ids showing the work this peer's DHT asks.
      records: regionRecordRules(new CertChecker(this.keyring.verify, NOBODY_NEAR, { idWorkBits: this.opts.dht?.idWorkBits ?? this.opts.idWorkBits ?? 0 }), this.keyring.verify, simKeyHash),
      ...(this.opts.idWorkBits ? { idWorkBits: this.opts.idWorkBits } : {}),
      ...this.opts.dht,
      ...(playOnly ? { readOnly: true } : {}),
      ...(opts.noHost ? { noHost: true } : {}),
    }, undefined, network, clock);
    // The channels before the join, as a tab's (bootstrap/peer.ts): a frame that reaches us
    // while we join (a primary handing us a region we are now nearest to) is held for the host.
    const channels = new AppChannels(dht);
    opts.beforeJoin?.(dht);
    await dht.start();
    let store = this.stores.get(hex);
    if (!store) this.stores.set(hex, (store = new MemoryHostStore()));
    const wire = new HostWires(channels, clock);
    // Its hosting's signature checks, late by slowVerify's ms when set (the same promise as the keyring's otherwise).
    const verify: Verifier = (...a) => {
      const ms = this.verifyDelay.get(hex) ?? 0;
      return ms > 0 ? new Promise<void>((resolve) => clock.setTimeout(resolve, ms)).then(() => this.keyring.verify(...a)) : this.keyring.verify(...a);
    };
    const host = new HostingService({
      dht, wires: wire, clock, ticker: this.opts.ticker === 'grouped' ? groupedTicker(clock) : clockTicker(clock), store, world, keyHash: simKeyHash,
      signer: this.keyring.signer(id), verify,
      onConfirm: (region, epoch, primary, at) => {
        this.confirms.push({ region, epoch, primary, at });
        if (this.confirms.length > 100_000) this.confirms.splice(0, 50_000);
      },
      // Simulated players edit all over a region with no walk in between: the motion check
      // (motion-tracker.ts) is off unless a test turns it on.
      options: { random: seededRandom(this.nextSeq() * 31 + 7), motion: null, passes: { ...PASS_RULES, bits: SIM_PASS_BITS }, ...this.opts.host, ...(playOnly ? { playOnly } : {}) },
      ...(process.env.HOST_TRACE ? { trace: (region: string, what: string) => (process.env.HOST_TRACE ?? '').split(';').includes(region) && console.log(`${this.clock.now()} [${region}] ${what}`) } : {}),
      onAccept: (region, epoch, primary) => {
        const k = `${region}:${epoch}`;
        let set = this.accepts.get(k);
        if (!set) this.accepts.set(k, (set = new Set()));
        set.add(primary);
      },
    });
    const pass = this.passFor(id);
    void pass.then((p) => this.passes.set(hex, p));
    const playerVerify = opts.verify ?? this.keyring.verify;
    const client = new RegionClient({ dht, wire: wire.players, clock, world, keyHash: simKeyHash, certs: new CertChecker(playerVerify, dht.nearView, { idWorkBits: dht.idWorkBits }), verify: playerVerify, pass, ...(process.env.HOST_TRACE ? { trace: (region: string, what: string) => (process.env.HOST_TRACE ?? '').split(';').includes(region) && console.log(`${this.clock.now()} [${region}] ${hex.slice(0, 6)} ${what}`) } : {}) });
    // Traced: every link a peer closes or sees closed, and why (a host set changes on closes).
    if (process.env.HOST_TRACE) dht.events.on('link-close', ({ id: other, reason }) => console.log(`${this.clock.now()} LINK-CLOSE ${hex.slice(0, 6)}-${idToHex(other).slice(0, 6)} ${reason}`));
    const peer: SimPeer = { hex, dht, wire, host, client, store, playOnly, world, turns };
    this.peers.set(hex, peer);
    if (!opts.noHost && !opts.hostile) await host.start();
    return peer;
  }

  /**
   * A test that sends raw EDIT frames (to re-send one at will) shows the host its node's
   * player pass first, as the client does before its first EDIT to a host.
   */
  showPass(from: SimPeer, to: NodeId): void {
    const pass = this.passes.get(from.hex);
    if (!pass) throw new Error(`no player pass made yet for ${from.hex.slice(0, 6)}`);
    from.wire.players.send(to, { t: 'PLAYER', ...pass });
  }

  /** The pass of the player playing at node `id` (one player per peer, its key in the keyring). */
  passFor(id: NodeId, player: NodeId = this.playerOf(id), bits = this.opts.host?.passes?.bits ?? SIM_PASS_BITS): Promise<PlayerPass> {
    const signer = this.keyring.signer(player);
    return makePlayerPass(signer, id, mintWork(signer.publicKey, bits));
  }

  /** The player id of the peer at node `id`. */
  playerOf(id: NodeId): NodeId {
    return new Uint8Array(createHash('sha256').update(`player:${idToHex(id)}`).digest()).slice(0, 20);
  }

  /**
   * Adds `n` peers: one after another by default, or up to `batch` at once (addBatch), never
   * more at once than have joined, as sim-cluster.ts grows. `onBatch` hears how many of the
   * `n` have joined after each step.
   */
  async grow(n: number, opts: JoinOptions & { batch?: number; onBatch?: (joined: number) => void } = {}): Promise<void> {
    const batch = Math.max(1, opts.batch ?? 1);
    const join: JoinOptions = opts.playOnly ? { playOnly: true } : {};
    for (let joined = 0; joined < n;) {
      const k = Math.min(batch, n - joined, Math.max(1, this.peers.size));
      if (k === 1) await this.add(undefined, join);
      else await this.addBatch(k, join);
      joined += k;
      opts.onBatch?.(joined);
    }
  }

  /**
   * Ends a peer; its store stays for a restart. Abruptly by default (a crashed renderer: it
   * sends nothing more), `polite` as a closed tab, which unsubscribes (sim-world.ts).
   */
  kill(hex: string, opts: { polite?: boolean } = {}): void {
    const p = this.peers.get(hex);
    if (!p) return;
    this.peers.delete(hex);
    this.endDht(p.dht, opts.polite ?? false, () => {
      p.client.close();
      p.host.stop();
      p.wire.close();
    });
  }

  /**
   * Starves peer `hex`'s tab for `ms` from now, as a saturated machine does: its main thread
   * runs tasks of `minMs`-`maxMs` back to back, and its timers and the frames that reach it
   * wait for the end of the task under way (testing/starved-clock.ts StarvedTurns). Time runs
   * on; only what it does, and when, is late.
   */
  starve(hex: string, ms: number, minMs = 50, maxMs = 400): void {
    const p = this.peers.get(hex);
    if (!p) throw new Error(`no live peer ${hex.slice(0, 6)}`);
    p.turns.starve(ms, minMs, maxMs);
    this.net.setTurns(p.dht.selfId, (t) => p.turns.turnOf(t));
  }

  /**
   * Peer `hex`'s hosting checks each signature `ms` late from now on (0: at once): a tab's
   * WebCrypto, off the main thread, answers a busy tab in tens of milliseconds, where the
   * simulation's keyring answers at once.
   */
  slowVerify(hex: string, ms: number): void {
    this.verifyDelay.set(hex, ms);
  }

  /** Live peers that are primary of region `r` (coordinates or name) now (more than one only in a fault). */
  primariesOf(r: RegionCoord | string): SimPeer[] {
    const name = typeof r === 'string' ? r : regionName(r);
    return this.live().filter((p) => p.host.roles().primary.includes(name));
  }

  /** The live primary of region `r` now, if any (the first, in a fault with several). */
  primaryOf(r: RegionCoord | string): SimPeer | undefined {
    return this.primariesOf(r)[0];
  }

  /** Live peers that are backups of region `r` (coordinates or name) now. */
  backupsOf(r: RegionCoord | string): SimPeer[] {
    const name = typeof r === 'string' ? r : regionName(r);
    return this.live().filter((p) => p.host.roles().backup.includes(name));
  }

  /**
   * Region `r` hosted and edited once: a player subscribes and places a block near its
   * corner, then `settleMs` pass (by default past the hold a host puts on its own claims
   * after granting one, CLAIM_TIMEOUT_MS). The player.
   */
  async editedRegion(r: RegionCoord, settleMs = 2500): Promise<SimPeer> {
    const player = this.pick();
    await this.settle(player.client.subscribe(r));
    const x = r.rx * 64 + 9, z = r.rz * 64 + 9;
    await this.settle(player.client.submit(x, 100, z, 1, { x, y: 100, z: z + 2 }));
    await this.run(settleMs);
    return player;
  }

  /** (region, epoch) pairs in which more than one primary accepted edits. */
  doublePrimaries(): string[] {
    return [...this.accepts].filter(([, s]) => s.size > 1).map(([k, s]) => `${k} -> ${[...s].join(',')}`);
  }

  stopAll(): void {
    for (const hex of [...this.peers.keys()]) this.kill(hex);
  }
}
