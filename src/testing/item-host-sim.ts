// Items over the simulated hosting network: every HostSim peer also runs the items wiring of a
// tab (agree/host-items.ts beside its HostingService; play/player-items.ts beside its
// RegionClient, with the player's own world clock following its region's hosts), on the
// items channel of its DHT node. A killed peer's items stop with it; a restarted one comes
// back with the ledgers its host store kept.
import { AppChannels } from '../dht/app-channels';
import { hexToId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { HostItems } from '../agree/host-items';
import type { Item } from '../agree/item-ledger';
import { openItemWire, type ItemWire } from '../agree/item-wire';
import { WorldClock } from '../agree/world-clock';
import { PlayerItems } from '../play/player-items';
import type { Signer } from '../core/signer';
import { HostSim, type HostSimOptions, type JoinOptions, type SimPeer } from './host-sim';

export interface ItemPeer {
  peer: SimPeer;
  wire: ItemWire;
  host: HostItems;
  player: PlayerItems;
  clock: WorldClock;
  /** The node's identity: it signs the player's drop and carry requests (a hostile test signs its own with it). */
  signer: Signer;
}

export class ItemHostSim extends HostSim {
  readonly items = new Map<string, ItemPeer>();

  constructor(private readonly itemOpts: HostSimOptions & { spawnMeanMs?: number } = {}) {
    super(itemOpts);
  }

  override async add(id?: NodeId, opts: JoinOptions = {}): Promise<SimPeer> {
    const peer = await super.add(id, opts);
    const channels = new AppChannels(peer.dht);
    const wire = openItemWire(channels, this.clock);
    const signer = this.keyring.signer(hexToId(peer.hex));
    const host = new HostItems({ host: peer.host, dht: peer.dht, wire, clock: this.clock, seed: this.world, signer, verify: this.keyring.verify, rng: seededRandom(this.nextSeq() * 13 + 5), ground: () => 70, ...(this.itemOpts.spawnMeanMs ? { ledger: { spawnMeanMs: this.itemOpts.spawnMeanMs } } : {}) });
    const refs = { of: (): string[] => [] };
    const clock = new WorldClock({ local: this.clock, send: (to, msg) => void wire.send(hexToId(to), msg), references: () => refs.of() });
    const player = new PlayerItems({ client: peer.client, wire, self: peer.hex, signer, seed: this.world, clock: this.clock, world: clock, verify: opts.verify ?? this.keyring.verify });
    refs.of = () => player.clockReferences();
    host.start();
    player.start();
    clock.start();
    this.items.set(peer.hex, { peer, wire, host, player, clock, signer });
    return peer;
  }

  override kill(hex: string, opts: { polite?: boolean } = {}): void {
    const it = this.items.get(hex);
    if (it) {
      this.items.delete(hex);
      it.host.stop();
      it.player.stop();
      it.clock.stop();
      it.wire.close();
    }
    super.kill(hex, opts);
  }

  /** A player stands at (x, y, z): its MOVE to the region's primary, and the region its clock follows. */
  stand(hex: string, p: { x: number; y: number; z: number }): void {
    const it = this.items.get(hex)!;
    it.peer.client.move({ ...p, yaw: 0, pitch: 0 });
    it.player.standAt(p.x, p.z);
  }

  /**
   * The last two peers subscribe to region 0,0 and stand in it, 2 blocks apart, until its
   * hosts spawn an item there (50 s at most): the two players and that item. Throws when none
   * spawned.
   */
  async twoPlayersAndAnItem(): Promise<{ a: ItemPeer; b: ItemPeer; item: Item }> {
    const region = { rx: 0, rz: 0 };
    const [a, b] = this.live().slice(-2).map((p) => this.items.get(p.hex)!);
    await this.settle(Promise.all([a!.peer.client.subscribe(region), b!.peer.client.subscribe(region)]));
    for (let i = 0; i < 200; i++) {
      this.stand(a!.peer.hex, { x: 20.5, y: 70, z: 20.5 });
      this.stand(b!.peer.hex, { x: 22.5, y: 70, z: 20.5 });
      await this.run(250);
      const item = a!.player.onGround()[0];
      if (item) return { a: a!, b: b!, item };
    }
    throw new Error('no item spawned in region 0,0 within 50 s');
  }

  /** The primary of region `name` with its items host and player, if one is up. */
  primaryItemPeer(name: string): ItemPeer | undefined {
    return [...this.items.values()].find((p) => p.peer.host.roles().primary.includes(name));
  }

  /** The region's hosts' ledgers (its primary and backups now) as RegionItems. */
  hostLedgers(name: string): { hex: string; items: ReturnType<HostItems['region']> }[] {
    const hosting = (p: ItemPeer) => { const r = p.peer.host.roles(); return r.primary.includes(name) || r.backup.includes(name); };
    return [...this.items.values()].filter(hosting).map((p) => ({ hex: p.peer.hex, items: p.host.region(name) })).filter((x) => x.items);
  }
}

