// The start screen: shown from page load until the terrain under the player is drawn. It
// names the world, lists the stages of joining as they pass (with times), and when the
// join goes wrong it says so in a player's words, with what to do: Retry, or play here
// alone for now (and what that means). The page keeps loading underneath: choosing to
// play alone only lifts the screen, and if other players turn up meanwhile the problem
// panel goes away by itself (`resolved`). The terrain can be drawn (from the world's seed)
// before the join is over: the screen then shrinks to a panel in a corner over the world,
// its stages still ticking, until the page says the join has settled (`joinSettled`).

import { mountIceSettingsForm } from './ice-settings-form';
import type { IceSettingsStorage } from './ice-settings';

export type StageName = 'doorway' | 'first-link' | 'dht-ready' | 'regions' | 'terrain';
export type StageState = 'pending' | 'done' | 'skipped' | 'failed';

/** Why the start went wrong (mirrors bootstrap/peer.ts JoinFailureKind, plus the invite's own problems and the page's drawing). */
export type StartProblemKind =
  | 'doorway-unreachable' | 'inviter-gone' | 'webrtc-blocked' | 'no-direct-path' | 'turn-failed' | 'turn-refused' | 'no-answer' | 'relay-needs-turn' | 'webrtc-unsupported' | 'nobody-here'
  | 'invite-malformed' | 'invite-tampered'
  | 'webgl2-unsupported' | 'webgl2-unavailable' | 'browser-outdated';

const STAGES: [StageName, string][] = [
  ['doorway', 'Meeting point (relay)'],
  ['first-link', 'First link to another player'],
  ['dht-ready', 'Peer network'],
  ['regions', 'World regions attached'],
  ['terrain', 'Terrain drawn'],
];

const ALONE = 'Play here alone for now';
/** The panel over the world drawn from the seed while the page joins. */
const SEED_DRAWN = 'Drawn from the world’s seed: what players built shows as its regions attach…';
const ALONE_MEANS = 'What you build is kept in this browser and merged into the shared world when other players come; this tab keeps looking for them in the background.';

/** The words a player reads, per problem. */
export const PROBLEM_WORDS: Record<StartProblemKind, { title: string; text: string }> = {
  'doorway-unreachable': {
    title: 'Cannot reach the meeting point',
    text: 'Players meet through a small server (the relay) before they connect to each other, and it did not answer. Check your internet connection, or ask for a new invite link: the world may have moved.',
  },
  'inviter-gone': {
    title: 'Your friend has left',
    text: 'The player who invited you is no longer online, and nobody else is in this world right now.',
  },
  'webrtc-blocked': {
    title: 'Cannot connect to the other players',
    text: 'Other players are online, but no direct connection to them could be opened. A firewall, a VPN or a browser setting may be blocking WebRTC; another network or browser may work.',
  },
  'no-direct-path': {
    title: 'Cannot connect to the other players: your network blocks direct connections',
    text: 'Other players are online, but no direct connection to them got through (a strict router or firewall, often at work, school or on mobile data, at your end or theirs), and no TURN server is set up to relay it. Add a TURN server under "Network" below and press Retry, or ask whoever runs this world to set one up; another network may also work.',
  },
  'turn-failed': {
    title: 'Cannot connect to the other players, even through TURN',
    text: 'Other players are online, but no connection opened, neither directly nor through the TURN server set up. Check its address, username and password under "Network" below (a TURN password may have expired), then press Retry; another network may also work.',
  },
  'turn-refused': {
    title: 'Cannot connect to the other players: the TURN server refused its password',
    text: 'Other players are online, but no direct connection to them got through, and the TURN server set up to relay it refused the username and password it was given: they are wrong, or they have expired. If you added that server under "Network" below, check them there, then press Retry. If it comes with this world (the meeting point hands out passwords that expire), tell whoever runs it: their TURN server refuses them, often because the two servers\' clocks or shared secret disagree.',
  },
  'no-answer': {
    title: 'Waiting for the other players to answer',
    text: 'Other players are online in this world, but this tab\'s call to connect has not been answered yet. Their connection to the meeting point may be down for a moment (a router restarting does that); this tab keeps calling. If nobody answers within a minute, press Retry, or ask whoever invited you whether they are still playing.',
  },
  'relay-needs-turn': {
    title: 'Connecting only through a relay needs a TURN server',
    text: 'This page was asked to connect only through a TURN relay (?ice=relay, so that other players never see your address), but no TURN server is set up. Add one under "Network" below and press Retry, or open the page without ?ice=relay.',
  },
  'webrtc-unsupported': {
    title: 'This browser cannot connect to other players',
    text: 'It has no WebRTC, which players use to connect to each other. A current Chrome, Firefox, Edge or Safari can.',
  },
  'nobody-here': {
    title: 'No one else is here yet',
    text: 'You are the first player in this world right now. Others who open it or your invite link will join you.',
  },
  'invite-malformed': {
    title: 'This invite link is broken',
    text: 'Part of it is missing or garbled, so it cannot say whom to join. Ask your friend to copy the link again.',
  },
  'invite-tampered': {
    title: 'This invite link was changed',
    text: 'It does not match what your friend sent, so it was not followed. Ask your friend for the link again.',
  },
  'webgl2-unsupported': {
    title: 'This browser cannot draw the world',
    text: 'The world is drawn with WebGL2, which this browser does not have. Update your browser, or open this page in a current Chrome or Firefox. If it is up to date, turn on hardware acceleration in its settings and reload.',
  },
  'webgl2-unavailable': {
    title: 'The world cannot be drawn here',
    text: 'This browser has WebGL2 but could not start it, most often because hardware acceleration is turned off or the graphics driver is blocked. Turn on hardware acceleration in the browser\'s settings (Chrome: System, "Use graphics acceleration"; Firefox: Performance), update the browser and the graphics driver, or try a current Chrome or Firefox; then press Retry.',
  },
  'browser-outdated': {
    title: 'This browser cannot check the other players',
    text: 'Every player proves who they are with an Ed25519 key, and this browser cannot check one (Ed25519 in Web Crypto: Safari 17 and Firefox 129 brought it, current Chrome has it), so it cannot connect to players in current browsers. Update your browser, or open this page in a current Chrome, Firefox or Safari. You can still play here alone.',
  },
};

