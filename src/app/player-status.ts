// What the player page reports a few times a second: the HUD's lines (place, chunk, fps,
// loading, drawing cost, the peer network, tentative edits), the errors the chunk streamer
// and the tentative edits left since last time, and the start screen's regions stage.
import type { ChunkStreamer } from '../play/chunk-streamer';
import type { PlayerSession } from '../play/player-session';
import type { RemotePlayers } from '../play/remote-player-smoother';
import type { WorldModel } from '../play/world-model';
import type { Hud } from '../ui/hud';
import { errorWords } from '../ui/error-words';
import type { StartScreen } from '../ui/start-screen';
import type { PageConfig } from './config';
import type { NetSession } from './net-session';
import type { Peer } from '../bootstrap/peer';
import type { WorldView } from './world-view';

export interface PlayerStatusArgs {
  cfg: PageConfig;
  hud: Hud;
  loading: StartScreen;
  peer: Peer | null;
  net: NetSession | null;
  world: WorldModel;
  session: PlayerSession;
  streamer: ChunkStreamer;
  view: WorldView;
  remote: RemotePlayers;
  renderDistance: () => number;
}

export class PlayerStatus {
  /** The regions stage is said (passed or skipped); without the network there is none. */
  private regionsSaid: boolean;

  constructor(private readonly args: PlayerStatusArgs) {
    this.regionsSaid = !args.net;
  }

  update(fps: number): void {
    const { cfg, hud, peer, net, world, session, streamer, view, remote } = this.args;
    this.regionsStage();
    const b = session.body;
    const v = view.stats();
    const roles = net?.host.roles();
    const netLine = peer
      ? `peer ${peer.id.slice(0, 8)} · ${peer.status} · ${peer.dht.linkInfo().length} links` + (roles ? ` · hosting ${roles.primary.length}+${roles.backup.length} · ${remote.size} players` : '')
      : cfg.net ? 'offline (could not join)' : 'offline (net=off)';
    hud.update({ x: b.x, y: b.y, z: b.z, ...session.column, fps, chunks: world.size, pending: streamer.pending, renderDistance: this.args.renderDistance(), flying: session.flying, drawCalls: v.drawCalls, triangles: v.triangles, net: netLine, tentative: net?.source.tentative.size ?? 0 });
    if (net?.source.tentative.lastError) { hud.showMessage(errorWords(net.source.tentative.lastError)); net.source.tentative.lastError = undefined; }
    if (streamer.lastError) { hud.showMessage(streamer.lastError.message); streamer.lastError = undefined; }
  }

  /**
   * The regions stage passes once a certified primary serves a region around the player;
   * alone, nobody can certify one (edits stay tentative until others come).
   */
  private regionsStage(): void {
    const { loading, peer, net } = this.args;
    if (peer?.status === 'online') loading.resolved(); // someone turned up: no problem left to explain
    if (this.regionsSaid || !net) return;
    if (net.source.liveRegions().some((region) => net.client.isReady(region))) loading.stage('regions', 'done');
    else if (peer?.status !== 'alone') return;
    else loading.stage('regions', 'skipped', 'alone: edits kept until others come');
    this.regionsSaid = true;
  }
}
