// A player's chosen name and colour reach the players around them through the region's
// primary (MOVE, then the POSITIONS roster); a hostile name or a colour outside the palette,
// from a player or from a host, changes nothing at anyone and is counted as an invalid
// frame; changes of either are bounded (NAME_CHANGE_MS).
import { describe, expect, it } from 'vitest';
import { CodecError } from '../core/codec';
import { subscriptionCodec } from '../region/subscription-messages';
import { NAME_CHANGE_MS } from '../host/region-presence';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { defaultPlayerColour, PLAYER_COLOUR_MAX } from '../world/player-colour';
import { NetworkChunkSource, type RemotePlayer } from './network-chunk-source';

/** What a hostile sender might put where a colour goes. */
const HOSTILE_COLOURS = [PLAYER_COLOUR_MAX + 1, -1, 1.5, 0xff0000, Number.MAX_SAFE_INTEGER] as const;
const HOSTILE = ['<img src=x onerror=alert(1)>', 'Ann\u0000', 'Ann\u202eeL', 'x'.repeat(17), 'A\u200dnn', ' Ann Lee', ''];

function source(sim: HostSim, p: SimPeer, name: string): NetworkChunkSource {
  return new NetworkChunkSource({ seed: 'seed-1', world: sim.world, client: p.client, dht: p.dht, clock: sim.clock, options: { name } });
}

const invalidDrops = (sim: HostSim) => sim.live().reduce((n, p) => n + p.wire.players.drops.invalid, 0);

/** Two players standing a few blocks apart in one region; B hears of A through the region's primary. */
async function twoPlayers(seed: number) {
  const sim = new HostSim({ seed });
  await sim.grow(8);
  const [pa, pb] = sim.live() as [SimPeer, SimPeer];
  const a = source(sim, pa, 'player-aaaaaa'), b = source(sim, pb, 'player-bbbbbb');
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
  await sim.settle(b.load(0, 0));
  const aSeen = () => players.find((p) => p.hex === pa.hex);
  const close = () => {
    a.close();
    b.close();
    sim.stopAll();
  };
  return { sim, pa, a, here, walk, aSeen, players: () => players, close };
}

describe('player names and colours (simulated)', () => {
  it('a chosen name is shown to the others; hostile names change nothing and are counted; renames are rate-bounded', async () => {
    const { sim, pa, a, here, walk, aSeen, players, close } = await twoPlayers(21);
    const aName = () => aSeen()?.name;

    expect(a.setName('Ann Lee')).toBe(true);
    await walk(2000);
    expect(aName()).toBe('Ann Lee');

    // The field refuses what the rule refuses; the name stays.
    for (const n of HOSTILE.slice(0, -1)) expect(a.setName(n), n).toBe(false);
    expect(a.name).toBe('Ann Lee');

    // A modified client sends them anyway: every such MOVE is dropped at the host and counted.
    const before = invalidDrops(sim);
    for (const n of HOSTILE) {
      pa.client.move({ ...here, x: 20 }, n);
      await sim.run(50);
    }
    expect(invalidDrops(sim) - before).toBe(HOSTILE.length);
    await walk(1000);
    expect(aName()).toBe('Ann Lee');
    expect(players().every((p) => !HOSTILE.includes(p.name))).toBe(true);

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
    close();
  });

  it('a host\'s POSITIONS introducing a player by a hostile name is dropped whole', () => {
    const frame = (name: string) => subscriptionCodec.encode({ t: 'POSITIONS', rx: 0, rz: 0, e: 1, n: 0, b: new Uint8Array([0]), roster: [{ s: 0, id: new Uint8Array(20).fill(7), name, c: 0 }] });
    expect(subscriptionCodec.decode(frame('Bo')).t).toBe('POSITIONS');
    for (const n of HOSTILE) {
      expect(() => subscriptionCodec.decode(frame(n)), n).toThrow(CodecError);
    }
  });

  it('a chosen colour is shown to the others; colours outside the palette change nothing and are counted; changes are rate-bounded', async () => {
    const { sim, pa, a, here, walk, aSeen, close } = await twoPlayers(22);
    const aColour = () => aSeen()?.colour;

    // None chosen: the one A's id gives, at every receiver.
    expect(a.colour).toBe(defaultPlayerColour(pa.hex));
    await walk(2000);
    expect(aColour()).toBe(defaultPlayerColour(pa.hex));

    await walk(NAME_CHANGE_MS);
    const chosen = (defaultPlayerColour(pa.hex) + 5) % (PLAYER_COLOUR_MAX + 1);
    expect(a.setColour(chosen)).toBe(true);
    await walk(1000);
    expect(aColour()).toBe(chosen);

    // The setter refuses what the palette does not hold; the colour stays.
    for (const c of HOSTILE_COLOURS) expect(a.setColour(c), String(c)).toBe(false);
    expect(a.colour).toBe(chosen);

    // A modified client sends them anyway: every such MOVE is dropped at the host and counted.
    const before = invalidDrops(sim);
    for (const c of HOSTILE_COLOURS) {
      pa.client.move({ ...here, x: 20 }, 'p', c);
      await sim.run(50);
    }
    expect(invalidDrops(sim) - before).toBe(HOSTILE_COLOURS.length);
    await walk(1000);
    expect(aColour()).toBe(chosen);

    // A change sooner than NAME_CHANGE_MS after the last waits its turn.
    await walk(NAME_CHANGE_MS);
    a.setColour(1);
    await walk(1000);
    expect(aColour()).toBe(1);
    a.setColour(2);
    await walk(1000);
    expect(aColour()).toBe(1);
    await walk(NAME_CHANGE_MS);
    expect(aColour()).toBe(2);
    close();
  });

  it('a host\'s POSITIONS introducing a player by a colour outside the palette is dropped whole', () => {
    const frame = (c: number) => subscriptionCodec.encode({ t: 'POSITIONS', rx: 0, rz: 0, e: 1, n: 0, b: new Uint8Array([0]), roster: [{ s: 0, id: new Uint8Array(20).fill(7), name: 'Bo', c }] });
    expect(subscriptionCodec.decode(frame(PLAYER_COLOUR_MAX)).t).toBe('POSITIONS');
    for (const c of HOSTILE_COLOURS) expect(() => subscriptionCodec.decode(frame(c)), String(c)).toThrow(CodecError);
  });
});
