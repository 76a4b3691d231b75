// A Transport of WebRTC data channels on @thaunknown/simple-peer. Offers, answers and
// ICE candidates travel as signal blobs through whatever SignalChannel the caller
// passes (the relay for a first link, the overlay after that). A connection is only
// handed out once the identity handshake (link-handshake.ts) proved the peer's node id.
//
// ICE servers (option `iceServers`, default `[]`: host candidates only, which is all
// loopback tests and a LAN need). For real deployments across NATs:
//   - STUN finds the public address behind a NAT (most home routers):
//       [{ urls: 'stun:stun.l.google.com:19302' }]  or your own coturn `stun:host:3478`
//   - TURN relays the media when both sides are behind symmetric NATs / strict
//     firewalls (roughly 10-20% of pairs); it needs a server you run (coturn) and
//     credentials, ideally short-lived ones minted by your backend:
//       [{ urls: ['turn:turn.example.org:3478?transport=udp',
//                 'turns:turn.example.org:5349?transport=tcp'],
//          username: '...', credential: '...' }]
//   - `rtcConfig: { iceTransportPolicy: 'relay' }` forces TURN (hides peers' IPs).
// Never configure public servers in tests (docs/TESTING.md).
//
// Node: simple-peer 10 takes RTCPeerConnection from `webrtc-polyfill`, which is
// node-datachannel in Node and the browser's own in a page; there is no `wrtc` option
// any more. node-datachannel needs `rtcConfig: { bindAddress: '127.0.0.1' }` to gather
// a loopback candidate (it passes the RTCConfiguration through to libdatachannel).
// `createPeer` is the injection point for another implementation or a test double.
import SimplePeer, { type SimplePeerOptions, type SimplePeerSignal } from '@thaunknown/simple-peer/lite.js';
import * as v from 'valibot';
import { realClock, type Clock, type TimerHandle } from '../core/clock';
import { Emitter } from '../core/emitter';
import { ID_WORK_BITS, idWorkOk } from '../core/id-work';
import type { Identity } from '../core/identity';
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { HANDSHAKE_FAILED, OTHER_NETWORK, TRANSPORT_CLOSED } from './close-reasons';
import type { Link } from './link';
import { HandshakeError, NO_ID_WORK, NOT_OUR_NETWORK, runHandshake, sdpFingerprint } from './link-handshake';
import { UNNAMED_NETWORK } from './network-id';
import { DialError, type SignalBlob, type SignalChannel, type Transport, type TransportEvents } from './transport';
import type { IceProbeResult } from './ice-probe';
import type { LinkPath } from './link-path';
import { WebRtcLink } from './webrtc-link';
import { OfferResend, SeenCandidates } from './offer-resend';
import { watchTurnRefusals } from './turn-refusal';

