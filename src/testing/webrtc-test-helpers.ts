// Test wiring for WebRTC transports in Node (node-datachannel under webrtc-polyfill):
// a direct in-process SignalChannel and loopback-only RTC settings. Test files only.
import type { Identity } from '../core/identity';
import type { NodeId } from '../core/node-id';
import type { Link } from '../net/link';
import type { SignalBlob, SignalChannel } from '../net/transport';
import { WebRtcTransport, type WebRtcTransportOptions } from '../net/webrtc-transport';
import { testNodeIdentity } from './node-identities';

/** node-datachannel gathers no loopback candidate without bindAddress (docs/TESTING.md). */
export const NODE_LOOPBACK_RTC = { bindAddress: '127.0.0.1' };

export async function nodeTransport(opts: Partial<WebRtcTransportOptions> = {}): Promise<WebRtcTransport> {
  const identity: Identity = opts.identity ?? (await testNodeIdentity());
  return new WebRtcTransport({ rtcConfig: NODE_LOOPBACK_RTC, iceServers: [], ...opts, identity });
}

/** Signals from `from` delivered to `to` asynchronously (like a relay would). */
export function directSignals(from: WebRtcTransport, to: WebRtcTransport, tamper?: (b: SignalBlob) => SignalBlob | null): SignalChannel {
  const channel: SignalChannel = {
    sendSignal(_to: NodeId, blob: SignalBlob) {
      const b = tamper ? tamper(blob) : blob;
      if (!b) return;
      setTimeout(() => to.handleSignal(from.selfId, JSON.parse(JSON.stringify(b)), directSignals(to, from)), 0);
    },
  };
  return channel;
}

/**
 * A dial from `a` to `b` and the link each end gets. One redial when libdatachannel fails
 * the dial with "Got a remote candidate without ICE transport", as the product's DHT redials
 * a failed dial. What fails: libdatachannel's setRemoteDescription gives the ICE agent the
 * answer before it keeps the answer's fingerprint, and a DTLS handshake that reaches the
 * certificate check in between fails ("DTLS alert: unknown CA" in its log), more often when
 * the thread applying the answer is starved; the dialer's closed connection then refuses
 * b's next candidate with that message. Dials between two Node transports in a loop, beside
 * busy loops at load 13-25: 2 of 80, 7 of 100, and 14 of 150. Where no candidate follows the
 * failure nothing is said (node-datachannel drops a closed connection's last state events)
 * and the dial ends at its timeout; b's end of a failed connection also stays half-open
 * until b's pendingInboundTimeoutMs, so a redial at once can find b's maxPendingPerSource
 * slots for `a` taken and time out (b counts its offer in badSignalsBy.slots): 7 of the 14
 * in a trial build whose transport redialled such dials at once.
 * Logged, so a run shows how often. `channel`: how a's signals reach b (direct by default;
 * a relay doorway in relay-bootstrap.test).
 */
export async function linkPair(a: WebRtcTransport, b: WebRtcTransport, redials = 1, channel: SignalChannel = directSignals(a, b)): Promise<[Link, Link]> {
  let stop = () => {};
  const inbound = new Promise<Link>((resolve) => {
    stop = b.events.once('link', resolve);
  });
  try {
    const out = await a.dial(b.selfId, channel);
    return [out, await inbound];
  } catch (e) {
    stop();
    if (redials <= 0 || !(e instanceof Error) || !/without ICE transport/.test(e.message)) throw e;
    console.warn(`linkPair: redial after "${e.message}"`);
    return linkPair(a, b, redials - 1, channel);
  }
}
