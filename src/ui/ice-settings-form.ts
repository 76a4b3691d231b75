// The "Network" form: the player's own STUN/TURN servers (ui/ice-settings.ts), shown where a
// player learns that no connection opens (the start screen's problem panel). Saving checks
// the value and keeps it for the next start (the page's Retry); the pause menu shows it too.
import { addStyleOnce } from './page-style';
import { loadIceSettings, parseUrlList, saveIceSettings, type IceSettingsStorage } from './ice-settings';

const CSS = `
.ice-settings { display: grid; grid-template-columns: auto 1fr; gap: 4px 8px; align-items: center; margin: 10px 0; font-size: 13px; }
.ice-settings-fold { font-size: 13px; margin: 8px 0; cursor: default; }
.ice-settings h3 { grid-column: 1 / -1; margin: 4px 0 0; font-size: 14px; }
.ice-settings .hint, .ice-settings .said { grid-column: 1 / -1; margin: 0; font-size: 12px; opacity: .85; }
.ice-settings .said { min-height: 1em; }
.ice-settings input { font: inherit; padding: 3px 5px; }
.ice-settings button { grid-column: 1 / -1; justify-self: start; }
`;

let mounted = 0;

/**
 * Draws the form into `container`. `when`: when a saved value is used, as the player reads it
 * ("Press Retry to connect with it."); the page's servers are chosen at its start. `folded`:
 * behind a "Network" summary the player opens.
 */
export function mountIceSettingsForm(container: HTMLElement, storage: IceSettingsStorage | undefined, when = 'Press Retry to connect with it.', folded = false): HTMLFormElement {
  addStyleOnce('ice-settings-css', CSS);
  const n = ++mounted; // a page may show it twice (start screen, pause menu): ids stay unique
  const form = document.createElement('form');
  form.className = 'ice-settings';
  form.innerHTML = `
    <h3>Network: a TURN server of your own</h3>
    <p class="hint">A TURN server relays the game's traffic when no direct connection gets through. Use your own (e.g. coturn) or one from a TURN service; it is kept in this browser only, never put in an invite.</p>
    <label for="ice-urls-${n}">Server URLs</label>
    <input id="ice-urls-${n}" name="urls" type="text" spellcheck="false" autocomplete="off" placeholder="turn:turn.example.org:3478, stun:stun.example.org:3478" />
    <label for="ice-user-${n}">TURN username</label>
    <input id="ice-user-${n}" name="username" type="text" autocomplete="off" spellcheck="false" />
    <label for="ice-pass-${n}">TURN password</label>
    <input id="ice-pass-${n}" name="credential" type="password" autocomplete="off" />
    <button type="submit" class="save-ice">Save network settings</button>
    <p class="said" role="status"></p>`;
  const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;
  const now = loadIceSettings(storage);
  field('urls').value = now.urls.join(', ');
  field('username').value = now.username;
  field('credential').value = now.credential;
  const said = form.querySelector<HTMLElement>('.said')!;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const urls = parseUrlList(field('urls').value);
    const fault = saveIceSettings(storage, { urls, username: field('username').value.trim(), credential: field('credential').value });
    form.dataset.saved = String(!fault);
    said.textContent = fault ? `Not saved: ${fault}.` : `${urls.length ? 'Saved.' : 'Cleared: only the world\'s own servers will be used.'} ${when}`;
  });
  if (folded) {
    // Folded where it is rarely needed (the pause menu): the menu keeps its size.
    const fold = document.createElement('details');
    fold.className = 'ice-settings-fold';
    fold.innerHTML = '<summary>Network: a TURN server of your own</summary>';
    form.querySelector('h3')!.remove();
    fold.append(form);
    container.append(fold);
  } else container.append(form);
  return form;
}
