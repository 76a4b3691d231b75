// Items over the simulated hosting network: every HostSim peer also runs the items wiring of a
// tab (agree/host-items.ts beside its HostingService; play/player-items.ts beside its
// RegionClient, with the player's own world clock following its region's hosts), on the
// items channel of its DHT node. A killed peer's items stop with it; a restarted one comes
// back with the ledgers its host store kept.
import { AppChannels } from '../dht/app-channels';
import { hexToId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { HostItems } from '../agree/host-items';
import { openItemWire, type ItemWire } from '../agree/item-wire';
import { WorldClock } from '../agree/world-clock';
import { PlayerItems } from '../play/player-items';
import { HostSim, type HostSimOptions, type SimPeer } from './host-sim';

export interface ItemPeer {
  peer: SimPeer;
  wire: ItemWire;
  host: HostItems;
  player: PlayerItems;
  clock: WorldClock;
}

export class ItemHostSim extends HostSim {
  readonly items = new Map<string, ItemPeer>();

  constructor(private readonly itemOpts: HostSimOptions & { spawnMeanMs?: number } = {}) {
    super(itemOpts);
  }

  override async add(id?: NodeId): Promise<SimPeer> {
    const peer = await super.add(id);
    const channels = new AppChannels(peer.dht);
    const wire = openItemWire(channels, this.clock);
    const host = new HostItems({ host: peer.host, dht: peer.dht, wire, clock: this.clock, seed: this.world, signer: this.keyring.signer(hexToId(peer.hex)), verify: this.keyring.verify, rng: seededRandom(this.nextSeq() * 13 + 5), ground: () => 70, ...(this.itemOpts.spawnMeanMs ? { ledger: { spawnMeanMs: this.itemOpts.spawnMeanMs } } : {}) });
    const refs = { of: (): string[] => [] };
    const clock = new WorldClock({ local: this.clock, send: (to, msg) => void wire.send(hexToId(to), msg), references: () => refs.of() });
    const player = new PlayerItems({ client: peer.client, wire, self: peer.hex, seed: this.world, clock: this.clock, world: clock, verify: this.keyring.verify });
    refs.of = () => player.clockReferences();
    host.start();
    player.start();
    clock.start();
    this.items.set(peer.hex, { peer, wire, host, player, clock });
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
    it.peer.client.move({ ...p, yaw: 0, pitch: 0 }, hex.slice(0, 6));
    it.player.standAt(p.x, p.z);
  }

  /** The primary of region (rx, rz), if one is up. */
  primaryOf(name: string): ItemPeer | undefined {
    return [...this.items.values()].find((p) => p.peer.host.roles().primary.includes(name));
  }

  /** The region's hosts' ledgers (its primary and backups now) as RegionItems. */
  hostLedgers(name: string): { hex: string; items: ReturnType<HostItems['region']> }[] {
    const hosting = (p: ItemPeer) => { const r = p.peer.host.roles(); return r.primary.includes(name) || r.backup.includes(name); };
    return [...this.items.values()].filter(hosting).map((p) => ({ hex: p.peer.hex, items: p.host.region(name) })).filter((x) => x.items);
  }
}

