// Every tuning object of this layer, one line each on what it tunes; each object, with why for
// each knob, stays beside the code that reads it. A newcomer looking for a setting starts here;
// src/defaults-index.test.ts fails when a *_DEFAULTS object is not listed in its layer's file.
// A value no caller, test or bench sets is no option: it is a named constant beside the code
// that reads it, with its why.
/** The peer-hosted chunk source: live radius, hysteresis, snapshot wait, MOVE rate, name. */
export { NETWORK_SOURCE_DEFAULTS } from './network-chunk-source';
/** Edits no certified primary could confirm: how many are kept. */
export { TENTATIVE_DEFAULTS } from './tentative-edits';
/** Drawing other players: how far in the past, extrapolation, expiry. */
export { REMOTE_PLAYER_DEFAULTS } from './remote-player-smoother';
/** Chat lines: the burst this player may say. */
export { CHAT_CLIENT_DEFAULTS } from './chat-client';
/** Direct messages: the rate this player may send at. */
export { DIRECT_MESSAGE_DEFAULTS } from './direct-messages';
