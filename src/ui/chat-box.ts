// The chat on screen: recent lines at the bottom left, fading a while after they came, and
// a field that T or Enter opens (keyboard-mouse-input.ts). Every piece of a line (name, short
// id, text) goes into a text node, never into markup: a line that says <img onerror=...>
// shows those characters. The short id beside each name tells apart two players who chose
// the same one; the name is written in the speaker's colour, as they signed it. Direct messages (play/direct-messages.ts) show apart from the lines said
// around: marked "from" or "to", in their own colour (the sender's name of one received in
// the colour the sender signed, as a chat line's), with the short id of the other
// player's node (the who list's, so `/msg NAME#id` answers) and, for one sent, whether it
// was delivered. A line of ours that no host echoed (play/chat-client.ts gave it up) stays
// on screen dimmed and marked "not sent", so the player knows the others may not have read it.
import { MAX_CHAT_CHARS } from '../region/chat-line';
import { playerColourCss } from '../world/player-colour';
import { shortId } from '../world/player-name';
import { addStyleOnce } from './page-style';

export interface ChatBoxLine {
  /** Speaker's player id (hex). */
  player: string;
  name: string;
  /** The speaker's colour (palette index). */
  colour: number;
  text: string;
  own: boolean;
  /** When it was said (the speaker's stamp): the box finds an own line by it to mark it. */
  at?: number;
  /** Ours, and no host echoed it. */
  unheard?: boolean;
}

/** A direct message as the box shows it (play/direct-messages.ts DirectEntry). */
export interface ChatBoxDirect {
  /** The tab's number for it: its status is updated by it. */
  n: number;
  dir: 'in' | 'out';
  /** The other player's node (hex). */
  node: string;
  name: string;
  /** The sender's colour (palette index): a received message's name is written in it. */
  colour: number;
  text: string;
  status: 'sending' | 'delivered' | 'not-delivered';
}

const STATUS_TEXT: Record<ChatBoxDirect['status'], string> = { sending: ' · sending…', delivered: ' · delivered', 'not-delivered': ' · not delivered' };

/** Lines on screen at most (the history itself is window.voxel.chat's). */
const SHOWN_LINES = 10;
/** A line fades this long after it came, unless the field is open. */
const FADE_MS = 12_000;

const CSS = `
.chat-box { position: fixed; left: 10px; bottom: 90px; width: min(480px, 70vw); z-index: 6; font: 14px system-ui, sans-serif; pointer-events: none; }
.chat-lines > div { background: rgba(0,0,0,.45); color: #fff; padding: 2px 6px; margin-top: 2px; border-radius: 3px; transition: opacity 1s; overflow-wrap: anywhere; }
.chat-lines > div.faded { opacity: 0; }
.chat-box.open .chat-lines > div.faded { opacity: 1; }
.chat-lines .who { font-weight: 600; color: #ffd86b; }
.chat-lines .own .who { color: #8fd3ff; }
.chat-lines > div.unsent { opacity: .55; }
.chat-lines .unsent-mark { color: #f8b; font-size: 12px; margin-left: 4px; }
.chat-lines .id { opacity: .6; font-size: 11px; margin-left: 3px; }
.chat-lines .system { color: #f8b; }
.chat-lines .dm { background: rgba(60,20,90,.7); }
.chat-lines .dm .who { color: #e6b3ff; }
.chat-lines .dm .way { font-style: italic; opacity: .8; margin-right: 4px; }
.chat-lines .dm .status { opacity: .75; font-size: 12px; }
.chat-lines .dm .status.not-delivered { color: #f8b; opacity: 1; }
.chat-box input { width: 100%; box-sizing: border-box; margin-top: 4px; font: inherit; padding: 4px 6px; pointer-events: auto; background: rgba(0,0,0,.7); color: #fff; border: 1px solid #888; border-radius: 3px; }
.chat-box input[hidden] { display: none; }
`;

export class ChatBox {
  readonly root: HTMLElement;
  private readonly list: HTMLElement;
  private readonly field: HTMLInputElement;
  /** Status cells of the direct messages sent that are still on screen, by their number. */
  private readonly statuses = new Map<number, HTMLElement>();
  /** Our lines still on screen, by their stamp: marked if no host echoes them. */
  private readonly ownRows = new Map<number, HTMLElement>();