export const WEBRTC_DEFAULTS = {
  /** No STUN/TURN: host candidates only (see the comment above for deployments). */
  iceServers: [] as RTCIceServer[],
  /** Signaling + ICE + DTLS + handshake must finish within this. */
  dialTimeoutMs: 15_000,
  /**
   * Half-open inbound connections (offers received, handshake not finished) kept at once.
   * When they are all taken, a new offer evicts one of them chosen at random (never a link
   * whose handshake finished): see `evictPending` for why.
   */
  maxPendingInbound: 32,
  /**
   * An inbound connection must prove its id (ICE, DTLS and the handshake done) within this
   * of its offer, or its slot is freed: offers that never finish cannot keep the slots full.
   * Time its key waits in the line of derivations (link-handshake.ts) is not counted: it
   * waits there behind others' keys, not for anything of its own.
   */
  pendingInboundTimeoutMs: 8_000,
  /** Half-open inbound connections from one node id at once (a second one is a redial). */
  maxPendingPerSource: 2,
  /**
   * A connection that has gathered no local ICE candidate this long after it started fails
   * (NO_CANDIDATE): no path to any peer can exist, as when a firewall or a browser policy
   * blocks WebRTC. Chromium with no usable interface stays 'gathering' for good, so waiting
   * for gathering to complete would only end at the dial's timeout. Host candidates come
   * within tens of ms (measured: loopback, ~10 ms), but on a loaded machine the first one
   * came seconds late (bench/lab under load): once this browser has gathered any candidate,
   * a connection without one is only late and is not failed for it.
   */
  noCandidateMs: 2_000,
  /**
   * Work a peer's id must show (core/id-work.ts): a dial to an id showing less, or an offer
   * from one, is refused before any connection is made, and the handshake checks it again
   * of the proven id (`idWorkRefused`).
   */
  idWorkBits: ID_WORK_BITS,
  /**
   * The network this peer is of (network-id.ts: its world's); the handshake refuses a peer
   * of another (`otherNetwork`). Default: the unnamed one, as for tests of links alone.
   */
  network: UNNAMED_NETWORK,
  /**
   * How long a start-up probe's 'none' (ice-probe.ts), or its silence for noCandidateMs,
   * fails dials at once, without their own gather wait: long enough for the first dials of a
   * start. A probe that gathers after all (a loaded machine is seconds late) ends it at once.
   */
  iceProbeTrustMs: 10_000,
  /**
   * A dial through a channel that may lose signals (a relay: SignalChannel.resendsUnanswered)
   * whose offer has no answer this long sends its offer and candidates again, at most
   * offerResends times (offer-resend.ts): a far end whose router forgot its mappings hears
   * the relay again within its keepalive (relay-bootstrap.ts, 4-5.3 s, or a socket found dead
   * and reopened within 4 s more), and the next copy reaches it, long before the dial's
   * timeout. One copy is an offer and a handful of candidates: 4 dials of a join resent at
   * once stay within the relay's burst allowance per socket (40 frames).
   */
  offerResendMs: 3_000,
  offerResends: 4,
};

/** Why a signal was refused (`stats.badSignalsBy`). */
export type BadSignalReason =
  /** Not a signal of this transport (schema). */
  | 'schema'
  /** An answer or candidate for no connection, or from ourselves. */
  | 'stray'
  /** Every inbound slot, or this source's share of them, is taken. */
  | 'slots'
  /** An offer or answer whose SDP has no a=fingerprint line or more than one. */
  | 'fingerprint'
  /** A second offer or answer for a connection (renegotiation is unused) with another SDP. */
  | 'renegotiation'
  /** An offer to the side that dialled, or an answer to the side that answers. */
  | 'direction'
  /** More candidates before the answer than a connection holds (MAX_HELD_CANDIDATES). */
  | 'held'
  /** The WebRTC stack refused it. */
  | 'refused';

export interface WebRtcTransportOptions {
  identity: Identity;
  iceServers?: RTCIceServer[];
  /** Extra RTCConfiguration fields merged over `{ iceServers }` (e.g. bindAddress for node-datachannel). */
  rtcConfig?: Record<string, unknown>;
  dialTimeoutMs?: number;
  maxPendingInbound?: number;
  pendingInboundTimeoutMs?: number;
  maxPendingPerSource?: number;
  noCandidateMs?: number;
  idWorkBits?: number;
  network?: string;
  /** A probe of whether this browser gathers any candidate, begun before the transport (ice-probe.ts). */
  iceProbe?: Promise<IceProbeResult>;
  iceProbeTrustMs?: number;
  /**
   * A link whose connection received nothing at all for this long while what we sent went
   * unanswered is closed as PATH_DEAD (webrtc-link.ts, path-watch.ts), to be dialled anew.
   * Given where the byte counters count acknowledgements (a browser's); none: no watch.
   */
  pathDeadMs?: number;
  offerResendMs?: number;
  offerResends?: number;
  clock?: Clock;
  /** Builds the simple-peer instance (default: `new SimplePeer(opts)`). */
  createPeer?: (opts: SimplePeerOptions) => SimplePeer;
}

