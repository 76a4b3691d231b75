// A player's chosen name reaches the players around them through the region's primary
// (MOVE, then the POSITIONS roster); a hostile name, from a player or from a host, changes
// nothing at anyone and is counted as an invalid frame.
import { describe, expect, it } from 'vitest';
import { CodecError } from '../core/codec';
import { subscriptionCodec } from '../region/subscription-messages';
import { NAME_CHANGE_MS } from '../host/region-presence';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { NetworkChunkSource, type RemotePlayer } from './network-chunk-source';

const HOSTILE = ['<img src=x onerror=alert(1)>', 'Ann\u0000', 'Ann\u202eeL', 'x'.repeat(17), 'A\u200dnn', ' Ann Lee', ''];

function source(sim: HostSim, p: SimPeer, name: string): NetworkChunkSource {
  return new NetworkChunkSource({ seed: 'seed-1', world: sim.world, client: p.client, dht: p.dht, clock: sim.clock, options: { name } });
}

const invalidDrops = (sim: HostSim) => sim.live().reduce((n, p) => n + p.wire.players.drops.invalid, 0);

describe('player names (simulated)', () => {
  it('a chosen name is shown to the others; hostile names change nothing and are counted; renames are rate-bounded', async () => {
    const sim = new HostSim({ seed: 21 });
    await sim.grow(8);
    const [pa, pb] = sim.live();
    const a = source(sim, pa!, 'player-aaaaaa'), b = source(sim, pb!, 'player-bbbbbb');
    let players: RemotePlayer[] = [];
    b.events.on('players', (e) => (players = e.players));
    const here = { x: 5.5, y: 80, z: 5.5, yaw: 0, pitch: 0 };
    const walk = async (ms: number) => {
      for (let t = 0; t < ms; t += 100) {
        a.setPosition({ ...here, x: here.x + (t % 1000) / 1000 });
        b.setPosition({ ...here, x: 7.5 });
        await sim.run(100);
      }
    };
    const aName = () => players.find((p) => p.hex === pa!.hex)?.name;

    expect(a.setName('Ann Lee')).toBe(true);
    await sim.settle(b.load(0, 0));
    await walk(2000);
    expect(aName()).toBe('Ann Lee');

    // The field refuses what the rule refuses; the name stays.
    for (const n of HOSTILE.slice(0, -1)) expect(a.setName(n), n).toBe(false);
    expect(a.name).toBe('Ann Lee');

    // A modified client sends them anyway: every such MOVE is dropped at the host and counted.
    const before = invalidDrops(sim);
    for (const n of HOSTILE) {
      pa!.client.move({ ...here, x: 20 }, n);
      await sim.run(50);
    }
    expect(invalidDrops(sim) - before).toBe(HOSTILE.length);
    await walk(1000);
    expect(aName()).toBe('Ann Lee');
    expect(players.every((p) => !HOSTILE.includes(p.name))).toBe(true);

    // A rename shows; a second one sooner than NAME_CHANGE_MS waits its turn.
    await walk(NAME_CHANGE_MS);
    expect(a.setName('Annie')).toBe(true);
    await walk(1000);
    expect(aName()).toBe('Annie');
    a.setName('Ann Again');
    await walk(1000);
    expect(aName()).toBe('Annie');
    await walk(NAME_CHANGE_MS);
    expect(aName()).toBe('Ann Again');
    // No name: the default again.
    a.setName();
    expect(a.name).toBe('player-aaaaaa');
    a.close(); b.close();
    sim.stopAll();
  });

  it('a host\'s POSITIONS introducing a player by a hostile name is dropped whole', () => {
    const frame = (name: string) => subscriptionCodec.encode({ t: 'POSITIONS', rx: 0, rz: 0, e: 1, n: 0, b: new Uint8Array([0]), roster: [{ s: 0, id: new Uint8Array(20).fill(7), name }] });
    expect(subscriptionCodec.decode(frame('Bo')).t).toBe('POSITIONS');
    for (const n of HOSTILE) {
      expect(() => subscriptionCodec.decode(frame(n)), n).toThrow(CodecError);
    }
  });
});
