// The player page's chat: the ChatClient over the network session (lines said to and heard
// from the region hosts around the player, play/chat-client.ts), direct messages to and from
// other players' nodes (play/direct-messages.ts, on the 'player' channel), the ChatBox on
// screen (none on a headless page: bots chat through window.voxel.chat) and that API. What
// is typed goes through ui/chat-command.ts: `/msg NAME text` (the who list names the
// players), `/r text`, or a line to the players around.
import { webCryptoVerifier } from '../core/signer';
import { ChatClient, ChatError, type ChatEntry } from '../play/chat-client';
import { DirectMessages, type DirectEntry } from '../play/direct-messages';
import type { PlayerSession } from '../play/player-session';
import { makePlayerPass } from '../region/player-pass';
import { ChatBox } from '../ui/chat-box';
import { directMessagePrefix, parseChatCommand, type ChatTarget } from '../ui/chat-command';
import { shortId } from '../world/player-name';
import type { PageConfig } from './config';
import type { NetSession } from './net-session';

/** window.voxel.chat. */
export interface ChatApi {
  /** Says a line to the players around; resolves with it as shown here, rejects (ChatError) with why it cannot be said. */
  say(text: string): Promise<ChatEntry>;
  /** What typing `text` into the chat field does (`/msg NAME text`, `/r text` or a line); resolves with the line or message as shown here. */
  send(text: string): Promise<ChatEntry | DirectEntry>;
  /** A direct message to the player at node `to` (hex, a who row's id); resolves once it is delivered or not (its status). */
  dm(to: string, text: string): Promise<DirectEntry>;
  /** This tab's history, oldest first (at most 200 lines). */
  lines(): ChatEntry[];
  /** This tab's direct messages, sent and received, oldest first (at most 100). */
  direct(): DirectEntry[];
  /** Lines said, shown and echoed, and lines dropped by reason (forged, replayed, too fast, not from a host). */
  stats(): ChatClient['stats'];
  /** Direct messages sent, delivered, shown, acknowledged, and dropped by reason (forged, replayed, from the wrong node, too fast). */
  directStats(): DirectMessages['stats'];
}

export class PageChat {
  readonly client: ChatClient;
  readonly direct: DirectMessages;
  readonly api: ChatApi;
  private readonly box: ChatBox | null;
  /** The player whose direct message came last: `/r` answers it. */
  private lastFrom: ChatTarget | undefined;

  /** `players`: who is here (the who list's rows), for `/msg NAME`. */
  constructor(cfg: PageConfig, net: NetSession, session: PlayerSession, private readonly players: () => readonly ChatTarget[]) {
    this.client = new ChatClient({
      client: net.client, wire: net.wire.players, world: cfg.world, player: net.player, verify: webCryptoVerifier,
      // The same pass the edits show (net-session.ts), made again for this node: one signature.
      ...(net.work ? { pass: net.work.then((w) => makePlayerPass(net.player, net.peer.dht.selfId, w.nonce)) } : {}),
      clock: net.peer.clock, name: () => net.source.name, colour: () => net.source.colour, where: () => session.body,
    });
    this.direct = new DirectMessages({
      channel: net.peer.channels.open('player'), world: cfg.world, self: net.peer.dht.selfId, player: net.player,
      verify: webCryptoVerifier, clock: net.peer.clock, name: () => net.source.name, colour: () => net.source.colour,
    });
    this.box = cfg.headless ? null : new ChatBox(document.body, (text) => this.submit(text));
    this.client.events.on('line', (line) => this.box?.add(line));
    this.client.events.on('heard', (line) => this.box?.setHeard(line));
    this.direct.events.on('message', (m) => {
      if (m.dir === 'in') this.lastFrom = { id: m.node, shortId: shortId(m.node), name: m.name };
      this.box?.addDirect(m);
    });
    this.direct.events.on('status', (m) => this.box?.setStatus(m.n, m.status));
    this.api = {
      say: (text) => this.client.say(text),
      send: (text) => this.submit(text),
      dm: (to, text) => this.dm(to, text),
      lines: () => this.client.lines(),
      direct: () => this.direct.messages(),
      stats: () => this.client.stats,
      directStats: () => this.direct.stats,
    };
  }

  /** Calls `heard` for each line and direct message shown, with whether it is this player's own. */
  onShown(heard: (own: boolean) => void): void {
    this.client.events.on('line', (line) => heard(line.own));
    this.direct.events.on('message', (m) => heard(m.dir !== 'in'));
  }

  /** Opens the chat field (T or Enter); false on a page without one. */
  open(): boolean {
    if (!this.box || this.box.isOpen) return false;
    this.box.open();
    return true;
  }

  /** Opens the chat field with a direct message to the who list's row `row` begun; false when there is no such row or no field. */
  writeTo(row: number): boolean {
    const to = this.players()[row];
    if (!this.box || !to) return false;
    this.box.open(directMessagePrefix(to));
    return true;
  }

  private submit(typed: string): Promise<ChatEntry | DirectEntry> {
    const c = parseChatCommand(typed, this.players(), this.lastFrom);
    if (c.kind === 'say') return this.client.say(c.text);
    if (c.kind === 'refused') return Promise.reject(new ChatError('recipient', c.reason));
    return this.direct.send(c.to.id, c.to.name, c.text);
  }

  private async dm(to: string, text: string): Promise<DirectEntry> {
    const row = this.players().find((p) => p.id === to);
    const sent = await this.direct.send(to, row?.name ?? shortId(to), text);
    return new Promise((resolve) => {
      const off = this.direct.events.on('status', (m) => {
        if (m.n !== sent.n) return;
        off();
        resolve(m);
      });
    });
  }
}
