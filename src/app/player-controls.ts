// What a person's keys, mouse and pause menu do on the player page, and what the HUD says
// back: break and place blocks (a refusal is a notice, anything else an error), choose the
// hotbar slot, fly, change the render distance (kept in the store), copy an invite, the
// player's settings (mouse, field of view: kept in localStorage, ui/player-settings.ts) and
// the pause menu shown whenever the pointer is not locked. A headless page (bots) has no
// input; the render distance can still be set through window.voxel.
import { type BlockEditor, EditRefused } from '../play/block-editor';
import type { PlayerSession } from '../play/player-session';
import type { WorldStore } from '../store/world-store';
import type { Hud } from '../ui/hud';
import { errorWords } from '../ui/error-words';
import { IdentityPanel } from '../ui/identity-panel';
import { InvitePanel } from '../ui/invite-panel';
import { KeyboardMouseInput } from '../ui/keyboard-mouse-input';
import { loadSettings, lookDelta, saveSettings, withLook, type LookChoice, type PlayerSettings } from '../ui/player-settings';
import { SettingsPanel } from '../ui/settings-panel';
import { showKeyHints } from '../ui/key-bindings-panel';
import { readLayoutMap, type LayoutMap } from '../ui/keyboard-layout';
import { Fullscreen, fullscreenNotice, keyboardLockApi } from '../ui/fullscreen';
import { TouchControls } from '../ui/touch-controls';
import { AIR } from '../world/blocks';
import { clampRenderDistance, MAX_RENDER_DISTANCE, MIN_RENDER_DISTANCE, type PageConfig } from './config';
import { inviteLinkFor } from './net-session';
import { PageSound } from './page-sound';
import type { Peer } from '../bootstrap/peer';
import type { WorldView } from './world-view';
import { mountIceSettingsForm } from '../ui/ice-settings-form';
import { pageStorage } from '../ui/ice-settings';

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
  /** The name and colour other players see (absent without the network): their defaults, and choosing them ('' / none: the default). */
  look?: { name: string; colour: number; setName(name: string): boolean; setColour(colour?: number): boolean };
  /** T or Enter opens the chat field; Tab held and 1-9 begins a direct message to that row of the who list (absent without the network). */
  chat?: { open(): boolean; writeTo(row: number): boolean };
  /** Tab held shows who is here (page-who.ts). */
  who?: { hold(held: boolean): void };
}

export class PlayerControls {
  renderDistance: number;
  /** Keyboard and mouse (null on a headless page). */
  readonly input: KeyboardMouseInput | null;
  /** Touch screen controls (null on a headless page; hidden until touch is seen). */
  readonly touch: TouchControls | null;
  /** The player's settings as applied now. */
  settings: PlayerSettings;
  private readonly menu: HTMLElement;
  private readonly settingsPanel: SettingsPanel | null;
  /** Dig, place and footstep sounds (null on a headless page). */
  readonly sound: PageSound | null;
  /** Fullscreen with the keyboard locked where the browser can (null on a headless page). */
  readonly fullscreen: Fullscreen | null;
  /** What the keyboard prints on its keys, once the browser said (undefined: keys named by their codes). */
  private layout: LayoutMap | undefined;