export interface WebRtcTransportStats {
  dials: number;
  dialsOk: number;
  dialFailures: number;
  inbound: number;
  inboundOk: number;
  inboundFailures: number;
  handshakeFailures: number;
  /** Dials, offers and handshakes refused for a peer id showing too little work (WEBRTC_DEFAULTS.idWorkBits). */
  idWorkRefused: number;
  /** Connections refused in the handshake because the peer is of another network (OTHER_NETWORK). */
  otherNetwork: number;
  /** Connections failed for gathering no local ICE candidate within noCandidateMs. */
  noCandidate: number;
  badSignals: number;
  /** Links closed because the peer stopped reading (webrtc-link.ts MAX_QUEUED_BYTES). */
  stalledLinksClosed: number;
  /** Links closed because their network path died (PATH_DEAD, options.pathDeadMs). */
  pathDeadLinksClosed: number;
  /** Half-open inbound connections evicted at random to admit a new offer (every slot taken). */
  pendingEvicted: number;
  /** Dials whose offer the far end answered, and times a dial's unanswered offer was sent again (offerResendMs). */
  dialsAnswered: number;
  offersResent: number;
  /** Times a TURN server refused our credentials (turn-refusal.ts): wrong or expired. */
  turnRefused: number;
  /** badSignals by reason. */
  badSignalsBy: Record<BadSignalReason, number>;
  linksOpen: number;
}

const CandidateSchema = v.object({
  candidate: v.pipe(v.string(), v.maxLength(1024)),
  sdpMLineIndex: v.optional(v.nullable(v.number())),
  sdpMid: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(64)))),
});
const RtcSignalSchema = v.variant('type', [
  v.object({ type: v.picklist(['offer', 'answer']), sdp: v.pipe(v.string(), v.maxLength(32 * 1024)) }),
  v.object({ type: v.literal('candidate'), candidate: CandidateSchema }),
]);
/** The signal blob this transport sends and accepts. */
export const WebRtcSignalSchema = v.object({
  t: v.literal('rtc'),
  v: v.literal(1),
  cid: v.pipe(v.string(), v.regex(/^[0-9a-f]{8,32}$/)),
  s: RtcSignalSchema,
});

interface Conn {
  peer: SimplePeer;
  remoteId: NodeId;
  cid: string;
  initiator: boolean;
  offerSdp?: string;
  answerSdp?: string;
  /** A responder's candidates from the initiator that came before its answer (at most MAX_HELD_CANDIDATES). */
  held?: SimplePeerSignal[];
  timer: TimerHandle;
  /** When `timer` fails the connection (clock ms); paused while its key waits in the line of derivations. */
  deadline: number;
  /** The deadline's time left while paused (the key in the line); undefined: running. */
  pausedLeft?: number;
  /** Fails the connection at its deadline (dial timed out, or inbound not proven in time). */
  expire: () => void;
  /** Its link once the data channel opened (closed with the connection if it fails before the handshake ends). */
  link?: WebRtcLink;
  /** Fails the connection if no local candidate was gathered by then (noCandidateMs). */
  gatherTimer: TimerHandle;
  /** Local ICE candidates gathered so far (trickled, or in our own SDP). */
  candidates: number;
  /** A dial's signals, resent while unanswered (through a channel that may lose them). */
  resend?: OfferResend;
  /** When a dial's offer was sent (clock ms). */
  offeredAt?: number;
  /** Remote candidates taken: a resent copy is dropped. */
  seen: SeenCandidates;
  done: boolean;
  resolve?: (l: Link) => void;
  reject?: (e: Error) => void;
}

/** A connection's error when this browser gathered no ICE candidate (peer.ts reads it as WebRTC blocked). */
export const NO_CANDIDATE = 'no ICE candidate gathered: WebRTC may be blocked';

/** Candidates a responder keeps for the initiator until its answer is made (a browser gathers a handful). */
const MAX_HELD_CANDIDATES = 32;

/**
 * How long a connection refused as of another network is kept after the refusal, unless the
 * far end closes it first: our HELLO and 'bye' then reach the far end, which refuses in its
 * turn and says why. Destroyed at once, it dropped them now and then (node-datachannel), and
 * the far end saw only its connection fail ('User-Initiated Abort', webrtc-link.test in a
 * fresh-clone CI). The far end closes within a round trip of reading them.
 */
export const REFUSAL_LINGER_MS = 1000;
/** At most this many refused connections linger at once; past it one is destroyed at once, as before (a peer that names another network over and over holds no more). */
export const MAX_LINGERING = 8;

/** Candidates in our own SDP (node-datachannel puts them there rather than trickling them all). */
function localCandidates(sdp: string | undefined): number {
  return sdp === undefined ? 0 : sdp.split(/\r\n/).filter((l) => l.startsWith('a=candidate:')).length;
}

