// What a person's keys, mouse and pause menu do on the player page, and what the HUD says
// back: break and place blocks (a refusal is a notice, anything else an error), choose the
// hotbar slot, fly, change the render distance (kept in the store), copy an invite, and
// the pause menu shown whenever the pointer is not locked. A headless page (bots) has no
// input; the render distance can still be set through window.voxel.
import { type BlockEditor, EditRefused } from '../play/block-editor';
import type { PlayerSession } from '../play/player-session';
import type { WorldStore } from '../store/world-store';
import type { Hud } from '../ui/hud';
import { IdentityPanel } from '../ui/identity-panel';
import { InvitePanel } from '../ui/invite-panel';
import { KeyboardMouseInput } from '../ui/keyboard-mouse-input';
import { AIR } from '../world/blocks';
import { clampRenderDistance, type PageConfig } from './config';
import { inviteLinkFor } from './net-session';
import type { Peer } from './peer';
import type { WorldView } from './world-view';

export interface PlayerControlsArgs {
  cfg: PageConfig;
  hud: Hud;
  session: PlayerSession;
  editor: BlockEditor;
  view: WorldView;
  store: WorldStore | null;
  peer: Peer | null;
  renderDistance: number;
  /** Q drops the selected held item, E selects the next (page-items.ts). */
  itemKeys?: { dropItem(): void; nextItem(): void };
}

export class PlayerControls {
  renderDistance: number;
  /** Keyboard and mouse (null on a headless page). */
  readonly input: KeyboardMouseInput | null;
  private readonly menu: HTMLElement;

  constructor(private readonly args: PlayerControlsArgs) {
    const { cfg, hud, session, peer } = args;
    this.renderDistance = args.renderDistance;
    hud.select(session.selected);
    const menu = (this.menu = document.getElementById('menu')!);
    const invites = cfg.headless ? null : new InvitePanel(menu.querySelector('.card')!, async () => {
      if (!peer) throw new Error('Not connected to the peer network: there is nothing to invite to');
      return inviteLinkFor(peer, cfg, location.href.split('#')[0]!);
    });
    this.input = cfg.headless ? null : new KeyboardMouseInput(args.view.canvas!, {
      look: (dy, dp) => session.look(dy, dp),
      breakBlock: () => { const t = session.target(); if (t) this.edit(t.x, t.y, t.z, AIR); },
      placeBlock: () => { const t = session.target(); if (t) this.edit(t.x + t.nx, t.y + t.ny, t.z + t.nz, session.selectedBlock); },
      selectSlot: (i) => { session.select(i); hud.select(session.selected); },
      scrollSlot: (d) => { session.select(session.selected + d); hud.select(session.selected); },
      toggleFly: () => { session.flying = !session.flying; hud.showMessage(session.flying ? 'Flying' : 'Walking', 'notice'); },
      changeRenderDistance: (d) => { this.setRenderDistance(this.renderDistance + d).catch((e: Error) => hud.showMessage(e.message)); },
      lockChanged: (locked) => { menu.hidden = locked; },
      invite: () => { void invites?.copy().then((said) => hud.showMessage(said, 'notice')); },
      dropItem: () => args.itemKeys?.dropItem(),
      nextItem: () => args.itemKeys?.nextItem(),
    });
    menu.addEventListener('click', () => this.input?.requestLock());
    if (!cfg.headless) new IdentityPanel(document.body).bind(document.getElementById('identity-button'));
  }

  async setRenderDistance(n: number): Promise<void> {
    this.renderDistance = clampRenderDistance(n);
    this.args.view.setRenderDistance(this.renderDistance);
    this.args.hud.showMessage(`Render distance ${this.renderDistance}`, 'notice');
    await this.args.store?.saveSetting('renderDistance', this.renderDistance);
  }

  /** The world is ready to play: the pause menu shows until the pointer is locked. */
  showMenuUnlessPlaying(): void {
    if (!this.args.cfg.headless && !this.input?.locked) this.menu.hidden = false;
  }

  private edit(x: number, y: number, z: number, id: number): void {
    this.args.editor.setBlock(x, y, z, id).catch((err: Error) => {
      if (err instanceof EditRefused) this.args.hud.showMessage(err.message, 'notice');
      else this.args.hud.showMessage(err.message);
    });
  }
}
