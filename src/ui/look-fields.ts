// The player's name and colour fields, as the settings (settings-panel.ts) and the start
// screen (start-look.ts) both show them: a name field (committed on Enter or leaving it, and
// only a name the rule allows: world/player-name.ts, else it says why and keeps the last),
// and the palette's colours (or the one the id gives) with a swatch. Three grid columns:
// label, field, what goes beside it.
import { PLAYER_NAME_MAX } from '../world/player-name';
import { PLAYER_COLOUR_NAMES, PLAYER_COLOURS, playerColourCss } from '../world/player-colour';
import { chosenName } from './player-settings';

export const LOOK_FIELDS_CSS = `
.look-said { grid-column: 1 / -1; font-size: 12px; min-height: 1em; color: #f8b; }
.look-swatch { display: inline-block; width: 1.2em; height: 1.2em; border-radius: 3px; border: 1px solid #0006; }
`;

export interface LookFieldsArgs {
  /** Prefix of the fields' ids: `${prefix}-name`, `${prefix}-colour`. */
  prefix: string;
  /** Shown greyed in an empty name field: the name used when none is chosen. */
  defaultName: string;
  /** The colour used when none is chosen (the id's); undefined: not known yet. */
  defaultColour: number | undefined;
  /** A name ('' the default) or colour (null: the id's) chosen. */
  onChange(look: { name: string; colour: number | null }): void;
}

export class LookFields {
  /** The rows, to be put in a three-column grid. */
  readonly elements: HTMLElement[];
  private readonly name: HTMLInputElement;
  private readonly said: HTMLElement;
  private readonly colour: HTMLSelectElement;
  private readonly swatch: HTMLElement;
  private shownName = '';

  constructor(private readonly args: LookFieldsArgs) {
    const label = (field: string, text: string) => Object.assign(document.createElement('label'), { htmlFor: `${args.prefix}-${field}`, textContent: text });
    this.name = document.createElement('input');
    Object.assign(this.name, { id: `${args.prefix}-name`, type: 'text', maxLength: PLAYER_NAME_MAX * 2, spellcheck: false, placeholder: args.defaultName });
    this.name.setAttribute('autocomplete', 'nickname');
    this.said = Object.assign(document.createElement('div'), { className: 'look-said' });
    this.said.setAttribute('role', 'status');
    this.colour = Object.assign(document.createElement('select'), { id: `${args.prefix}-colour` });
    const auto = args.defaultColour === undefined ? 'from your id' : `${PLAYER_COLOUR_NAMES[args.defaultColour] ?? ''} (from your id)`;
    this.colour.append(new Option(auto, ''), ...PLAYER_COLOURS.map((_, i) => new Option(PLAYER_COLOUR_NAMES[i]!, String(i))));
    this.swatch = Object.assign(document.createElement('span'), { className: 'look-swatch' });
    this.elements = [label('name', 'Your name'), this.name, document.createElement('span'), this.said, label('colour', 'Your colour'), this.colour, this.swatch];
    this.name.addEventListener('change', () => this.changed());
    this.colour.addEventListener('change', () => this.changed());
    this.name.addEventListener('keydown', (e) => { if (e.key === 'Enter') this.name.blur(); });
  }

  /** The name and colour shown. */
  show(name: string, colour: number | null): void {
    this.shownName = name;
    this.name.value = name;
    this.said.textContent = '';
    this.colour.value = colour === null ? '' : String(colour);
    this.paint();
  }

  private changed(): void {
    let name = chosenName(this.name.value);
    if (name === undefined) {
      name = this.shownName;
      this.said.textContent = `A name is 1-${PLAYER_NAME_MAX} letters, digits, spaces, _ or -`;
    } else {
      this.name.value = name;
      this.shownName = name;
      this.said.textContent = '';
    }
    this.paint();
    this.args.onChange({ name, colour: this.colour.value === '' ? null : Number(this.colour.value) });
  }

  private paint(): void {
    const c = this.colour.value === '' ? this.args.defaultColour : Number(this.colour.value);
    this.swatch.style.background = c === undefined ? 'transparent' : playerColourCss(c);
  }
}