  /** `say` resolves once said, or rejects with a message for the player. */
  constructor(container: HTMLElement, private readonly say: (text: string) => Promise<unknown>) {
    addStyleOnce('chat-box-css', CSS);
    this.root = document.createElement('div');
    this.root.className = 'chat-box';
    this.list = document.createElement('div');
    this.list.className = 'chat-lines';
    this.list.setAttribute('role', 'log');
    this.field = document.createElement('input');
    this.field.type = 'text';
    this.field.maxLength = MAX_CHAT_CHARS * 2;
    this.field.placeholder = 'Say something, or /msg NAME text (Enter sends, Esc closes)';
    this.field.setAttribute('aria-label', 'chat');
    this.field.hidden = true;
    this.field.addEventListener('keydown', (e) => {
      e.stopPropagation();
      if (e.key === 'Enter') this.send();
      else if (e.key === 'Escape') this.close();
      // Tab, still held from picking a player in the who list, must not move the focus away (which closes the field).
      else if (e.key === 'Tab') e.preventDefault();
    });
    this.field.addEventListener('blur', () => this.close());
    this.root.append(this.list, this.field);
    container.append(this.root);
  }

  get isOpen(): boolean {
    return !this.field.hidden;
  }

  /** Opens the field, holding `text` to go on from (a direct message's start, say). */
  open(text = ''): void {
    this.field.hidden = false;
    this.root.classList.add('open');
    this.field.value = text;
    this.field.focus();
    this.field.setSelectionRange(text.length, text.length);
  }

  close(): void {
    this.field.hidden = true;
    this.field.value = '';
    this.root.classList.remove('open');
    this.field.blur();
  }

  add(line: ChatBoxLine): void {
    const row = document.createElement('div');
    if (line.own) row.className = 'own';
    const who = document.createElement('span');
    who.className = 'who';
    who.textContent = line.name;
    who.style.color = playerColourCss(line.colour);
    const id = document.createElement('span');
    id.className = 'id';
    id.textContent = `#${line.player.slice(0, 4)}`;
    row.append(who, id, document.createTextNode(`: ${line.text}`));
    if (line.own && line.at !== undefined) {
      row.dataset.at = String(line.at);
      this.ownRows.set(line.at, row);
    }
    this.push(row);
    if (line.unheard) this.setHeard(line);
  }

  /** Our line's fate changed: not heard (dimmed, marked "not sent"), or its echo came after all. */
  setHeard(line: Pick<ChatBoxLine, 'at' | 'unheard'>): void {
    const row = line.at === undefined ? undefined : this.ownRows.get(line.at);
    if (!row) return;
    row.classList.toggle('unsent', !!line.unheard);
    row.querySelector('.unsent-mark')?.remove();
    if (!line.unheard) return;
    const mark = document.createElement('span');
    mark.className = 'unsent-mark';
    mark.textContent = '· not sent';
    mark.title = 'No host passed this line on: the players around may not have read it';
    row.append(mark);
  }

  /** A direct message, received or sent. */
  addDirect(m: ChatBoxDirect): void {
    const row = document.createElement('div');
    row.className = `dm ${m.dir}`;
    row.dataset.n = String(m.n);
    const way = document.createElement('span');
    way.className = 'way';
    way.textContent = m.dir === 'in' ? 'from' : 'to';
    const who = document.createElement('span');
    who.className = 'who';
    who.textContent = m.name;
    // The sender's name in the colour it signed, as a chat line's (one sent names its reader: the box's own colour).
    if (m.dir === 'in') who.style.color = playerColourCss(m.colour);
    const id = document.createElement('span');
    id.className = 'id';
    id.textContent = `#${shortId(m.node)}`;
    row.append(way, who, id, document.createTextNode(`: ${m.text}`));
    if (m.dir === 'out') {
      const status = document.createElement('span');
      status.className = 'status';
      row.append(status);
      this.statuses.set(m.n, status);
      this.setStatus(m.n, m.status);
    }
    this.push(row);
  }

  /** What became of a direct message sent (no longer on screen: nothing to update). */
  setStatus(n: number, status: ChatBoxDirect['status']): void {
    const cell = this.statuses.get(n);
    if (!cell) return;
    cell.className = `status ${status}`;
    cell.textContent = STATUS_TEXT[status];
  }

  /** A line from the game itself (why a line could not be said). */
  notice(text: string): void {
    const row = document.createElement('div');
    row.className = 'system';
    row.textContent = text;
    this.push(row);
  }

  private push(row: HTMLElement): void {
    this.list.append(row);
    while (this.list.childElementCount > SHOWN_LINES) {
      const gone = this.list.firstElementChild as HTMLElement;
      if (gone.dataset.n) this.statuses.delete(Number(gone.dataset.n));
      if (gone.dataset.at) this.ownRows.delete(Number(gone.dataset.at));
      gone.remove();
    }
    setTimeout(() => row.classList.add('faded'), FADE_MS);
  }

  private send(): void {
    const text = this.field.value;
    this.close();
    if (text.trim() === '') return;
    this.say(text).catch((err: Error) => this.notice(err.message));
  }
}
