// "Who is here": the list that shows while Tab is held (keyboard-mouse-input.ts), rows from
// who-list.ts. Every cell is set with textContent, never markup: a player's name is
// whatever that player typed within the name rule, shown as those characters, after a swatch
// of the player's colour. While shown
// it is refreshed a few times a second (players walk); hidden, it costs nothing. The first
// nine rows are numbered: with Tab held, a row's number starts a direct message to that
// player (keyboard-mouse-input.ts), since the mouse is the game's while playing.
import { WHO_MAX_ROWS, type WhoRow } from './who-list';
import { addStyleOnce } from './page-style';

/** How often the open overlay redraws its rows (ms). */
const REFRESH_MS = 300;

/** Rows that can be picked by number (1-9) while Tab is held. */
export const WHO_PICKABLE = 9;

const CSS = `
.who-overlay { position: fixed; left: 50%; top: 12%; transform: translateX(-50%); z-index: 7; min-width: min(360px, 90vw); max-width: 90vw; max-height: 70vh; overflow: auto; background: rgba(10,14,22,.82); color: #fff; border-radius: 8px; padding: 10px 14px; font: 13px system-ui, sans-serif; pointer-events: none; }
.who-overlay[hidden] { display: none; }
.who-overlay h2 { margin: 0 0 6px; font-size: 15px; }
.who-overlay table { border-collapse: collapse; width: 100%; }
.who-overlay th { text-align: left; font-weight: 600; opacity: .7; padding: 2px 8px 4px 0; }
.who-overlay td { padding: 2px 8px 2px 0; white-space: nowrap; }
.who-overlay td.name { white-space: normal; overflow-wrap: anywhere; }
.who-overlay td.name .swatch { display: inline-block; width: .8em; height: .8em; border-radius: 2px; margin-right: 6px; vertical-align: -1px; }
.who-overlay td.id, .who-overlay td.num { font: 12px ui-monospace, monospace; }
.who-overlay td.id { opacity: .65; }
.who-overlay td.num { text-align: right; }
.who-overlay .empty { opacity: .75; }
.who-overlay td.pick { opacity: .6; }
.who-overlay .hint { margin-top: 6px; opacity: .7; font-size: 12px; }
`;

export class WhoOverlay {
  readonly root: HTMLElement;
  private readonly title: HTMLElement;
  private readonly body: HTMLTableSectionElement;
  private readonly empty: HTMLElement;
  private readonly hint: HTMLElement;
  private timer: ReturnType<typeof setInterval> | undefined;

  /** `rows` is asked on show and on every refresh while shown. */
  constructor(container: HTMLElement, private readonly rows: () => WhoRow[]) {
    addStyleOnce('who-overlay-css', CSS);
    this.root = document.createElement('div');
    this.root.className = 'who-overlay';
    this.root.hidden = true;
    this.root.setAttribute('role', 'dialog');
    this.root.setAttribute('aria-label', 'players here');
    this.title = document.createElement('h2');
    const table = document.createElement('table');
    const head = table.createTHead().insertRow();
    for (const label of ['', 'Player', 'Id', 'Blocks', 'Link']) {
      const th = document.createElement('th');
      th.textContent = label;
      head.append(th);
    }
    this.body = table.createTBody();
    this.empty = document.createElement('div');
    this.empty.className = 'empty';
    this.empty.textContent = 'Nobody else is in the regions around you.';
    this.hint = document.createElement('div');
    this.hint.className = 'hint';
    this.hint.textContent = 'Hold Tab and press a row\'s number to write to that player';
    this.root.append(this.title, table, this.empty, this.hint);
    container.append(this.root);
  }

  get isShown(): boolean {
    return !this.root.hidden;
  }

  /** Tab went down (true) or up (false). */
  hold(shown: boolean): void {
    if (shown === this.isShown) return;
    this.root.hidden = !shown;
    clearInterval(this.timer);
    this.timer = undefined;
    if (!shown) return;
    this.refresh();
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
  }

  private refresh(): void {
    const rows = this.rows();
    // A full list was cut at its bound: there may be more players than rows.
    this.title.textContent = rows.length === 1 ? '1 player here' : rows.length >= WHO_MAX_ROWS ? `The ${rows.length} nearest players` : `${rows.length} players here`;
    this.empty.hidden = rows.length > 0;
    this.hint.hidden = rows.length === 0;
    const trs = rows.map((r, i) => {
      const tr = document.createElement('tr');
      const cell = (cls: string, text: string) => {
        const td = tr.insertCell();
        td.className = cls;
        td.textContent = text;
        return td;
      };
      cell('pick', i < WHO_PICKABLE ? String(i + 1) : '');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = r.colour;
      cell('name', r.name).prepend(swatch);
      cell('id', r.shortId);
      cell('num', Number.isFinite(r.distance) ? String(r.distance) : '?');
      cell('num', r.link);
      return tr;
    });
    this.body.replaceChildren(...trs);
  }
}
