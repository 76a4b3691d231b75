// The player page's network, awaited beside its first frame (player-page.ts draws the world
// from its seed meanwhile): the join the entry began (player.ts, page-join.ts), its failure
// said on the start screen, and this tab's session in the shared world (net-session.ts).
import type { Peer } from '../bootstrap/peer';
import type { ProbeFrameGate } from '../play/probe-frame-gate';
import { loadPlayerIdentity, playerIdentityMadeHere } from '../store/identity-store';
import type { Hud } from '../ui/hud';
import type { StartScreen } from '../ui/start-screen';
import type { TabClock } from '../core/tab-clock';
import type { PageConfig } from './config';
import type { InviteProblem } from './join-start';
import type { PlayerWork } from './key-work-minter';
import { startNetSession, type NetSession } from './net-session';
import { explainStart } from './start-flow';
import type { WorkerTicker } from './worker-ticker';

export interface PageNetwork {
  /** The joined peer (null: no join, or it failed). */
  peer: Peer | null;
  /** Hosting and playing in the shared world (null: no join, hosting off, or it failed: the one-tab world). */
  net: NetSession | null;
}

export interface PageNetworkArgs {
  cfg: PageConfig;
  clock: TabClock;
  ticker: WorkerTicker;
  loading: StartScreen;
  hud: Hud;
  problem: InviteProblem | undefined;
  outdated: boolean;
  joining: Promise<Peer> | null;
  work: Promise<PlayerWork> | undefined;
  probeGate: ProbeFrameGate | null;
}

/** The join awaited and the session started; a failure is said, and the page plays alone. */
export async function joinNetwork({ cfg, clock, ticker, loading, hud, problem, outdated, joining, work, probeGate }: PageNetworkArgs): Promise<PageNetwork> {
  if (!joining) return { peer: null, net: null };
  loading.progress('Joining the peer network…', 0.05);
  let peer: Peer | null = null;
  try {
    peer = await joining;
    if (peer.failure && !problem && !outdated) {
      explainStart(loading, hud, cfg, peer.failure);
      // Judged anew (taken for blocked, it gathered late): said again while the player has not chosen.
      const joined = peer;
      joined.onFailure((f) => { if (loading.problemShown) explainStart(loading, hud, cfg, f); });
    }
    return { peer, net: cfg.hosting ? await startNetSession(peer, cfg, clock, ticker, work ? { work } : {}, probeGate) : null };
  } catch (err) {
    hud.showMessage(`Could not join the peer network, playing alone: ${(err as Error).message}`);
    return { peer, net: null };
  }
}

/**
 * Whether this profile's player key was made by this page (read, or made now if it has none):
 * a new player has no place in the DHT to look up, so spawns without the network.
 */
export async function newPlayerHere(): Promise<boolean> {
  await loadPlayerIdentity().catch(() => undefined);
  return playerIdentityMadeHere();
}
