// The hosting page's list of who stands in a region: names only as the players' nodes signed
// them, checked by the one checker a player tab uses (play/player-looks.ts); the look a MOVE
// carried is the sender's word, and a forged, borrowed or replayed one lists no name.
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { VirtualClock } from '../core/virtual-clock';
import { PlayerLooks } from './player-looks';
import { makePlayerLook, type PlayerLook } from '../region/player-look';
import type { PlayerFrame } from '../region/subscription-messages';
import { SimKeyring } from '../testing/sim-keyring';
import { presentPlayers } from './present-players';

const WALL = 1_750_000_000_000;
const node = (n: number): NodeId => new Uint8Array(20).fill(n);
const short = (n: number) => idToHex(node(n)).slice(0, 6);

function setup() {
  const keyring = new SimKeyring('hosting-api');
  const looks = new PlayerLooks({ world: 'w', verify: keyring.verify, clock: new VirtualClock(), wallClock: () => WALL });
  const sign = (n: number, name: string, w = WALL) => makePlayerLook(keyring.signer(node(n)), 'w', name, 0, w);
  /** A MOVE from node `n` carrying `look`, as the primary's presence holds it (keyed by the sender). */
  const standing = (n: number, look: PlayerLook | undefined): [string, PlayerFrame] => [idToHex(node(n)), { id: node(n), look, x: 0, y: 0, z: 0, yaw: 0, pitch: 0 }];
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return { looks, sign, standing, settle };
}

describe('the players standing in a hosted region', () => {
  it('by proven name, then by the 6 hex of their node id (two of one name told apart); unproven till checked', async () => {
    const { looks, sign, standing, settle } = setup();
    const list = [standing(0xff, await sign(0xff, 'Zed')), standing(0xaa, await sign(0xaa, 'Ann')), standing(0x11, await sign(0x11, 'Ann')), standing(0x55, undefined)];
    // The first listing starts the checks: nobody is named before their signature held.
    expect(presentPlayers(list, looks).map((p) => p.name)).toEqual([`? ${short(0x11)}`, `? ${short(0x55)}`, `? ${short(0xaa)}`, `? ${short(0xff)}`]);
    await settle();
    expect(presentPlayers(list, looks)).toEqual([{ name: `? ${short(0x55)}`, id: short(0x55) }, { name: 'Ann', id: short(0x11) }, { name: 'Ann', id: short(0xaa) }, { name: 'Zed', id: short(0xff) }]);
    expect(looks.stats).toMatchObject({ shown: 3, repeats: 3 });
    // No checker: every player unnamed.
    expect(presentPlayers(list, undefined).map((p) => p.name)).toEqual([`? ${short(0x11)}`, `? ${short(0x55)}`, `? ${short(0xaa)}`, `? ${short(0xff)}`]);
  });

  it('a MOVE carrying a forged look, another node\'s look or an older one lists no name from it, and is counted', async () => {
    const { looks, sign, standing, settle } = setup();
    const ann = await sign(1, 'Ann');
    const annie = await sign(2, 'Annie');
    const list = [
      standing(1, { ...ann, n: 'Mallory' }), // Ann's signature, another name
      standing(3, annie), // node 2's look in node 3's MOVE
    ];
    presentPlayers(list, looks);
    await settle();
    expect(presentPlayers(list, looks)).toEqual([{ name: `? ${short(1)}`, id: short(1) }, { name: `? ${short(3)}`, id: short(3) }]);
    expect(looks.stats.dropped.signature).toBe(2);

    // Node 2 renamed itself and its newer look was proven; a MOVE still carrying the old one lists the newer.
    presentPlayers([standing(2, await sign(2, 'Bea', WALL + 1000))], looks);
    await settle();
    presentPlayers([standing(2, annie)], looks);
    await settle();
    expect(presentPlayers([standing(2, annie)], looks)).toEqual([{ name: 'Bea', id: short(2) }]);
    expect(looks.stats.dropped.replay).toBe(2);
  });
});
