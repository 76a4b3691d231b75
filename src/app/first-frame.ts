// The player page's first frame, drawn from the world's seed (play/seed-first-source.ts):
// it waits for neither the join nor a region's host. Where the player's spawn needs nothing
// of the network (a place saved in this browser, a new player's open ground, a page that does
// not join) the frame loop starts at once, while the page joins; a player key from elsewhere
// may have a place in the DHT, so that page starts its loop once the join can look it up.
// After the join the page attaches the real source (the hosts', or the one-tab world's),
// and `ready` waits for the columns around the player to show what it says.
import type { TentativeAware } from '../play/block-editor';
import type { ChunkSource } from '../play/chunk-source';
import { wantedColumns } from '../play/chunk-ring';
import { ChunkStreamer } from '../play/chunk-streamer';
import type { PlayerSession } from '../play/player-session';
import type { RemotePlayers } from '../play/remote-player-smoother';
import { SeedFirstSource } from '../play/seed-first-source';
import { feedWorld } from '../play/source-feed';
import { stepOutOfBlocks } from '../play/spawn-point';
import type { WorldModel } from '../play/world-model';
import type { SavedPlayer } from '../store/world-store';
import type { StartScreen } from '../ui/start-screen';
import type { PageConfig } from './config';
import { FrameLoop } from './frame-loop';
import type { NetSession } from './net-session';
import { startSession } from './player-saving';
import type { WorldView } from './world-view';

export interface FirstFrameParts {
  cfg: PageConfig;
  world: WorldModel;
  view: WorldView;
  remote: RemotePlayers;
  loading: StartScreen;
  saved: SavedPlayer | undefined;
  renderDistance: number;
}

/** The page's session and loop once its network is there, and when it is ready. */
export interface Drawn {
  session: PlayerSession;
  loop: FrameLoop;
  /** The terrain around the player drawn, and what the real source says merged into it (`vp:near-merged`). */
  ready: Promise<void>;
}

export class FirstFrame {
  readonly source: SeedFirstSource;
  readonly streamer: ChunkStreamer;
  private early: { session: PlayerSession; loop: FrameLoop } | undefined;

  constructor(private readonly parts: FirstFrameParts) {
    this.source = new SeedFirstSource(parts.cfg.seed);
    this.streamer = new ChunkStreamer(parts.world, this.source);
    // Other players' edits reach the world model in play/; the merge of the seed's columns comes this way too.
    feedWorld(this.source, parts.world);
  }

  /** Starts drawing now when `spawnHere` (the spawn needs nothing of the network). */
  async begin(spawnHere: boolean): Promise<void> {
    if (!spawnHere) return;
    const session = await startSession(this.parts.world, this.parts.saved, null, this.parts.cfg.seed);
    performance.mark('vp:spawn');
    this.early = { session, loop: this.loop(session) };
  }

  /** The join is over: the session (spawned now if it waited for the DHT's record), the loop, and `real` attached. */
  async attach(net: NetSession | null, real: ChunkSource & Partial<TentativeAware>): Promise<Drawn> {
    const { world, saved, cfg } = this.parts;
    const session = this.early?.session ?? (await startSession(world, saved, net, cfg.seed));
    if (!this.early) performance.mark('vp:spawn');
    const loop = this.early?.loop ?? this.loop(session);
    this.source.attach(real);
    // A region's snapshot is waited for as a load waits for it (network-chunk-source.ts snapshotWaitMs).
    const ready = loop.ready.then(() => Promise.all(wantedColumns(session.column, 1).map((c) => this.source.whenMerged(c.cx, c.cz)))).then(() => {
      performance.mark('vp:near-merged');
      stepOutOfBlocks(world, session);
    });
    return { session, loop, ready };
  }

  private loop(session: PlayerSession): FrameLoop {
    const { world, view, remote, loading, renderDistance, cfg } = this.parts;
    const loop = new FrameLoop({ world, session, streamer: this.streamer, view, remote, loading, renderDistance, headless: cfg.headless, maxFps: () => cfg.maxFps });
    loop.start();
    void loop.ready.then(() => this.source.drawn());
    return loop;
  }
}
