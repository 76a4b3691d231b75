// The player's name and colour on the start screen, beside the world's name: chosen while
// the world loads, kept with the settings (player-settings.ts: the same fields, the same
// rule and storage as the settings in the pause menu). Until the game runs, a choice is
// stored for it to read; once it runs, `handOver` makes each choice the game's own (applied
// at once, signed into the player's look: play/own-look.ts).
import { LOOK_FIELDS_CSS, LookFields } from './look-fields';
import { loadSettings, saveSettings, withLook, type LookChoice, type SettingsStorage } from './player-settings';
import { addStyleOnce } from './page-style';

const CSS = `
#loading .start-look { display: grid; grid-template-columns: auto 1fr auto; gap: 4px 10px; align-items: center; font-size: 13px; margin: 4px 0 10px; }
#loading .start-look input, #loading .start-look select { font: inherit; padding: 2px 4px; }
`;

export class StartLook {
  readonly root: HTMLElement;
  private choose: (look: LookChoice) => boolean;

  constructor(screen: HTMLElement, storage: SettingsStorage | undefined) {
    addStyleOnce('look-fields-css', LOOK_FIELDS_CSS);
    addStyleOnce('start-look-css', CSS);
    this.choose = (look) => {
      const next = withLook(loadSettings(storage), look);
      return next !== undefined && saveSettings(storage, next);
    };
    const fields = new LookFields({ prefix: 'start', defaultName: 'your name', defaultColour: undefined, onChange: (look) => void this.choose(look) });
    const s = loadSettings(storage);
    fields.show(s.name, s.colour);
    this.root = document.createElement('div');
    this.root.className = 'start-look';
    this.root.append(...fields.elements);
    const after = screen.querySelector('.world-name');
    if (after) after.after(this.root);
    else screen.append(this.root);
  }

  /** From now on a choice goes to `choose` (the running game's settings). */
  handOver(choose: (look: LookChoice) => boolean): void {
    this.choose = choose;
  }
}