  constructor(private readonly args: PlayerControlsArgs) {
    const { cfg, hud, session, peer } = args;
    this.renderDistance = args.renderDistance;
    this.settings = loadSettings(pageStorage());
    this.sound = cfg.headless ? null : new PageSound(session, this.settings.volume, () => this.input?.active ?? false);
    hud.select(session.selected);
    const menu = (this.menu = document.getElementById('menu')!);
    const invites = cfg.headless ? null : new InvitePanel(menu.querySelector('.card')!, async () => {
      if (!peer) throw new Error('Not connected to the peer network: there is nothing to invite to');
      return inviteLinkFor(peer, cfg, location.href.split('#')[0]!);
    });
    const breakBlock = () => { const t = session.target(); if (t) this.edit(t.x, t.y, t.z, AIR); };
    const placeBlock = () => { const t = session.target(); if (t) this.edit(t.x + t.nx, t.y + t.ny, t.z + t.nz, session.selectedBlock); };
    const selectSlot = (i: number) => { session.select(i); hud.select(session.selected); };
    const toggleFly = () => { session.flying = !session.flying; hud.showMessage(session.flying ? 'Flying' : 'Walking', 'notice'); };
    const lockChanged = (locked: boolean) => {
      menu.hidden = locked;
      if (!locked) args.who?.hold(false);
      // Keys typed into a settings field that kept the focus would not reach the game.
      if (!locked) this.settingsPanel?.show(this.settings);
      // The menu names keys: as the layout in use now prints them (the player may have switched).
      if (!locked) this.readLayout();
      else if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
    };
    this.fullscreen = cfg.headless ? null : new Fullscreen(document, keyboardLockApi(), (s) => hud.showMessage(fullscreenNotice(s), 'notice'));
    const toggleFullscreen = () => { this.fullscreen?.toggle().catch((e: Error) => hud.showMessage(`Fullscreen refused: ${e.message}`, 'notice')); };
    this.fullscreen?.bind(document.getElementById('fullscreen-button'), toggleFullscreen);
    const identity = cfg.headless ? null : new IdentityPanel(document.body).bind(document.getElementById('identity-button'));
    this.input = cfg.headless ? null : new KeyboardMouseInput(args.view.canvas!, {
      look: (dy, dp) => session.look(dy, dp),
      breakBlock,
      placeBlock,
      selectSlot,
      scrollSlot: (d) => { session.select(session.selected + d); hud.select(session.selected); },
      toggleFly,
      changeRenderDistance: (d) => this.changeRenderDistance(this.renderDistance + d),
      lockChanged,
      lockRefused: (reason) => hud.showMessage(`Click again to play: the browser kept the mouse pointer${reason ? ` (${reason})` : ''}`, 'notice'),
      invite: () => { void invites?.copy().then((said) => hud.showMessage(said, 'notice')); },
      dropItem: () => args.itemKeys?.dropItem(),
      nextItem: () => args.itemKeys?.nextItem(),
      openChat: () => args.chat?.open() ?? false,
      holdWho: (held) => args.who?.hold(held),
      writeTo: (row) => args.chat?.writeTo(row) ?? false,
      identity: () => identity?.toggle(),
      toggleFullscreen,
    });
    this.settingsPanel = cfg.headless ? null : new SettingsPanel(menu.querySelector('.card')!, {
      initial: this.settings,
      onChange: (s) => this.applySettings(s),
      defaultName: args.look?.name ?? 'your name',
      defaultColour: args.look?.colour ?? 0,
      renderDistance: { min: MIN_RENDER_DISTANCE, max: MAX_RENDER_DISTANCE, get: () => this.renderDistance, set: (n) => this.changeRenderDistance(n) },
    });
    // The player's own TURN server ("Network"), also offered on the start screen when no link opens.
    if (!cfg.headless) mountIceSettingsForm(menu.querySelector('.card')!, pageStorage(), 'Reload the page to connect with it.', true);
    this.touch = cfg.headless ? null : new TouchControls(args.view.canvas!, {
      look: (dx, dy) => session.look(...lookDelta(dx, dy, this.settings)),
      dig: breakBlock,
      build: placeBlock,
      toggleFly,
      selectSlot,
      playingChanged: lockChanged,
    });
    if (this.touch) this.input?.attachTouch(this.touch);
    this.applySettings(this.settings, false);
    if (!cfg.headless) this.readLayout();
    menu.addEventListener('click', (e) => {
      // Only a tap on the menu's backdrop or its text plays: its buttons and fields do their own thing.
      if (this.touch?.enabled && (e.target as HTMLElement).closest('button, input, select, label, a, summary')) return;
      this.input?.requestLock(); // first, within the click's user activation: the sound's start may take seconds
      this.sound?.unlock();
    });
  }

  async setRenderDistance(n: number): Promise<void> {
    this.renderDistance = clampRenderDistance(n);
    this.args.view.setRenderDistance(this.renderDistance);
    this.args.hud.showMessage(`Render distance ${this.renderDistance}`, 'notice');
    await this.args.store?.saveSetting('renderDistance', this.renderDistance);
  }

  private changeRenderDistance(n: number): void {
    this.setRenderDistance(n).catch((e: Error) => this.args.hud.showMessage(e.message));
  }

  /** Applies the player's settings and, when `save`, keeps them for the next visit. */
  applySettings(s: PlayerSettings, save = true): void {
    this.settings = s;
    if (this.input) this.input.settings = s;
    showKeyHints(this.menu, s.keys, this.layout);
    this.sound?.setVolume(s.volume);
    this.args.view.setFov(s.fov);
    this.args.look?.setName(s.name);
    this.args.look?.setColour(s.colour ?? undefined);
    if (save && !saveSettings(pageStorage(), s)) this.args.hud.showMessage('Settings cannot be stored in this browser: they hold until the tab closes', 'notice');
  }

  private readLayout(): void {
    void readLayoutMap().then((layout) => {
      this.layout = layout;
      this.settingsPanel?.setLayout(layout);
      showKeyHints(this.menu, this.settings.keys, layout);
    });
  }

  /** Chooses the player's name ('' the default) or colour (null: the id's), as the settings do; false when the rule refuses it. */
  choose(look: LookChoice): boolean {
    const next = withLook(this.settings, look);
    if (next) this.applySettings(next);
    if (next) this.settingsPanel?.show(next);
    return next !== undefined;
  }

  /** The world is ready to play: the pause menu shows until the pointer is locked (or touch play starts). */
  showMenuUnlessPlaying(): void {
    if (!this.args.cfg.headless && !this.input?.locked && !this.touch?.playing) this.menu.hidden = false;
  }

  private edit(x: number, y: number, z: number, id: number): void {
    this.sound?.edited(id === AIR);
    this.args.editor.setBlock(x, y, z, id).catch((err: Error) => {
      if (err instanceof EditRefused) this.args.hud.showMessage(err.message, 'notice');
      else this.args.hud.showMessage(errorWords(err));
    });
  }
}
