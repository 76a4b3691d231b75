// The player page's chat: the ChatClient over the network session (lines said to and heard
// from the region hosts around the player, play/chat-client.ts), the ChatBox on screen (none
// on a headless page: bots chat through window.voxel.chat) and that API.
import { webCryptoVerifier } from '../core/signer';
import { ChatClient, type ChatEntry } from '../play/chat-client';
import type { PlayerSession } from '../play/player-session';
import { makePlayerPass } from '../region/player-pass';
import { ChatBox } from '../ui/chat-box';
import type { PageConfig } from './config';
import type { NetSession } from './net-session';

/** window.voxel.chat. */
export interface ChatApi {
  /** Says a line to the players around; resolves with it as shown here, rejects (ChatError) with why it cannot be said. */
  say(text: string): Promise<ChatEntry>;
  /** This tab's history, oldest first (at most 200 lines). */
  lines(): ChatEntry[];
  /** Lines said, shown and echoed, and lines dropped by reason (forged, replayed, too fast, not from a host). */
  stats(): ChatClient['stats'];
}

export class PageChat {
  readonly client: ChatClient;
  readonly api: ChatApi;
  private readonly box: ChatBox | null;

  constructor(cfg: PageConfig, net: NetSession, session: PlayerSession) {
    this.client = new ChatClient({
      client: net.client, wire: net.wire.players, world: cfg.world, player: net.player, verify: webCryptoVerifier,
      // The same pass the edits show (net-session.ts), made again for this node: one signature.
      ...(net.work ? { pass: net.work.then((w) => makePlayerPass(net.player, net.peer.dht.selfId, w.nonce)) } : {}),
      clock: net.peer.clock, name: () => net.source.name, where: () => session.body,
    });
    this.box = cfg.headless ? null : new ChatBox(document.body, (text) => this.client.say(text));
    this.client.events.on('line', (line) => this.box?.add(line));
    this.api = { say: (text) => this.client.say(text), lines: () => this.client.lines(), stats: () => this.client.stats };
  }

  /** Opens the chat field (T or Enter); false on a page without one. */
  open(): boolean {
    if (!this.box || this.box.isOpen) return false;
    this.box.open();
    return true;
  }
}
