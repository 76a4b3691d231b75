import { describe, expect, it } from 'vitest';
import { idToHex, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import type { PlayerFrame } from '../region/subscription-messages';
import { unnamedPlayerName } from '../world/player-name';
import { sampleLook } from '../testing/sample-look';
import { RemotePlayerList } from './remote-player-list';

const rand = seededRandom(7);
const [self, a, b] = [randomId(rand), randomId(rand), randomId(rand)];
const at = (id: Uint8Array, x: number): PlayerFrame => ({ id, look: undefined, x, y: 10, z: 0, yaw: 0, pitch: 0 });
const hexes = (list: RemotePlayerList) => list.list().map((p) => p.hex).sort();

describe('RemotePlayerList (the other players the watched regions list)', () => {
  it('lists the players a POSITIONS names, never this node, unnamed until a look is proven; keeps those not named', () => {
    const list = new RemotePlayerList(idToHex(self), () => undefined);
    list.take('0,0', [at(self, 1), at(a, 2), at(b, 3)], [], 0);
    expect(hexes(list)).toEqual([idToHex(a), idToHex(b)].sort());
    expect(list.list().find((p) => p.hex === idToHex(a))).toMatchObject({ x: 2, region: '0,0', at: 0, name: unnamedPlayerName(idToHex(a)) });
    list.take('0,0', [at(a, 5)], [], 100); // b's turn did not come: it stays
    expect(hexes(list)).toEqual([idToHex(a), idToHex(b)].sort());
    list.showLook(idToHex(b), sampleLook('Bea', 4));
    expect(list.list().find((p) => p.hex === idToHex(b))).toMatchObject({ name: 'Bea', colour: 4 });
  });

  it('a player named gone leaves, only from the region that named it; a region no longer watched takes its players along', () => {
    const list = new RemotePlayerList(idToHex(self), () => undefined);
    list.take('0,0', [at(a, 1)], [], 0);
    list.take('1,0', [at(b, 20)], [], 0);
    list.take('1,0', [], [idToHex(a)], 10); // another region cannot take a away
    expect(hexes(list)).toEqual([idToHex(a), idToHex(b)].sort());
    list.take('0,0', [], [idToHex(a)], 20);
    expect(hexes(list)).toEqual([idToHex(b)]);
    list.dropRegion('1,0');
    expect(list.list()).toEqual([]);
  });

  it('a player unheard for 3 s goes at the next sweep', () => {
    const list = new RemotePlayerList(idToHex(self), () => undefined);
    list.take('0,0', [at(a, 1), at(b, 2)], [], 0);
    list.take('0,0', [at(b, 2)], [], 2900);
    expect(hexes(list)).toEqual([idToHex(a), idToHex(b)].sort());
    list.take('0,0', [at(b, 2)], [], 3200); // the sweep runs at most every 250 ms: 3,100 would fall in the last one's wait
    expect(hexes(list)).toEqual([idToHex(b)]);
  });
});