/** The browser has the WebGL2 API at all (a context can still fail: hardware acceleration off, driver blocked). */
export function hasWebGL2(): boolean {
  return typeof WebGL2RenderingContext !== 'undefined';
}

/**
 * Which words a page that cannot draw shows: a browser without WebGL2 at all (too old, or
 * turned off) needs another browser or an update; one that has it but failed to make a
 * context mostly has hardware acceleration off or a blocked driver.
 */
export function webglProblemKind(webgl2Api: boolean): 'webgl2-unsupported' | 'webgl2-unavailable' {
  return webgl2Api ? 'webgl2-unavailable' : 'webgl2-unsupported';
}

export interface ProblemOptions {
  kind: StartProblemKind;
  /** Technical detail (an error message), shown folded. */
  detail?: string;
  /** Shown as a button: reload and try again. */
  retry?: () => void;
  /** Shown as a button: open the world without the invite. */
  withoutInvite?: () => void;
  /** Offer to play here alone (default); false where the page cannot play at all. */
  alone?: boolean;
  /** Where the player's own STUN/TURN servers are kept: shows the "Network" form (ui/ice-settings-form.ts). */
  network?: IceSettingsStorage;
}

export class StartScreen {
  private readonly text: HTMLElement;
  private readonly bar: HTMLElement;
  private readonly panel: HTMLElement;
  private readonly rows = new Map<StageName, HTMLElement>();
  private problemUp = false;
  private ready = false;
  /** The page joins the network and has not said the join settled: the drawn world waits under a compact screen. */
  private joining = false;
  /** The page's keys and mouse are live (`playable`): the panel no longer says to wait for them. */
  private canPlay = false;
  private readonly started = performance.now();

  constructor(private readonly root: HTMLElement, world: string) {
    this.text = root.querySelector('.loading-text') as HTMLElement;
    this.bar = root.querySelector('.loading-bar-fill') as HTMLElement;
    const name = root.querySelector('.world-name');
    if (name) name.textContent = `World “${world}”`;
    const list = root.querySelector('.stages');
    for (const [stage, label] of STAGES) {
      const li = document.createElement('li');
      li.dataset.stage = stage;
      li.dataset.state = 'pending';
      li.innerHTML = '<span class="mark">·</span> <span class="label"></span> <span class="when"></span>';
      li.querySelector('.label')!.textContent = label;
      list?.append(li);
      this.rows.set(stage, li);
    }
    this.panel = document.createElement('div');
    this.panel.className = 'problem';
    this.panel.hidden = true;
    root.append(this.panel);
  }

