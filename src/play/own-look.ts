// This player's look (name and colour, region/player-look.ts) as the others are to see it:
// what the player chose, and the same signed by this node's key, signed again when either
// changes. Stamps only go up, so every receiver takes the newest. Without a signer (a test's
// node) nothing is signed: the others show the player unnamed.
import type { Signer } from '../core/signer';
import { makePlayerLook, type PlayerLook } from '../region/player-look';
import { defaultPlayerColour, isPlayerColour } from '../world/player-colour';
import { isPlayerName } from '../world/player-name';

export interface OwnLookArgs {
  /** This node's key. */
  signer?: Signer;
  world: string;
  /** The wall clock looks are stamped with (default Date.now). */
  wallClock?: () => number;
  /** The name shown until another is chosen (a valid one). */
  name: string;
  /** Hex id the default colour comes from. */
  selfHex: string;
}

export class OwnLook {
  private shownName: string;
  private shownColour: number;
  private signed: PlayerLook | undefined;
  /** Counts signings begun: only the latest one's look is kept. */
  private signing = 0;
  /** The last signing failed (never expected): the next current() tries again. */
  private failed = false;
  private lastStamp = 0;

  constructor(private readonly args: OwnLookArgs) {
    this.shownName = args.name;
    this.shownColour = defaultPlayerColour(args.selfHex);
    this.sign();
  }

  get name(): string {
    return this.shownName;
  }

  get colour(): number {
    return this.shownColour;
  }

  /** Chooses the name (none: the default); false, and nothing changes, for one outside the rule (world/player-name.ts). */
  setName(name?: string): boolean {
    const next = name || this.args.name;
    if (!isPlayerName(next)) return false;
    if (next !== this.shownName) {
      this.shownName = next;
      this.sign();
    }
    return true;
  }

  /** Chooses the colour (none: the one our id gives); false, and nothing changes, for an index outside the palette. */
  setColour(colour?: number): boolean {
    const next = colour ?? defaultPlayerColour(this.args.selfHex);
    if (!isPlayerColour(next)) return false;
    if (next !== this.shownColour) {
      this.shownColour = next;
      this.sign();
    }
    return true;
  }

  /** The look as signed now; undefined until the first signature is made. */
  current(): PlayerLook | undefined {
    if (this.failed) this.sign();
    return this.signed;
  }

  private sign(): void {
    const signer = this.args.signer;
    if (!signer) return;
    const n = ++this.signing;
    this.failed = false;
    const w = Math.max(Math.floor((this.args.wallClock ?? Date.now)()), this.lastStamp + 1);
    this.lastStamp = w;
    void makePlayerLook(signer, this.args.world, this.shownName, this.shownColour, w).then(
      (look) => {
        if (n === this.signing) this.signed = look;
      },
      () => {
        if (n === this.signing) this.failed = true;
      },
    );
  }
}
