// The player page's start, said on the start screen: each join stage as it passes, and a
// failure in words (ui/start-screen.ts) with what the player can do. "No one else here
// yet" is the first player's normal case: said, but it does not hold the player up.
import type { Hud } from '../ui/hud';
import { pageStorage } from '../ui/ice-settings';
import { PROBLEM_WORDS, type StartProblemKind, type StartScreen } from '../ui/start-screen';
import type { PageConfig } from './config';
import type { JoinStage } from '../bootstrap/peer';
import { HostingNote } from '../ui/hosting-note';

/** Marks a join stage of bootstrap/peer.ts on the start screen. */
export function showStage(screen: StartScreen, stage: JoinStage, note: string): void {
  if (stage === 'peers-listed') screen.progress(`Joining the peer network… (${note})`, 0.1);
  else screen.stage(stage, 'done', note);
}

/** Says why the start went wrong; `vp:start-explained` marks when (bench/start-bench.ts). */
export function explainStart(screen: StartScreen, hud: Hud, cfg: PageConfig, p: { kind: StartProblemKind; detail: string }): void {
  performance.mark('vp:start-explained', { detail: p.kind });
  if (p.kind === 'nobody-here') {
    screen.stage('first-link', 'skipped', 'no one else here yet');
    hud.showMessage(`${PROBLEM_WORDS['nobody-here'].title}. ${PROBLEM_WORDS['nobody-here'].text}`, 'notice');
    return;
  }
  const failed = p.kind === 'doorway-unreachable' ? 'doorway' : p.kind.startsWith('invite') ? null : 'first-link';
  if (failed) screen.stage(failed, 'failed');
  if (!p.kind.startsWith('invite')) screen.stage('dht-ready', 'skipped', 'alone for now');
  screen.problem({
    kind: p.kind,
    detail: p.detail,
    retry: () => location.reload(),
    // Where no connection got through, the player may add a TURN server of their own, then Retry.
    ...(['no-direct-path', 'turn-failed', 'turn-refused', 'relay-needs-turn'].includes(p.kind) ? { network: pageStorage() } : {}),
    ...(cfg.invite.kind !== 'none' ? { withoutInvite: () => {
      location.hash = new URLSearchParams({ world: cfg.world, seed: cfg.seed }).toString();
      location.reload();
    } } : {}),
  });
}

/**
 * Says, on the start screen and in the pause menu, that this tab plays without hosting and
 * offers to host from this device (ui/hosting-note.ts; a phone plays without hosting by
 * default: keeping other players' regions would spend its battery). A hosting tab says
 * nothing: that is the normal case.
 */
export function showHostingMode(roots: HTMLElement[], cfg: Pick<PageConfig, 'net' | 'playOnly' | 'hostingChosen'>): HostingNote | null {
  return cfg.net && cfg.playOnly ? new HostingNote(roots, cfg.hostingChosen) : null;
}

/** The page cannot draw: the start screen says why and what to do, with Retry and no "play alone" (there is nothing to play in). */
export function cannotDraw(screen: StartScreen, kind: StartProblemKind, detail: string): void {
  screen.stage('terrain', 'failed', 'no WebGL2');
  screen.problem({ kind, detail, retry: () => location.reload(), alone: false });
}
