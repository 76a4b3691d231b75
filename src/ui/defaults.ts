// Every tuning object of this layer, one line each on what it tunes; each object, with why for
// each knob, stays beside the code that reads it. A newcomer looking for a setting starts here;
// src/defaults-index.test.ts fails when a *_DEFAULTS object is not listed in its layer's file.
/** The player's settings before they change any: name, colour, sensitivity, field of view, volume, keys, frame cap. */
export { SETTINGS_DEFAULTS } from './player-settings';
/** The chat on screen: lines shown, fade. */
export { CHAT_BOX_DEFAULTS } from './chat-box';
/** The "who is here" rows: how many, short id length. */
export { WHO_LIST_DEFAULTS } from './who-list';
/** The "who is here" overlay: refresh period. */
export { WHO_OVERLAY_DEFAULTS } from './who-overlay';
/** Touch controls: stick zone and radius, dead zone, tap and long-press times, look scale. */
export { TOUCH_DEFAULTS } from './touch-gestures';
/** Held keys: double-tap window. */
export { MOVE_KEYS_DEFAULTS } from './move-keys';
/** The hosting page's charts: samples kept. */
export { HOST_HISTORY_DEFAULTS } from './host-history';