  /** Marks a stage (time since the page started, unless given). */
  stage(name: StageName, state: StageState, note = '', ms = performance.now() - this.started): void {
    const li = this.rows.get(name);
    if (!li) return;
    li.dataset.state = state;
    li.querySelector('.mark')!.textContent = state === 'done' ? '✓' : state === 'failed' ? '✗' : state === 'skipped' ? '–' : '·';
    li.querySelector('.when')!.textContent = [state === 'done' ? `${Math.round(ms)} ms` : '', note].filter(Boolean).join(' · ');
  }

  progress(message: string, fraction: number): void {
    this.text.textContent = message;
    this.bar.style.width = `${Math.round(Math.max(0, Math.min(1, fraction)) * 100)}%`;
  }

  /** Explains a problem with the start; the screen stays until the player chooses (or `resolved()`). */
  problem(p: ProblemOptions): void {
    const words = PROBLEM_WORDS[p.kind];
    this.problemUp = true;
    this.root.hidden = false;
    this.root.classList.remove('compact');
    this.root.classList.add('has-problem');
    this.panel.dataset.kind = p.kind;
    this.panel.innerHTML = '<h2></h2><p class="why"></p><div class="actions"></div><p class="alone-means"></p><details><summary>Details</summary><code></code></details>';
    this.panel.querySelector('h2')!.textContent = words.title;
    this.panel.querySelector('.why')!.textContent = words.text;
    const alone = p.alone ?? true;
    if (alone) this.panel.querySelector('.alone-means')!.textContent = `${ALONE}: ${ALONE_MEANS}`;
    else this.panel.querySelector('.alone-means')!.remove();
    this.panel.querySelector('code')!.textContent = p.detail ?? '';
    const actions = this.panel.querySelector('.actions')!;
    const button = (label: string, cls: string, fn: () => void) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = cls;
      b.textContent = label;
      b.addEventListener('click', fn);
      actions.append(b);
    };
    if (p.retry) button('Retry', 'retry', p.retry);
    if (p.withoutInvite) button('Open the world without the invite', 'without-invite', p.withoutInvite);
    if (alone) button(ALONE, 'alone', () => this.dismiss());
    if (p.network) mountIceSettingsForm(this.panel, p.network).after(this.panel.querySelector('details')!);
    this.panel.hidden = false;
  }

  /** Whether a problem is on the screen, waiting for the player's choice. */
  get problemShown(): boolean {
    return this.problemUp;
  }

  /** The problem went away (another player linked): drop the panel, lift the screen if the terrain is drawn. */
  resolved(): void {
    if (!this.problemUp) return;
    this.dismiss();
  }

  /** The page has begun joining: until `joinSettled`, a drawn terrain only shrinks the screen to a panel. */
  joinBegun(): void {
    this.joining = true;
  }

  /** The join's stages are all said (the world's regions attached, or skipped): the screen lifts once the terrain is drawn. */
  joinSettled(): void {
    this.joining = false;
    if (this.ready && !this.problemUp) this.lift();
  }

  /**
   * The page's keys and mouse are live (they come once the join is over, the pause menu with
   * them): until then the panel over the drawn world says so, as keys pressed meanwhile move
   * nothing.
   */
  playable(): void {
    this.canPlay = true;
    if (this.root.classList.contains('compact')) this.text.textContent = SEED_DRAWN;
  }

  /** The terrain is drawn: lift the screen (a panel while the join goes on), unless a problem waits for the player's choice. */
  hide(): void {
    this.ready = true;
    if (!this.problemUp) this.lift();
  }

  private lift(): void {
    if (this.joining) {
      this.root.classList.add('compact');
      this.text.textContent = this.canPlay ? SEED_DRAWN : `${SEED_DRAWN} You can play once this tab has joined.`;
      return;
    }
    this.root.classList.remove('compact');
    this.root.hidden = true;
  }

  fail(message: string): void {
    this.root.classList.remove('compact');
    this.root.classList.add('failed');
    this.text.textContent = message;
    this.root.hidden = false;
  }

  private dismiss(): void {
    this.problemUp = false;
    this.panel.hidden = true;
    this.root.classList.remove('has-problem');
    if (this.ready) this.lift();
  }
}
