// What the player page reports a few times a second: the HUD's lines (place, chunk, fps,
// loading, drawing cost, the peer network, tentative edits), the errors the chunk streamer
// and the tentative edits left since last time, the start screen's regions stage, and, for a
// play-only tab, whether any host answers for the regions around it (ui/hosting-note.ts).
import type { ChunkStreamer } from '../play/chunk-streamer';
import type { PlayerSession } from '../play/player-session';
import type { RemotePlayers } from '../play/remote-player-smoother';
import type { WorldModel } from '../play/world-model';
import type { Hud } from '../ui/hud';
import { errorWords } from '../ui/error-words';
import type { StartScreen } from '../ui/start-screen';
import { NO_HOST_TEXT, noHostReachable, type HostingNote } from '../ui/hosting-note';
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
  /** A play-only tab's note on hosting (null when the tab hosts). */
  hostingNote?: HostingNote | null;
  renderDistance: () => number;
}

export class PlayerStatus {
  /** The regions stage is said (passed or skipped); without the network there is none. */
  private regionsSaid: boolean;
  private readonly startedAt = performance.now();

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
    if (!net) return;
    const served = net.source.liveRegions().some((region) => net.client.isReady(region));
    const noHost = noHostReachable({ alone: peer?.status === 'alone', anyServed: served, sinceStartMs: performance.now() - this.startedAt });
    const note = this.args.hostingNote;
    // Said once while playing too (the note is in the pause menu and on the start screen).
    if (note && noHost && !note.saysNoHost) this.args.hud.showMessage(NO_HOST_TEXT, 'notice');
    note?.setNoHost(noHost);
    if (this.regionsSaid) return;
    if (served) loading.stage('regions', 'done');
    else if (noHost && note) loading.stage('regions', 'skipped', 'no host reachable: edits kept on this device until one comes');
    else if (peer?.status !== 'alone') return;
    else loading.stage('regions', 'skipped', 'alone: edits kept until others come');
    this.regionsSaid = true;
    loading.joinSettled();
  }
}
