import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { STONE } from '../world/blocks';
import { Chunk } from '../world/chunk';
import type { NetworkSourceEvents } from './network-chunk-source';
import type { RemotePlayer } from './remote-player-list';
import { RemotePlayers } from './remote-player-smoother';
import { feedRemotePlayers, feedWorld } from './source-feed';
import { WorldModel } from './world-model';

const player = (hex: string, x: number, at: number): RemotePlayer => ({ hex, name: hex, colour: 1, region: '0,0', at, x, y: 10, z: 0, yaw: 0, pitch: 0 } as RemotePlayer);

describe('a chunk source feeding the player side', () => {
  it("applies another player's block change to the world model, which tells the renderer's listener", () => {
    const events = new Emitter<NetworkSourceEvents>();
    const world = new WorldModel();
    world.addChunk(new Chunk(0, 0));
    const seen: number[] = [];
    world.events.on('blockChanged', (b) => seen.push(b.id));
    const stop = feedWorld({ events, load: () => Promise.reject(new Error('unused')), commitEdit: () => Promise.resolve() }, world);
    events.emit('blocks', { changes: [{ x: 3, y: 5, z: 4, id: STONE }] });
    expect(world.blockAt(3, 5, 4)).toBe(STONE);
    expect(seen).toEqual([STONE]);
    stop();
    events.emit('blocks', { changes: [{ x: 3, y: 6, z: 4, id: STONE }] });
    expect(seen).toEqual([STONE]);
  });

  it('feeds each report of a player once: a player listed again at the same stamp is no new snapshot', () => {
    const events = new Emitter<NetworkSourceEvents>();
    const updates: string[] = [];
    const remote = new RemotePlayers();
    const update = remote.update.bind(remote);
    remote.update = (...a: Parameters<RemotePlayers['update']>) => { updates.push(`${a[0]}@${a[2]}`); update(...a); };
    let now = 1000;
    feedRemotePlayers({ events }, remote, () => now);
    events.emit('players', { players: [player('aa', 1, 100), player('bb', 2, 100)] });
    now = 1050;
    events.emit('players', { players: [player('aa', 1, 100), player('bb', 3, 150)] });
    expect(updates).toEqual(['aa@1', 'bb@2', 'bb@3']);
    expect(remote.sample(now).map((s) => s.id).sort()).toEqual(['aa', 'bb']);
  });
});
