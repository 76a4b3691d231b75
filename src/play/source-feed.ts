// What a chunk source reports reaches the player's world model and avatar smoother here, in
// play/: the receiving side of an edit runs source -> world model within play/, and the page
// (app/) only hands the world and the smoothed avatars to the renderer (docs/EDIT-PATH.md).
import type { Emitter } from '../core/emitter';
import type { ChunkSource } from './chunk-source';
import type { NetworkSourceEvents } from './network-chunk-source';
import type { RemotePlayers } from './remote-player-smoother';
import type { WorldModel } from './world-model';

/** Applies every block change `source` reports to `world` (a source nobody else writes sends none). Returns the unsubscribe. */
export function feedWorld(source: ChunkSource, world: Pick<WorldModel, 'applyBlock'>): () => void {
  return source.events.on('blocks', ({ changes }) => {
    for (const c of changes) world.applyBlock(c.x, c.y, c.z, c.id, c.stamp);
  });
}

/**
 * Feeds each player position `source` reports to `remote`, once per report: the list holds
 * every player known, and only those reported since the last event are new snapshots (a
 * host sends each player at its own rate: host/interest-lists.ts). `now`: the page's clock
 * of the smoother. Returns the unsubscribe.
 */
export function feedRemotePlayers(source: { events: Pick<Emitter<NetworkSourceEvents>, 'on'> }, remote: Pick<RemotePlayers, 'update'>, now: () => number): () => void {
  const fedAt = new Map<string, number>();
  return source.events.on('players', ({ players }) => {
    for (const p of players) {
      if (fedAt.get(p.hex) === p.at) continue;
      fedAt.set(p.hex, p.at);
      remote.update(p.hex, p.name, p.x, p.y, p.z, p.yaw, p.pitch, now(), undefined, p.colour);
    }
    // Players no longer listed are forgotten once the map has grown well past the list.
    if (fedAt.size > players.length * 2 + 64) for (const hex of fedAt.keys()) if (!players.some((p) => p.hex === hex)) fedAt.delete(hex);
  });
}
