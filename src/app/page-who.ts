// "Who is here" on the player page: window.voxel.who() and, on a drawing page, the list
// shown while Tab is held (ui/who-overlay.ts). Rows (ui/who-list.ts) come from the remote
// players as drawn, our own feet, and the round trips of our live links, so a player whose
// node we link to directly shows its link quality.
import type { RemotePlayerSample } from '../play/remote-player-smoother';
import { whoRows, type WhoLink, type WhoRow } from '../ui/who-list';
import { WhoOverlay } from '../ui/who-overlay';

export interface PageWhoArgs {
  headless: boolean;
  players(): readonly RemotePlayerSample[];
  /** Our feet. */
  self(): { x: number; y: number; z: number };
  /** Live links (window.voxel.net.links()); none without the network. */
  links(): readonly WhoLink[];
}

export class PageWho {
  private readonly overlay: WhoOverlay | null;

  constructor(private readonly args: PageWhoArgs) {
    this.overlay = args.headless ? null : new WhoOverlay(document.body, () => this.rows());
  }

  rows(): WhoRow[] {
    return whoRows(this.args.players(), this.args.self(), this.args.links());
  }

  /** Tab held or let go. */
  hold(held: boolean): void {
    this.overlay?.hold(held);
  }
}