function stripCandidates(sdp: string): string {
  return sdp.split(/\r\n/).filter((l) => !l.startsWith('a=candidate:') && l !== 'a=end-of-candidates').join('\r\n');
}

function randomHex(bytes: number): string {
  return idToHex(crypto.getRandomValues(new Uint8Array(bytes)));
}

export class WebRtcTransport implements Transport {
  readonly selfId: NodeId;
  readonly events = new Emitter<TransportEvents>();
  readonly stats: WebRtcTransportStats = {
    dials: 0, dialsOk: 0, dialFailures: 0, inbound: 0, inboundOk: 0, inboundFailures: 0,
    handshakeFailures: 0, idWorkRefused: 0, otherNetwork: 0, noCandidate: 0, badSignals: 0, linksOpen: 0, stalledLinksClosed: 0, pathDeadLinksClosed: 0, pendingEvicted: 0, dialsAnswered: 0, offersResent: 0, turnRefused: 0,
    badSignalsBy: { schema: 0, stray: 0, slots: 0, fingerprint: 0, renegotiation: 0, direction: 0, held: 0, refused: 0 },
  };
  private readonly opts: Required<Omit<WebRtcTransportOptions, 'rtcConfig' | 'iceProbe' | 'pathDeadMs'>> & Pick<WebRtcTransportOptions, 'pathDeadMs'> & { rtcConfig: Record<string, unknown> };
  /** Until when dials fail at once: the start-up probe gathered no candidate (ice-probe.ts). */
  private blockedUntil = -Infinity;
  private gatheredAny = false;
  /** Refused links whose connections linger (refusalLinger), ended when the transport closes. */
  private lingering = new Set<WebRtcLink>();
  private probeEnded = false;
  private probeTimer: TimerHandle | undefined;
  private sawFirstCandidate!: () => void;
  /**
   * Resolves at the first ICE candidate this browser gathers (the start-up probe's or any
   * connection's): from then on it is known not to be blocked, however late that came.
   */
  readonly firstCandidate = new Promise<void>((resolve) => { this.sawFirstCandidate = resolve; });
  private readonly conns = new Map<string, Conn>();
  private readonly links = new Set<WebRtcLink>();
  /** Keys of recently ended connections: their late candidates are ignored, not counted as bad. */
  private readonly ended = new Set<string>();
  private closed = false;

  constructor(options: WebRtcTransportOptions) {
    this.opts = {
      ...WEBRTC_DEFAULTS,
      clock: realClock,
      createPeer: (o) => new SimplePeer(o),
      rtcConfig: {},
      ...options,
    };
    this.selfId = options.identity.id;
    const probe = options.iceProbe;
    if (probe) {
      // A probe still silent after a dial's own gather wait is taken as 'none' for now (a
      // blocked Chromium never answers); its candidate, if one comes later, undoes that.
      this.probeTimer = this.opts.clock.setTimeout(() => this.probeFoundNone(), this.opts.noCandidateMs);
      void probe.then((r) => {
        this.opts.clock.clearTimeout(this.probeTimer!);
        if (r === 'gathered') this.candidateGathered();
        if (r === 'none') this.probeEnded = true;
        if (r === 'none' || r === 'silent') this.probeFoundNone();
      });
    }
  }

  /** Whether this browser has gathered any ICE candidate yet (the start-up probe's or a connection's). */
  get gathered(): boolean {
    return this.gatheredAny;
  }

  /** Whether the start-up probe's gathering completed with no candidate: blocked for sure, not slow. */
  get gatheringEndedEmpty(): boolean {
    return this.probeEnded && !this.gatheredAny;
  }

  private candidateGathered(): void {
    if (this.gatheredAny) return;
    this.gatheredAny = true;
    this.blockedUntil = -Infinity;
    this.sawFirstCandidate();
  }

  private probeFoundNone(): void {
    if (this.closed || this.gatheredAny) return;
    this.blockedUntil = this.opts.clock.now() + this.opts.iceProbeTrustMs;
    // Dials begun before the answer that have gathered nothing either end now, not at their own timer.
    for (const c of [...this.conns.values()]) {
      if (c.initiator && c.candidates === 0) {
        this.stats.noCandidate++;
        this.fail(c, new DialError(NO_CANDIDATE));
      }
    }
  }

