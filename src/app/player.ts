// Page entry of the player (index.html), small on purpose. It begins what a join waits for
// longest before the rest of the page is even fetched: the node identity (minted in a
// worker the first time) and the relay's socket (join-start.ts); the network code
// (page-join.ts) and the page itself (player-page.ts: the world, three.js and the renderer,
// hosting) load beside them by dynamic import. Meanwhile it puts up the start screen,
// checks the invite and the browser, and begins the join; player-page.ts goes on from there.
import { parsePageConfig, touchOnlyDevice } from './config';
import { claimIdentityNow, deployDefaults, inviteProblem, joinDoorways, openRelayAhead } from './join-start';
import { hasWebGL2, StartScreen, webglProblemKind } from '../ui/start-screen';
import { StartLook } from '../ui/start-look';
import { Hud } from '../ui/hud';
import { pageStorage } from '../ui/ice-settings';
import { cannotDraw, explainStart, showHostingMode, showStage } from './start-flow';
import { TabClock } from '../core/tab-clock';
import { documentVisibility } from '../ui/page-visibility';
import { WorkerTicker } from './worker-ticker';
import { playerWork, sayMinting } from './key-work-minter';
import { PLAYER_PASS_BITS } from '../region/player-pass';
import { loadPlayerIdentity } from '../store/identity-store';
import { hasEd25519 } from '../core/identity';
import { endEarlyMint } from './early-mint';

async function main(): Promise<void> {
  const cfg = parsePageConfig(location.href, deployDefaults(), { touchOnly: touchOnlyDevice((q) => matchMedia(q).matches) });
  // A browser without WebGL2 is told at once, before it joins a network it could not show.
  const drawable = cfg.headless || hasWebGL2();
  // The node id first: a new profile's mint is the join's longest step and needs nothing
  // else here. Then the code, fetched in parallel: the join's, and the page's.
  const claimed = cfg.net && drawable ? claimIdentityNow() : undefined;
  // The workers index.html's script set drawing are not wanted by a page that joins nothing.
  if (!claimed) endEarlyMint();
  const joinCode = claimed ? import('./page-join') : undefined;
  const page = drawable ? import('./player-page') : undefined;
  // Hosting and the DHT keep time through the worker, so a hidden tab stays a good host.
  const ticker = new WorkerTicker();
  const clock = new TabClock(ticker, performance, documentVisibility());
  const loading = new StartScreen(document.getElementById('loading')!, cfg.world);
  // Name and colour can be chosen while the world loads (kept with the settings).
  const startLook = cfg.headless ? null : new StartLook(document.getElementById('loading')!, pageStorage());
  const hud = new Hud(document.getElementById('hud')!);
  const hostingNote = showHostingMode([document.getElementById('loading')!, document.querySelector<HTMLElement>('#menu .card')!], cfg);
  if (!page) return cannotDraw(loading, webglProblemKind(false), 'WebGL2RenderingContext is not defined');
  // A broken or altered invite is said at once (and not followed); the join goes on without it.
  const problem = cfg.net ? await inviteProblem(cfg) : undefined;
  if (problem) explainStart(loading, hud, cfg, { kind: problem.kind === 'malformed' ? 'invite-malformed' : 'invite-tampered', detail: problem.reason });
  // So is a browser that cannot check Ed25519 keys (Safari before 17): it signs with P-256,
  // but no current browser's handshake would pass its check, so its join's own failure would
  // name the wrong cause. The join goes on: it links to P-256 peers, and plays alone.
  const outdated = !!cfg.net && !problem && !(await hasEd25519());
  if (outdated) explainStart(loading, hud, cfg, { kind: 'browser-outdated', detail: "crypto.subtle has no Ed25519: other players' keys cannot be checked" });
  // The relay's socket, to the doorway the join uses (an altered invite's is not trusted),
  // connects while the id is minted.
  const relay = claimed && openRelayAhead(joinDoorways(cfg, problem));
  // The player key's proof of work (read, or minted in a worker the first time: ~1 s; edits need
  // it: region/player-pass.ts) begins once the node id is minted and the terrain first drawn:
  // begun beside them, it took their cores and both came later (the join waits for the id).
  let drawn = () => {};
  const firstFrame = new Promise<void>((resolve) => (drawn = resolve));
  const work = claimed && cfg.hosting ? Promise.all([claimed, firstFrame]).then(() => {
    const w = loadPlayerIdentity().then((p) => playerWork(p.publicKey, PLAYER_PASS_BITS));
    sayMinting(w, hud);
    return w;
  }) : undefined;
  void work?.then(() => void performance.mark('vp:player-key'), () => undefined);
  const joining = claimed && joinCode ? joinCode.then((j) => j.joinPeer(cfg, clock, (stage, note) => showStage(loading, stage, note), problem, { claimed, relay })) : null;
  const { playPage } = await page;
  await playPage({ cfg, ticker, clock, loading, startLook, hud, hostingNote, problem, outdated, joining, work, onDrawn: drawn });
}

main().catch((err: unknown) => {
  console.error(err);
  new StartScreen(document.getElementById('loading')!, '').fail(`Voxel Populi could not start: ${err instanceof Error ? err.message : String(err)}`);
});
