// What a play-only tab (`?hosting=play`, a phone's default) says about hosting, on its start
// screen and in its pause menu: that it keeps no regions for other players, with a button to
// host from this device instead (the same page with ?hosting=on). When no host answers for
// the regions around the player (nobody else is here, or nobody here hosts), the world is
// still drawn from its seed but nothing built is confirmed: the note says so in words, so the
// player never waits on a silent screen, and the button is the way out.
import { addStyleOnce } from './page-style';

export type HostingChosen = 'asked' | 'touch-device' | 'default';

/** The same page, hosting (`?hosting=on`); the world and the rest of the link kept. */
export function hostHereUrl(href: string): string {
  const url = new URL(href);
  url.searchParams.set('hosting', 'on');
  return url.toString();
}

export const NO_HOST_TEXT = 'No host is reachable for this part of the world: it is drawn from its seed, and what you build waits on this device until a host comes. Host it from this device to play it for real.';

const CSS = `
.hosting-note .no-host { color: #ffd86b; }
.hosting-note button { margin-left: 6px; }
`;

export class HostingNote {
  private readonly says: HTMLElement[] = [];
  private noHost = false;

  /** Puts the note into each of `roots`; `go` opens a URL (default: this tab). */
  constructor(roots: HTMLElement[], chosen: HostingChosen, go: (url: string) => void = (url) => location.assign(url)) {
    addStyleOnce('hosting-note-css', CSS);
    const text = chosen === 'touch-device'
      ? 'Playing without hosting: a phone or tablet keeps no regions for other players, to save its battery. To host as well, open the page with ?hosting=on.'
      : 'Playing without hosting (?hosting=play): this tab keeps no regions for other players.';
    for (const root of roots) {
      const note = document.createElement('p');
      note.className = 'hosting-note';
      note.dataset.chosen = chosen;
      const said = document.createElement('span');
      said.className = 'no-host';
      said.setAttribute('role', 'status');
      said.hidden = true;
      said.textContent = `${NO_HOST_TEXT} `;
      const host = document.createElement('button');
      host.type = 'button';
      host.className = 'host-here';
      host.textContent = 'Host from this device';
      host.addEventListener('click', (e) => {
        e.stopPropagation();
        go(hostHereUrl(location.href));
      });
      note.append(`${text} `, said, host);
      root.append(note);
      this.says.push(said);
    }
  }

  /** Whether no host answers for the regions around the player now. */
  setNoHost(noHost: boolean): void {
    if (noHost === this.noHost) return;
    this.noHost = noHost;
    for (const s of this.says) s.hidden = !noHost;
  }

  get saysNoHost(): boolean {
    return this.noHost;
  }
}

/** How long a play-only tab waits for a host of the regions around it before it says none is reachable. */
export const NO_HOST_MS = 10_000;

/** No host answers for the regions around the player: none serves one, and nobody else is here or NO_HOST_MS have passed since the start. */
export function noHostReachable(s: { alone: boolean; anyServed: boolean; sinceStartMs: number }): boolean {
  return !s.anyServed && (s.alone || s.sinceStartMs >= NO_HOST_MS);
}
