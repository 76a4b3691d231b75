// Every tuning object of this layer, one line each on what it tunes; each object, with why for
// each knob, stays beside the code that reads it. A newcomer looking for a setting starts here;
// src/defaults-index.test.ts fails when a *_DEFAULTS object is not listed in its layer's file.
// A value no caller, test or bench sets is no option: it is a named constant beside the code
// that reads it, with its why.
/** WebRTC links: ICE servers, dial timeout, inbound offers pending, id work, ICE probe trust. */
export { WEBRTC_DEFAULTS } from './webrtc-transport';
/** The PeerJS broker doorway: server path and key, connect timeout. */
export { PEERJS_BOOTSTRAP_DEFAULTS } from './peerjs-bootstrap';
/** The relay doorway: connect timeout, keepalive, probes. */
export { RELAY_BOOTSTRAP_DEFAULTS } from './relay-bootstrap';
