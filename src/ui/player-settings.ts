// The player's own settings (name, colour, mouse sensitivity, invert Y, field of view, sound volume,
// key bindings, frame rate limit): what they are, their bounds, and how they are kept. They belong to the
// person at this browser, not to a world, so they live in localStorage (one key for every
// world) rather than in a world's database; read once at start so the first frame already
// uses them. Anything stored that is not a valid value (an old version, a hand edit) falls
// back to the default field by field, so one bad field never costs the others.
import { WORLD_RENDERER_DEFAULTS } from '../render/world-renderer-defaults';
import { normalisePlayerName } from '../world/player-name';
import { isPlayerColour } from '../world/player-colour';
import { DEFAULT_KEY_BINDINGS, parseKeyBindings, type KeyBindings } from './key-bindings';

export interface PlayerSettings {
  /** The name other players see ('': none chosen, the player's default). */
  name: string;
  /** The colour other players see, a palette index (world/player-colour.ts); null: none chosen, the one the player's id gives. */
  colour: number | null;
  /** Multiplies the base mouse look speed. */
  sensitivity: number;
  /** Mouse up looks down. */
  invertY: boolean;
  /** Vertical field of view in degrees. */
  fov: number;
  /** Sound effects' volume, 0 (muted) .. 1. */
  volume: number;
  /** Which keys do what (key-bindings.ts). */
  keys: KeyBindings;
  /** Frames drawn a second at most, one of FRAME_RATE_LIMITS; 0: as many as the display refreshes. */
  maxFps: number;
}

/**
 * The frame rate limits a player can choose (0: none). A lower one leaves CPU to the regions
 * a tab hosts and to whatever else runs beside the game, and saves a laptop's battery.
 */
export const FRAME_RATE_LIMITS: readonly number[] = [0, 60, 30, 20];

export const SETTINGS_BOUNDS = {
  sensitivity: { min: 0.1, max: 5, step: 0.05 },
  fov: { min: 50, max: 110, step: 1 },
  volume: { min: 0, max: 1, step: 0.05 },
} as const;

export const SETTINGS_DEFAULTS: PlayerSettings = {
  name: '',
  colour: null,
  sensitivity: 1,
  invertY: false,
  fov: WORLD_RENDERER_DEFAULTS.fov,
  volume: 0.6,
  keys: DEFAULT_KEY_BINDINGS,
  maxFps: 0,
};

/** The localStorage key (shared by every world of this origin). */
export const SETTINGS_KEY = 'voxel-populi/settings';
/** Radians of look per pixel of mouse movement at sensitivity 1. */
const LOOK_RAD_PER_PX = 0.0025;

function bounded(value: unknown, b: { min: number; max: number }, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(b.max, Math.max(b.min, value)) : fallback;
}

/** Settings from anything (stored JSON, a form): each field bounded, or its default. */
export function parseSettings(raw: unknown): PlayerSettings {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  return {
    name: (typeof r.name === 'string' && normalisePlayerName(r.name)) || '',
    colour: isPlayerColour(r.colour) ? r.colour : null,
    sensitivity: bounded(r.sensitivity, SETTINGS_BOUNDS.sensitivity, SETTINGS_DEFAULTS.sensitivity),
    invertY: typeof r.invertY === 'boolean' ? r.invertY : SETTINGS_DEFAULTS.invertY,
    fov: Math.round(bounded(r.fov, SETTINGS_BOUNDS.fov, SETTINGS_DEFAULTS.fov)),
    volume: bounded(r.volume, SETTINGS_BOUNDS.volume, SETTINGS_DEFAULTS.volume),
    keys: parseKeyBindings(r.keys),
    maxFps: typeof r.maxFps === 'number' && FRAME_RATE_LIMITS.includes(r.maxFps) ? r.maxFps : SETTINGS_DEFAULTS.maxFps,
  };
}

/** A name as a person typed it: '' (none chosen: the default), a valid name, or undefined when the rule refuses it. */
export function chosenName(typed: string): string | undefined {
  return typed.trim() === '' ? '' : normalisePlayerName(typed);
}

/** A name as typed ('' for the default) or a colour (null: the one the id gives) the player chooses. */
export type LookChoice = { name: string } | { colour: number | null };

/** The settings with the player's chosen name or colour, or undefined when the rule refuses it (nothing changes). */
export function withLook(s: PlayerSettings, look: LookChoice): PlayerSettings | undefined {
  const name = 'name' in look ? chosenName(look.name) : s.name;
  const colour = 'colour' in look ? look.colour : s.colour;
  return name === undefined || (colour !== null && !isPlayerColour(colour)) ? undefined : { ...s, name, colour };
}

/** The slice of Storage used (localStorage; tests pass a stand-in). */
export type SettingsStorage = Pick<Storage, 'getItem' | 'setItem'>;

/** The stored settings, or the defaults when there are none or storage cannot be read. */
export function loadSettings(storage: SettingsStorage | undefined): PlayerSettings {
  try {
    const text = storage?.getItem(SETTINGS_KEY);
    return parseSettings(text ? JSON.parse(text) : {});
  } catch {
    return parseSettings({});
  }
}

/** Stores the settings; false when storage refused (private mode, quota): they hold for this visit only. */
export function saveSettings(storage: SettingsStorage | undefined, s: PlayerSettings): boolean {
  try {
    if (!storage) return false;
    storage.setItem(SETTINGS_KEY, JSON.stringify(parseSettings(s)));
    return true;
  } catch {
    return false;
  }
}

/** Mouse movement (pixels, as MouseEvent.movementX/Y) to a turn: [dYaw, dPitch] in radians. */
export function lookDelta(movementX: number, movementY: number, s: PlayerSettings): [number, number] {
  const k = LOOK_RAD_PER_PX * s.sensitivity;
  return [-movementX * k, (s.invertY ? movementY : -movementY) * k];
}
