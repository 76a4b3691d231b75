// The receiver's checks of the looks the hosts give (player-looks.ts), one by one: only the
// look the node signed shows; a replayed, out-of-order, future or too frequent one
// changes nothing and is counted; the same look again costs no check.
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { VirtualClock } from '../core/virtual-clock';
import { makePlayerLook, LOOK_RULES, type PlayerLook } from '../region/player-look';
import { SimKeyring } from '../testing/sim-keyring';
import { PlayerLooks } from './player-looks';

const WALL = 1_750_000_000_000;
const node = (n: number): NodeId => new Uint8Array(20).fill(n);

function setup() {
  const keyring = new SimKeyring('looks');
  const clock = new VirtualClock();
  let wall = WALL;
  const shown: [string, string][] = [];
  const looks = new PlayerLooks({ world: 'w', verify: keyring.verify, clock, wallClock: () => wall, onShown: (hex, l) => shown.push([hex.slice(0, 2), l.n]) });
  const sign = (n: number, name: string, w: number, c = 0, world = 'w') => makePlayerLook(keyring.signer(node(n)), world, name, c, w);
  const take = async (n: number, l: PlayerLook) => {
    looks.take(node(n), idToHex(node(n)), l);
    await new Promise((r) => setTimeout(r, 0));
  };
  return { looks, clock, shown, sign, take, tick: (ms: number) => { wall += ms; clock.advanceSync(ms); } };
}

describe('player looks (the receiver\'s checks)', () => {
  it('shows a look its node signed; a rewritten, moved or other-world one is dropped as a bad signature', async () => {
    const { looks, shown, sign, take } = setup();
    const ann = await sign(1, 'Ann', WALL);
    await take(1, { ...ann, n: 'Mallory' });
    await take(1, { ...ann, c: 5 });
    await take(2, ann); // A's look put on node 2
    await take(1, await sign(1, 'Ann', WALL, 0, 'elsewhere'));
    await take(1, await sign(3, 'Mallory', WALL)); // node 3's key, named for node 1
    expect(looks.stats.dropped.signature).toBe(5);
    expect(shown).toEqual([]);
    await take(1, ann);
    expect(shown).toEqual([['01', 'Ann']]);
    expect(looks.shown(idToHex(node(1)))?.n).toBe('Ann');
  });

  it('the look shown, rewritten and passed on with its signature, is dropped as a bad signature, not taken for a repeat', async () => {
    const { looks, shown, sign, take } = setup();
    const ann = await sign(1, 'Ann', WALL);
    await take(1, ann);
    await take(1, { ...ann, n: 'Mallory' });
    await take(1, { ...ann, c: 5 });
    const rekeyed = { ...ann, k: (await sign(2, 'Ann', WALL)).k };
    await take(1, rekeyed);
    await take(1, rekeyed); // the same rewrite again (the slot's next update): not counted again
    expect(looks.stats).toMatchObject({ shown: 1, repeats: 0, refusedAgain: 1, dropped: { signature: 3 } });
    await take(1, ann);
    expect(looks.stats.repeats).toBe(1);
    expect(shown).toEqual([['01', 'Ann']]);
  });

  it('the same forged look again is not checked or counted again; a genuine look after it still shows', async () => {
    const { looks, shown, sign, take } = setup();
    const ann = await sign(1, 'Ann', WALL);
    const forged = { ...ann, n: 'Mallory' };
    for (let i = 0; i < 3; i++) await take(1, forged);
    expect(looks.stats).toMatchObject({ refusedAgain: 2, dropped: { signature: 1 } });
    await take(1, ann); // the forgery carried Ann's own signature: hers still shows
    expect(shown).toEqual([['01', 'Ann']]);
  });

  it('an older look, or another of the same stamp, is dropped as a replay; the same one again is a repeat', async () => {
    const { looks, shown, sign, take } = setup();
    const old = await sign(1, 'Ann', WALL - 1000);
    const now = await sign(1, 'Annie', WALL);
    await take(1, now);
    await take(1, old);
    await take(1, await sign(1, 'Mallory', WALL));
    await take(1, now);
    expect(looks.stats).toMatchObject({ shown: 1, repeats: 1, dropped: { replay: 2 } });
    expect(shown).toEqual([['01', 'Annie']]);
  });

  it('a look stamped ahead of our clock is dropped (it would pin the player\'s later ones out)', async () => {
    const { looks, shown, sign, take } = setup();
    await take(1, await sign(1, 'Ann', WALL + LOOK_RULES.maxAheadMs + 1));
    expect(looks.stats.dropped).toMatchObject({ ahead: 1 });
    expect(shown).toEqual([]);
    await take(1, await sign(1, 'Ann', WALL + LOOK_RULES.maxAheadMs));
    expect(shown).toEqual([['01', 'Ann']]);
  });

  it('changes of one player\'s look beyond the rate are dropped; the same look signed again is not a change', async () => {
    const { looks, shown, sign, take, tick } = setup();
    await take(1, await sign(1, 'A0', WALL));
    for (let i = 1; i <= 5; i++) await take(1, await sign(1, `A${i}`, WALL + i));
    expect(shown.map(([, n]) => n)).toEqual(['A0', 'A1', 'A2', 'A3']);
    expect(looks.stats.dropped.rate).toBe(2);
    await take(1, await sign(1, 'A3', WALL + 10)); // signed again: no change
    expect(looks.stats.shown).toBe(5);
    tick(5000);
    await take(1, await sign(1, 'A6', WALL + 5010));
    expect(looks.shown(idToHex(node(1)))?.n).toBe('A6');
  });
});
