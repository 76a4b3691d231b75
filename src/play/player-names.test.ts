// A player's chosen name and colour reach the players around them as their look, signed by
// their node's key (region/player-look.ts): with their MOVE to the region's primary, then in
// the POSITIONS roster. A hostile name or colour from a player is dropped at the host and
// counted; a host that rewrites a look, puts another node's or its own on a player, or
// replays an old one changes nothing at the receivers, which count it; changes are bounded
// (NAME_CHANGE_MS at the hosts, a rate at each receiver).
import { describe, expect, it } from 'vitest';
import { CodecError } from '../core/codec';
import { subscriptionCodec } from '../region/subscription-messages';
import { makePlayerLook, type PlayerLook } from '../region/player-look';
import { idToHex } from '../core/node-id';
import { NAME_CHANGE_MS } from '../host/region-presence';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { sampleLook } from '../testing/sample-look';
import { defaultPlayerColour, PLAYER_COLOUR_MAX } from '../world/player-colour';
import { unnamedPlayerName } from '../world/player-name';
import { NetworkChunkSource, type RemotePlayer } from './network-chunk-source';

/** What a hostile sender might put where a colour goes. */
const HOSTILE_COLOURS = [PLAYER_COLOUR_MAX + 1, -1, 1.5, 0xff0000, Number.MAX_SAFE_INTEGER] as const;
const HOSTILE = ['<img src=x onerror=alert(1)>', 'Ann\u0000', 'Ann\u202eeL', 'x'.repeat(17), 'A\u200dnn', ' Ann Lee', ''];

function source(sim: HostSim, p: SimPeer, name: string): NetworkChunkSource {
  return new NetworkChunkSource({ seed: 'seed-1', world: sim.world, client: p.client, dht: p.dht, clock: sim.clock, options: { name }, signer: sim.keyring.signer(p.dht.selfId), verify: sim.keyring.verify });
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
  // Every peer but A and B relays the rosters it sends through `rewrite` (honest until a test says): the region's hosts, whichever serves B.
  let rewrite = (look: PlayerLook | undefined, _id: Uint8Array): PlayerLook | undefined => look;
  for (const p of sim.live()) {
    if (p === pa || p === pb) continue;
    const send = p.wire.players.send.bind(p.wire.players);
    p.wire.players.send = (to, m) => {
      if (m.t !== 'POSITIONS' || !m.roster) return send(to, m);
      return send(to, { ...m, roster: m.roster.map(({ l, ...r }) => { const n = rewrite(l, r.id); return n ? { ...r, l: n } : r; }) });
    };
  }
  /** From now on, the hosts put `forge(A's look)` where A's look goes. */
  const forgeA = (forge: (look: PlayerLook | undefined) => PlayerLook | undefined) => {
    rewrite = (look, id) => (idToHex(id) === pa.hex ? forge(look) : look);
  };
  const close = () => {
    a.close();
    b.close();
    sim.stopAll();
  };
  return { sim, pa, pb, a, b, here, walk, aSeen, forgeA, players: () => players, close };
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

    // A modified client sends them anyway (a look of the right shape otherwise): every such MOVE is dropped at the host and counted.
    const before = invalidDrops(sim);
    for (const n of HOSTILE) {
      pa.client.move({ ...here, x: 20 }, sampleLook(n));
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

  it('a host\'s POSITIONS introducing a player by a look with a hostile name or a colour outside the palette is dropped whole', () => {
    const frame = (n: string, c = 0) => subscriptionCodec.encode({ t: 'POSITIONS', rx: 0, rz: 0, e: 1, n: 0, b: new Uint8Array([0]), roster: [{ s: 0, id: new Uint8Array(20).fill(7), l: sampleLook(n, c) }] });
    expect(subscriptionCodec.decode(frame('Bo', PLAYER_COLOUR_MAX)).t).toBe('POSITIONS');
    for (const n of HOSTILE) expect(() => subscriptionCodec.decode(frame(n)), n).toThrow(CodecError);
    for (const c of HOSTILE_COLOURS) expect(() => subscriptionCodec.decode(frame('Bo', c)), String(c)).toThrow(CodecError);
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
      pa.client.move({ ...here, x: 20 }, sampleLook('p', c));
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

  it('a host that rewrites a look, or puts its own, another player\'s or another world\'s on a player, shows nothing of it; each is counted', async () => {
    const { sim, pa, pb, a, b, walk, aSeen, forgeA, close } = await twoPlayers(23);
    const signer = (p: SimPeer) => sim.keyring.signer(p.dht.selfId);
    const mallory = sim.live().find((p) => p !== pa && p !== pb)!;
    const now = Date.now();
    const forgeries: [string, (l: PlayerLook | undefined) => PlayerLook | undefined][] = [
      ['name rewritten', (l) => l && { ...l, n: 'Mallory' }],
      ['colour rewritten', (l) => l && { ...l, c: (l.c + 1) % (PLAYER_COLOUR_MAX + 1) }],
      // Signed, but by the host's own node, B's node, or A's node in another world.
      ['the host\'s own', () => mallorys],
      ['B\'s', () => bobs],
      ['another world\'s', () => elsewhere],
    ];
    const mallorys = await makePlayerLook(signer(mallory), sim.world, 'Mallory', 0, now);
    const bobs = await makePlayerLook(signer(pb), sim.world, 'Bob', 3, now);
    const elsewhere = await makePlayerLook(signer(pa), 'another-world', 'Mallory', 0, now);
    const dropped = () => Object.values(b.looks!.stats.dropped).reduce((x, y) => x + y, 0);
    for (const [i, [what, forge]] of forgeries.entries()) {
      forgeA(forge);
      // A renames: its new slot is introduced to B under the forgery.
      a.setName(`Ann ${i}`);
      const before = dropped();
      await walk(NAME_CHANGE_MS + 1500);
      expect(aSeen()?.name, what).toBe(unnamedPlayerName(pa.hex));
      expect(aSeen()?.colour, what).toBe(defaultPlayerColour(pa.hex));
      expect(dropped() - before, what).toBeGreaterThan(0);
    }
    // Honest again: A's own look shows.
    forgeA((l) => l);
    a.setName('Ann Lee');
    await walk(NAME_CHANGE_MS + 1500);
    expect(aSeen()?.name).toBe('Ann Lee');
    close();
  });

  it('a host that replays a player\'s older look changes nothing at a receiver that holds a newer one; counted', async () => {
    const { a, b, walk, aSeen, forgeA, close } = await twoPlayers(24);
    let first: PlayerLook | undefined;
    forgeA((l) => (first ??= l));
    a.setName('Ann Lee');
    await walk(2000);
    expect(aSeen()?.name).toBe('Ann Lee');
    forgeA((l) => l);
    await walk(NAME_CHANGE_MS);
    a.setName('Annie');
    await walk(1500);
    expect(aSeen()?.name).toBe('Annie');
    // From now on the hosts introduce A by the first look it signed.
    forgeA(() => first);
    const before = b.looks!.stats.dropped.replay;
    await walk(NAME_CHANGE_MS);
    a.setName('Ann Again');
    await walk(1500);
    expect(aSeen()?.name).toBe('Annie');
    expect(b.looks!.stats.dropped.replay).toBeGreaterThan(before);
    expect(first?.n).toBe('Ann Lee');
    close();
  });
});