  /** Our dials whose offer went out and is unanswered so far, and how long the oldest of them has waited (ms). */
  unanswered(): { dials: number; oldestMs: number } {
    let dials = 0, oldestMs = 0;
    const now = this.opts.clock.now();
    for (const c of this.conns.values()) {
      if (!c.initiator || c.done || c.answerSdp !== undefined || c.offeredAt === undefined) continue;
      dials++;
      oldestMs = Math.max(oldestMs, now - c.offeredAt);
    }
    return { dials, oldestMs };
  }

  /** The ICE servers new connections use. */
  get iceServers(): readonly RTCIceServer[] {
    return this.opts.iceServers;
  }

  /** Replaces the ICE servers of connections made from now on (a relay renewed its TURN credentials); live ones keep theirs. */
  setIceServers(servers: RTCIceServer[]): void {
    this.opts.iceServers = servers;
    this.refusal = undefined;
  }

  private refusal: string | undefined;
  /** The last refusal of our TURN credentials since the servers were last set (turn-refusal.ts), if any. */
  get turnRefusal(): string | undefined {
    return this.refusal;
  }

  /**
   * How each live link is carried (its selected ICE candidate pair; undefined while its
   * stats give none) and the bytes it carried both ways, by the peer's node id (hex).
   */
  async linkPaths(): Promise<Map<string, { path: LinkPath | undefined; bytes: number }>> {
    const links = [...this.links];
    const paths = await Promise.all(links.map((l) => l.path()));
    return new Map(links.map((l, i) => [idToHex(l.remoteId), { path: paths[i], bytes: l.stats.bytesIn + l.stats.bytesOut }]));
  }

  dial(remoteId: NodeId, signals: SignalChannel): Promise<Link> {
    if (this.closed) return Promise.reject(new DialError('transport closed'));
    if (idEquals(remoteId, this.selfId)) return Promise.reject(new DialError('cannot dial self'));
    if (!idWorkOk(remoteId, this.opts.idWorkBits)) {
      this.stats.idWorkRefused++;
      return Promise.reject(new DialError(NO_ID_WORK));
    }
    this.stats.dials++;
    if (this.opts.clock.now() < this.blockedUntil) {
      this.stats.noCandidate++;
      this.stats.dialFailures++;
      return Promise.reject(new DialError(NO_CANDIDATE));
    }
    return new Promise((resolve, reject) => {
      this.start(remoteId, randomHex(8), true, signals, resolve, reject);
    });
  }

  handleSignal(from: NodeId, blob: SignalBlob, signals: SignalChannel): void {
    if (this.closed) return;
    const parsed = v.safeParse(WebRtcSignalSchema, blob);
    if (!parsed.success) return this.badSignal('schema');
    const { cid, s } = parsed.output;
    const fromHex = idToHex(from);
    const key = `${fromHex}/${cid}`;
    let c = this.conns.get(key);
    if (c?.done) {
      // Open already: late trickled candidates may still help ICE; anything else is noise.
      if (s.type === 'candidate' && !c.peer.destroyed && c.seen.first(s.candidate.candidate)) {
        try {
          c.peer.signal(s as SimplePeerSignal);
        } catch {
          /* peer closing */
        }
      }
      return;
    }
    if (!c && this.ended.has(key)) return;
    // The handshake binds the one fingerprint of each SDP: none, or two, is refused.
    const fp = s.type === 'candidate' ? undefined : sdpFingerprint(s.sdp);
    if (s.type !== 'candidate' && fp === undefined) return this.badSignal('fingerprint');
    if (!c) {
      // Only an offer opens a connection; a stray answer/candidate belongs to one that ended.
      if (s.type !== 'offer' || idEquals(from, this.selfId)) return this.badSignal('stray');
      if (!idWorkOk(from, this.opts.idWorkBits)) {
        this.stats.idWorkRefused++;
        return;
      }
      if (this.pendingInbound(fromHex) >= this.opts.maxPendingPerSource) return this.badSignal('slots');
      if (this.pendingInbound() >= this.opts.maxPendingInbound) this.evictPending();
      this.stats.inbound++;
      c = this.start(from, cid, false, signals);
    } else if (s.type !== 'candidate' && (s.type === 'offer') === c.initiator) {
      // An initiator never receives an offer, a responder never an answer; candidates flow
      // both ways. (A responder that dropped the initiator's candidates still linked where
      // its checks needed no hole punched, e.g. on loopback, learning the initiator's address
      // from its checks; across two NATs it never sent a packet out: bench/lab, stun-cone.)
      return this.badSignal('direction');
    }
    if (s.type !== 'candidate') {
      const bound = s.type === 'offer' ? c.offerSdp : c.answerSdp;
      if (bound !== undefined) {
        // Renegotiation is unused: a second SDP could carry another certificate than the one bound.
        if (bound !== s.sdp) this.badSignal('renegotiation');
        return;
      }
      if (s.type === 'offer') c.offerSdp = s.sdp;
      else {
        c.answerSdp = s.sdp;
        c.resend?.stop();
        this.stats.dialsAnswered++;
      }
    } else if (!c.seen.first(s.candidate.candidate)) {
      return; // a resent copy of one taken
    } else if (!c.initiator && c.answerSdp === undefined) {
      // The offer may still be being applied: node-datachannel takes a remote candidate only
      // once its ICE transport exists, and failed the connection now and then ("Got a remote
      // candidate without ICE transport", webrtc-link.test.ts in CI). Our answer is made after
      // the offer is applied, so the initiator's candidates wait for it.
      if ((c.held ??= []).length >= MAX_HELD_CANDIDATES) return this.badSignal('held');
      c.held.push(s as SimplePeerSignal);
      return;
    }
    try {
      c.peer.signal(s as SimplePeerSignal);
    } catch {
      this.badSignal('refused');
    }
  }

