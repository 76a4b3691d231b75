// The player page's sounds: dig and place when the player edits, footsteps as they walk on
// the ground (ui/sound-effects.ts synthesises them). Footsteps follow the player's body each
// animation frame while playing; the page's first click or tap unlocks audio.
import type { PlayerSession } from '../play/player-session';
import { SoundEffects, StepCadence } from '../ui/sound-effects';

export class PageSound {
  readonly effects: SoundEffects;
  private readonly cadence = new StepCadence();

  constructor(session: PlayerSession, volume: number, playing: () => boolean) {
    this.effects = new SoundEffects(volume);
    const tick = () => {
      const b = session.body;
      if (this.cadence.update(b.x, b.z, b.onGround && !session.flying) && playing()) this.effects.play('step');
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
}
