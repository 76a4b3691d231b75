// The settings in the pause menu: name, colour (the palette's, or the one the id gives), mouse sensitivity, invert Y, field of view, sound
// volume (0 mutes), frame rate limit, render distance and the keys (key-bindings-panel.ts). Every change is handed on at once (the caller applies and stores it), so what
// the player sees while dragging a slider is what they get; a name when it is committed
// (Enter or leaving the field), and only one the rule allows (world/player-name.ts).
import { FRAME_RATE_LIMITS, parseSettings, SETTINGS_BOUNDS, type PlayerSettings } from './player-settings';
import { LOOK_FIELDS_CSS, LookFields } from './look-fields';
import { addStyleOnce } from './page-style';
import { KeyBindingsPanel } from './key-bindings-panel';
import type { LayoutMap } from './keyboard-layout';

export interface SettingsPanelArgs {
  initial: PlayerSettings;
  onChange(s: PlayerSettings): void;
  /** Shown greyed in an empty name field: the name used when none is chosen. */
  defaultName: string;
  /** The colour used when none is chosen (the id's): the first choice shows it. */
  defaultColour: number;
  /** Render distance is kept per world by the app (its store); the panel only shows and asks. */
  renderDistance: { min: number; max: number; get(): number; set(n: number): void };
}

const CSS = `
.settings-panel { margin: 12px 0; cursor: default; display: grid; grid-template-columns: auto 1fr auto; gap: 4px 10px; align-items: center; font-size: 13px; }
.settings-panel h3 { grid-column: 1 / -1; margin: 0; font-size: 14px; }
.settings-panel input[type=range] { width: 100%; }
.settings-panel input[type=text] { font: inherit; padding: 2px 4px; }
.settings-panel output { min-width: 3em; text-align: right; font-variant-numeric: tabular-nums; }
`;

export class SettingsPanel {
  readonly root: HTMLElement;
  private readonly look: LookFields;
  private readonly sensitivity: HTMLInputElement;
  private readonly invertY: HTMLInputElement;
  private readonly fov: HTMLInputElement;
  private readonly volume: HTMLInputElement;
  private readonly maxFps: HTMLSelectElement;
  private readonly distance: HTMLInputElement;
  private readonly keys: KeyBindingsPanel;
  private current: PlayerSettings;

  constructor(container: HTMLElement, private readonly args: SettingsPanelArgs) {
    this.current = args.initial;
    addStyleOnce('settings-panel-css', CSS);
    addStyleOnce('look-fields-css', LOOK_FIELDS_CSS);
    const { sensitivity: sb, fov: fb, volume: vb } = SETTINGS_BOUNDS;
    const rd = args.renderDistance;
    this.root = document.createElement('div');
    this.root.className = 'settings-panel';
    this.root.innerHTML = `
      <h3>Settings</h3>
      <label for="set-sensitivity">Mouse sensitivity</label>
      <input id="set-sensitivity" type="range" min="${sb.min}" max="${sb.max}" step="${sb.step}" /><output for="set-sensitivity"></output>
      <label for="set-invert-y">Invert mouse Y</label>
      <input id="set-invert-y" type="checkbox" /><span></span>
      <label for="set-fov">Field of view</label>
      <input id="set-fov" type="range" min="${fb.min}" max="${fb.max}" step="${fb.step}" /><output for="set-fov"></output>
      <label for="set-volume">Sound volume</label>
      <input id="set-volume" type="range" min="${vb.min}" max="${vb.max}" step="${vb.step}" /><output for="set-volume"></output>
      <label for="set-max-fps">Frame rate limit</label>
      <select id="set-max-fps"></select><span></span>
      <label for="set-render-distance">Render distance</label>
      <input id="set-render-distance" type="range" min="${rd.min}" max="${rd.max}" step="1" /><output for="set-render-distance"></output>`;
    const input = (id: string) => this.root.querySelector<HTMLInputElement>(`#${id}`)!;
    this.look = new LookFields({
      prefix: 'set', defaultName: args.defaultName, defaultColour: args.defaultColour,
      onChange: ({ name, colour }) => {
        this.current = { ...this.current, name, colour };
        this.args.onChange(this.current);
      },
    });
    this.root.querySelector('h3')!.after(...this.look.elements);
    this.sensitivity = input('set-sensitivity');
    this.invertY = input('set-invert-y');
    this.fov = input('set-fov');
    this.volume = input('set-volume');
    this.maxFps = this.root.querySelector<HTMLSelectElement>('#set-max-fps')!;
    this.maxFps.append(...FRAME_RATE_LIMITS.map((n) => new Option(n === 0 ? 'None (the display\'s rate)' : `${n} fps`, String(n))));
    this.distance = input('set-render-distance');
    this.keys = new KeyBindingsPanel(this.root, args.initial.keys, (keys) => {
      this.current = { ...this.current, keys };
      this.args.onChange(this.current);
    });
    this.show(args.initial);
    // The menu under it captures the mouse on any click; the panel's clicks are its own.
    this.root.addEventListener('click', (e) => e.stopPropagation());
    for (const el of [this.sensitivity, this.invertY, this.fov, this.volume]) el.addEventListener('input', () => this.changed());
    this.maxFps.addEventListener('change', () => this.changed());
    this.distance.addEventListener('input', () => {
      rd.set(Number(this.distance.value));
      this.labels();
    });
    container.append(this.root);
  }

  /** Keys are named as the keyboard's layout prints them (keyboard-layout.ts). */
  setLayout(layout: LayoutMap | undefined): void {
    this.keys.setLayout(layout);
  }

  /** The values shown: call when the menu opens (render distance also moves with + and -). */
  show(s: PlayerSettings): void {
    this.current = s;
    this.look.show(s.name, s.colour);
    this.sensitivity.value = String(s.sensitivity);
    this.invertY.checked = s.invertY;
    this.fov.value = String(s.fov);
    this.volume.value = String(s.volume);
    this.maxFps.value = String(s.maxFps);
    this.distance.value = String(this.args.renderDistance.get());
    this.keys.show(s.keys);
    this.labels();
  }

  private changed(): void {
    this.current = parseSettings({ name: this.current.name, colour: this.current.colour, sensitivity: Number(this.sensitivity.value), invertY: this.invertY.checked, fov: Number(this.fov.value), volume: Number(this.volume.value), keys: this.current.keys, maxFps: Number(this.maxFps.value) });
    this.args.onChange(this.current);
    this.labels();
  }

  private labels(): void {
    const out = (input: HTMLInputElement, text: string) => { (input.nextElementSibling as HTMLElement).textContent = text; };
    out(this.sensitivity, `${Number(this.sensitivity.value).toFixed(2)}x`);
    out(this.fov, `${this.fov.value}°`);
    out(this.volume, Number(this.volume.value) === 0 ? 'off' : `${Math.round(Number(this.volume.value) * 100)}%`);
    out(this.distance, this.distance.value);
  }
}