  private badSignal(why: BadSignalReason): void {
    this.stats.badSignals++;
    this.stats.badSignalsBy[why]++;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.probeTimer !== undefined) this.opts.clock.clearTimeout(this.probeTimer);
    for (const c of [...this.conns.values()]) this.fail(c, new DialError('transport closed'));
    for (const l of [...this.links]) l.close(TRANSPORT_CLOSED);
    for (const l of this.lingering) l.endLinger();
    this.lingering.clear();
    this.events.removeAll();
  }

  private forget(key: string): void {
    this.conns.delete(key);
    this.ended.add(key);
    if (this.ended.size > 256) this.ended.delete(this.ended.values().next().value!);
  }

  /**
   * Frees a slot for a new offer when every one is taken: fails a half-open inbound
   * connection chosen at random (random early drop), among those still connecting (no data
   * channel yet) if any, else among those whose keys wait in the line of derivations.
   * Refusing the new offer, as before, let whoever holds the slots keep every honest dialler
   * out: offers that stall in ICE, or connections whose keys wait in the line, held all 32
   * for as long as the attacker kept them up, ~16 ids at 2 each (bench handshake_flood).
   * Evicting the oldest would hand the slots to any attacker opening more than 32 in an
   * honest connection's lifetime; at random, an honest connection needing time T to prove
   * its id survives new connections arriving at λ a second with probability about
   * exp(-λT/slots): it does not fall to 0 with the keys or connections the attacker holds,
   * only with its rate of new ones, a WebRTC connection each. Still-connecting ones go
   * first: they are the cheapest to hold (an offer, no ICE, no DTLS), and a connection in
   * the line has already paid for its place and leaves it within slots / line rate seconds.
   * Our own dials and links whose handshake finished are never evicted.
   */
  private evictPending(): void {
    const pending = [...this.conns.values()].filter((c) => !c.initiator && !c.done);
    const connecting = pending.filter((c) => c.link === undefined);
    const from = connecting.length > 0 ? connecting : pending;
    const victim = from[Math.floor(Math.random() * from.length)];
    if (!victim) return;
    this.stats.pendingEvicted++;
    this.fail(victim, new DialError('evicted: every inbound slot taken'));
  }

  /**
   * Stops a connection's deadline while its key waits in the line of derivations and
   * restarts it with the time it had left once it leaves: a dialler behind a flood's keys
   * is not failed for the flood's wait. The line itself is bounded (the half-open
   * connections at once, over its rate), so the deadline still ends every connection.
   */
  private inLine(c: Conn, waiting: boolean): void {
    if (c.done) return;
    const now = this.opts.clock.now();
    if (waiting && c.pausedLeft === undefined) {
      c.pausedLeft = Math.max(0, c.deadline - now);
      this.opts.clock.clearTimeout(c.timer);
    } else if (!waiting && c.pausedLeft !== undefined) {
      c.deadline = now + c.pausedLeft;
      c.timer = this.opts.clock.setTimeout(c.expire, c.pausedLeft);
      c.pausedLeft = undefined;
    }
  }

  /** Half-open inbound connections (from one source, if given). */
  private pendingInbound(fromHex?: string): number {
    let n = 0;
    for (const [key, c] of this.conns) if (!c.initiator && !c.done && (fromHex === undefined || key.startsWith(fromHex))) n++;
    return n;
  }

  private start(
    remoteId: NodeId, cid: string, initiator: boolean, signals: SignalChannel,
    resolve?: (l: Link) => void, reject?: (e: Error) => void,
  ): Conn {
    const key = `${idToHex(remoteId)}/${cid}`;
    const peer = this.opts.createPeer({
      initiator,
      trickle: true,
      config: { ...this.opts.rtcConfig, iceServers: this.opts.iceServers },
    });
    const servers = this.opts.iceServers;
    watchTurnRefusals(peer._pc, (why) => {
      this.stats.turnRefused++;
      if (this.opts.iceServers !== servers) return;
      this.refusal = why;
      this.events.emit('turn-refused', why);
    });
    const timeoutMs = initiator ? this.opts.dialTimeoutMs : this.opts.pendingInboundTimeoutMs;
    const expire = () => this.fail(c, new DialError(initiator ? 'dial timed out' : 'inbound connection did not prove its id in time'));
    const c: Conn = {
      peer, remoteId, cid, initiator, done: false, resolve, reject, candidates: 0, seen: new SeenCandidates(),
      expire, deadline: this.opts.clock.now() + timeoutMs,
      timer: this.opts.clock.setTimeout(expire, timeoutMs),
      gatherTimer: this.opts.clock.setTimeout(() => {
        // A browser that gathered before (the probe, another connection) is not blocked:
        // this connection is late, as on a loaded machine, and its own timeout bounds it.
        // Relay-only is the exception: the probe's host candidates say nothing of TURN's.
        if (c.candidates > 0 || (this.gatheredAny && this.opts.rtcConfig.iceTransportPolicy !== 'relay')) return;
        this.stats.noCandidate++;
        this.fail(c, new DialError(NO_CANDIDATE));
      }, this.opts.noCandidateMs),
    };
    this.conns.set(key, c);
    if (initiator && signals.resendsUnanswered) {
      c.resend = new OfferResend(this.opts.clock, this.opts.offerResendMs, this.opts.offerResends, (blobs) => {
        this.stats.offersResent++;
        for (const b of blobs) signals.sendSignal(remoteId, b);
      });
    }
    peer.on('signal', (data) => {
      if (c.done) return;
      if (data.type === 'offer') c.offerSdp ??= data.sdp;
      if (data.type === 'answer') c.answerSdp ??= data.sdp;
      if (data.type !== 'offer' && data.type !== 'answer' && data.type !== 'candidate') return; // renegotiation: unused
      c.candidates += data.type === 'candidate' ? 1 : localCandidates(data.sdp);
      if (c.candidates > 0) this.candidateGathered();
      // Candidates travel as their own signals (trickle). Some of them may already sit in
      // the SDP; sending them twice made libdatachannel fail now and then with "Got a remote
      // candidate without ICE transport", so the SDP goes without them.
      const s = data.sdp === undefined ? data : { type: data.type, sdp: stripCandidates(data.sdp) };
      const blob = { t: 'rtc', v: 1, cid, s } as SignalBlob;
      signals.sendSignal(remoteId, blob);
      if (data.type === 'offer') c.offeredAt ??= this.opts.clock.now();
      c.resend?.sent(blob);
      if (data.type === 'answer' && c.held) {
        for (const h of c.held.splice(0)) {
          try {
            peer.signal(h);
          } catch {
            this.badSignal('refused');
          }
        }
      }
    });
    peer.on('error', (e) => this.fail(c, new DialError(`connection failed: ${e.message}`)));
    peer.on('close', () => this.fail(c, new DialError('connection closed before it opened')));
    peer.on('connect', () => void this.onConnect(c, key));
    return c;
  }

  private async onConnect(c: Conn, key: string): Promise<void> {
    if (c.done) return;
    const link = new WebRtcLink(c.peer, c.remoteId, {
      clock: this.opts.clock,
      onStalled: () => this.stats.stalledLinksClosed++,
      ...(this.opts.pathDeadMs !== undefined ? { pathDeadMs: this.opts.pathDeadMs, onPathDead: () => this.stats.pathDeadLinksClosed++ } : {}),
    });
    c.link = link;
    const offerFp = sdpFingerprint(c.offerSdp);
    const answerFp = sdpFingerprint(c.answerSdp);
    const fps = `${offerFp}|${answerFp}`;
    try {
      // Our own SDP is checked here (the peer's was, as it came in): nothing to bind, no link.
      if (offerFp === undefined || answerFp === undefined) throw new HandshakeError('an SDP without exactly one fingerprint');
      const io = { ...link.handshakeIo(), waiting: (w: boolean) => this.inLine(c, w) };
      const peerReads = await runHandshake(io, this.opts.identity, c.remoteId, fps, this.opts.idWorkBits, this.opts.network);
      if (peerReads.batch) link.enableBatching();
      if (peerReads.probe) link.enableProbes();
    } catch (e) {
      // A refusal is counted even when the connection already failed meanwhile: the peer
      // that refused us first closes at once, and its close may reach us in the same turn
      // as its hello (fresh-clone CI counted 0 of 1 such refusals at the answerer).
      const otherNetwork = (e as Error).message === NOT_OUR_NETWORK;
      if (otherNetwork) this.stats.otherNetwork++;
      if ((e as Error).message === NO_ID_WORK) this.stats.idWorkRefused++;
      if (c.done) return;
      this.stats.handshakeFailures++;
      if (otherNetwork) this.refuse(link);
      else link.close(HANDSHAKE_FAILED);
      this.fail(c, new DialError(`handshake failed: ${(e as Error).message}`));
      return;
    }
    if (c.done) return;
    if (link.closed) {
      this.fail(c, new DialError('connection closed during the handshake'));
      return;
    }
    c.done = true;
    this.opts.clock.clearTimeout(c.timer);
    this.opts.clock.clearTimeout(c.gatherTimer);
    c.resend?.stop();
    if (this.closed) {
      this.conns.delete(key);
      link.close(TRANSPORT_CLOSED);
      return;
    }
    // The entry stays while the link lives, so late candidates still reach the peer.
    this.links.add(link);
    this.stats.linksOpen++;
    link.events.on('close', () => {
      if (this.conns.get(key) === c) this.forget(key);
      if (this.links.delete(link)) this.stats.linksOpen--;
    });
    link.activate();
    if (c.initiator) {
      this.stats.dialsOk++;
      c.resolve?.(link);
    } else {
      this.stats.inboundOk++;
      this.events.emit('link', link);
    }
  }

  /** Closes a link refused as of another network, its connection lingering (REFUSAL_LINGER_MS) unless MAX_LINGERING already do. */
  private refuse(link: WebRtcLink): void {
    for (const l of this.lingering) if (!l.lingering) this.lingering.delete(l);
    const linger = this.lingering.size < MAX_LINGERING;
    link.close(OTHER_NETWORK, linger ? REFUSAL_LINGER_MS : 0);
    if (linger && link.lingering) this.lingering.add(link);
  }

  private fail(c: Conn, err: Error): void {
    if (c.done) return;
    c.done = true;
    this.opts.clock.clearTimeout(c.timer);
    this.opts.clock.clearTimeout(c.gatherTimer);
    c.resend?.stop();
    this.forget(`${idToHex(c.remoteId)}/${c.cid}`);
    // Its link closes now, not at the channel's close: a key of it waiting in the line of
    // derivations leaves it at once. The link ends its connection (at once, or after a refusal's linger).
    if (c.link) c.link.close(HANDSHAKE_FAILED);
    else if (!c.peer.destroyed) c.peer.destroy();
    if (c.initiator) {
      this.stats.dialFailures++;
      c.reject?.(err);
    } else {
      this.stats.inboundFailures++;
    }
  }
}
