// The player page's sounds: dig and place when the player edits, footsteps as they walk on
// the ground, a chirp when an item is picked up and a blip when another player's chat line
// arrives (ui/sound-effects.ts synthesises them, ui/sound-triggers.ts says when). Footsteps
// and pick-ups are looked for each animation frame; the page's first click or tap unlocks audio.
import type { PlayerSession } from '../play/player-session';
import { SoundEffects, StepCadence } from '../ui/sound-effects';
import { ChatBlipGate, PickupWatch } from '../ui/sound-triggers';

export class PageSound {
  readonly effects: SoundEffects;
  private readonly cadence = new StepCadence();
  private readonly pickups = new PickupWatch();
  private readonly blips = new ChatBlipGate();
  private held: (() => readonly { id: string }[]) | null = null;

  constructor(session: PlayerSession, volume: number, playing: () => boolean) {
    this.effects = new SoundEffects(volume);
    const tick = () => {
      const b = session.body;
      if (this.cadence.update(b.x, b.z, b.onGround && !session.flying) && playing()) this.effects.play('step');
      if (this.held && this.pickups.update(this.held().map((i) => i.id))) this.effects.play('pickup');
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  /** From a person's gesture (the click or tap that starts playing). */
  unlock(): void {
    this.effects.unlock();
  }

  setVolume(volume: number): void {
    this.effects.volume = volume;
  }

  /** The player asked to dig (true) or place (false) a block. */
  edited(dig: boolean): void {
    this.effects.play(dig ? 'dig' : 'place');
  }

  /** What the player holds (the hosts' confirmed inventory): an item new in it chirps. */
  watchHeld(held: () => readonly { id: string }[]): void {
    this.held = held;
  }

  /** A chat line or direct message arrived, the player's own (`own`) or another's. */
  chatLine(own: boolean): void {
    if (this.blips.arrived(own, performance.now())) this.effects.play('chat');
  }
}
