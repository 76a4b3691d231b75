// Fuzz targets for the link layer: a WebRtcLink's frame handling (after and during the
// handshake), the handshake itself against a peer whose HELLO or AUTH is tampered with,
// the transport's signal handling, and the relay client's frame handling. Rejections are
// read back from each one's own counters.
import fc from 'fast-check';
import * as v from 'valibot';
import { generateNodeIdentity, type Identity } from '../core/identity';
import { idToHex, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { controlFrame, splitMessage } from '../net/frames';
import { ControlSchema, HandshakeError, runHandshake, type ControlMsg, type HandshakeIo } from '../net/link-handshake';
import { connectRelay, type WebSocketCtor, type WebSocketLike } from '../net/relay-bootstrap';
import type { SignalBlob } from '../net/transport';
import { WebRtcLink } from '../net/webrtc-link';
import { WebRtcTransport } from '../net/webrtc-transport';
import { FakeSimplePeer } from './fake-simple-peer';
import { testNodeIdentity } from './node-identities';
import { FuzzFailure, grewCounters, type FuzzTarget, type FuzzVerdict } from './fuzz-campaign';
import { fieldValueArb, frameArb, textFrameArb } from './fuzz-frames';

const rand = seededRandom(5);

/**
 * A WebRtcLink fed a hostile peer's frames: data frames (cut and reassembled), control
 * frames (HELLO/AUTH/BYE and junk). Every 64 frames the link is new and half of them are
 * fed during the handshake. A rejected frame delivers no message.
 */
export function webRtcLinkTarget(): FuzzTarget {
  const clock = new VirtualClock();
  let peer!: FakeSimplePeer;
  let link!: WebRtcLink;
  let delivered = 0;
  let fed = 0;
  const fresh = () => {
    peer = new FakeSimplePeer();
    link = new WebRtcLink(peer.asPeer, randomId(rand), { clock, maxMessage: 64 * 1024 });
    link.events.on('message', () => void delivered++);
    if (fed % 128 < 64) {
      link.activate();
      clock.advanceSync(0);
    }
  };
  fresh();
  const valid = [
    ...splitMessage(new Uint8Array([1, 2, 3])),
    ...splitMessage(new Uint8Array(20_000).fill(9)),
    controlFrame({ t: 'hello', v: 1, alg: 'Ed25519', pk: 'AAAA', nonce: 'AAAAAAAAAAAAAAAAAAAAAA==' }),
    controlFrame({ t: 'auth', sig: 'AAAA' }),
    controlFrame({ t: 'bye', reason: 'x' }),
  ];
  return {
    name: 'webrtc link',
    frames: frameArb({ valid, structured: false, maxRandom: 1024 }),
    feed(frame): FuzzVerdict {
      if (++fed % 64 === 0 || link.closed) fresh();
      const bad = { ...link.stats.badBy };
      const before = delivered;
      peer.deliver(frame);
      clock.advanceSync(0);
      const grew = grewCounters(bad, link.stats.badBy);
      if (grew.length === 0) return 'accepted';
      if (delivered !== before) throw new FuzzFailure(`a frame refused as ${grew[0]} delivered a message`);
      return { rejected: grew[0]! };
    },
  };
}

type Tamper = { at: 'hello' | 'auth'; mode: 'field'; key: string; value: unknown } | { at: 'hello' | 'auth'; mode: 'json'; text: string };

/**
 * The handshake between two real identities, with the peer's HELLO or AUTH tampered with
 * on the way (a field replaced, or the whole frame's JSON mutated). The tampered frame goes
 * through the schema check as the link would do it; the handshake then must fail with a
 * HandshakeError, and succeed only when nothing was changed.
 */
export async function handshakeTarget(): Promise<FuzzTarget<Tamper>> {
  const us: Identity = await testNodeIdentity('Ed25519');
  const them: Identity = await testNodeIdentity('Ed25519');
  const fps = 'sha-256 aa:bb|sha-256 cc:dd';
  const keys = { hello: ['t', 'v', 'alg', 'pk', 'nonce'], auth: ['t', 'sig'] };
  const tamperArb: fc.Arbitrary<Tamper> = fc.oneof(
    fc.record({ at: fc.constantFrom('hello' as const, 'auth' as const), mode: fc.constant('field' as const), key: fc.constantFrom(...keys.hello, 'x'), value: fc.oneof(fieldValueArb, fc.base64String({ maxLength: 120 }), fc.constantFrom('A', 'AA=', 'ECDSA-P256', 'auth', 'hello')) }),
    fc.record({ at: fc.constantFrom('hello' as const, 'auth' as const), mode: fc.constant('json' as const), text: textFrameArb(['{"t":"auth","sig":"AAAA"}', '{"t":"hello","v":1,"alg":"Ed25519","pk":"AAAA","nonce":"AAAA"}']) }),
  );
  let failures = 0;
  return {
    name: 'link handshake',
    frames: tamperArb,
    async feed(tm): Promise<FuzzVerdict> {
      // Two in-memory control channels; the one toward us tampers with one message.
      const toUs: ControlMsg[] = [];
      const toThem: ControlMsg[] = [];
      const waiting: { us?: (m: ControlMsg) => void; them?: (m: ControlMsg) => void } = {};
      let refused: string | undefined;
      /** The peer's message reached us other than it was sent. */
      let changed = false;
      let onRefused!: () => void;
      const refusal = new Promise<'refused'>((r) => (onRefused = () => r('refused')));
      const refuse = (why: string) => {
        refused = why;
        onRefused();
      };
      const deliver = (who: 'us' | 'them', m: ControlMsg) => {
        const w = waiting[who];
        if (w) {
          waiting[who] = undefined;
          w(m);
        } else (who === 'us' ? toUs : toThem).push(m);
      };
      const io = (who: 'us' | 'them'): HandshakeIo => ({
        send: (m) => {
          const to = who === 'us' ? 'them' : 'us';
          if (to === 'us' && m.t === tm.at) {
            let raw: unknown;
            if (tm.mode === 'field') raw = { ...m, [tm.key]: tm.value };
            else {
              try {
                raw = JSON.parse(tm.text);
              } catch {
                return refuse('not JSON');
              }
            }
            const p = v.safeParse(ControlSchema, raw);
            if (!p.success) return refuse('schema');
            changed = JSON.stringify(p.output) !== JSON.stringify(m);
            return deliver(to, p.output);
          }
          deliver(to, m);
        },
        next: () => {
          const q = who === 'us' ? toUs : toThem;
          const m = q.shift();
          if (m) return Promise.resolve(m);
          return new Promise((resolve) => (waiting[who] = resolve));
        },
      });
      const theirs = runHandshake(io('them'), them, us.id, fps).catch(() => undefined);
      const ours = runHandshake(io('us'), us, them.id, fps).then(
        () => 'ok' as const,
        (e: Error) => e,
      );
      // A refused frame never reaches us: our side would wait for it until the link's dial timeout.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stall = new Promise<'stalled'>((r) => (timer = setTimeout(() => r('stalled'), 2000)));
      const outcome = await Promise.race([ours, refusal, stall]);
      clearTimeout(timer);
      void theirs;
      if (refused !== undefined || outcome === 'refused') return { rejected: refused ?? 'refused' };
      if (outcome === 'stalled') {
        if (++failures > 3) throw new FuzzFailure('the handshake neither finished nor failed');
        return { rejected: 'stalled' };
      }
      if (outcome === 'ok') {
        // Only a change the schema undid (an unknown field dropped) may pass.
        if (changed) throw new FuzzFailure(`the handshake passed with a tampered ${tm.at}`);
        return 'accepted';
      }
      if (!(outcome instanceof HandshakeError)) throw new FuzzFailure(`the handshake failed with ${outcome.name}: ${outcome.message}`);
      return { rejected: outcome.message.replace(/expected \w+, got \w+/, 'out of order') };
    },
  };
}

/** The transport's signal handling: blobs from a peer (valid offers, candidates, junk). Refused ones make no connection. */
export async function signalTarget(): Promise<FuzzTarget<unknown>> {
  const clock = new VirtualClock();
  const peers: FakeSimplePeer[] = [];
  const t = new WebRtcTransport({
    identity: await generateNodeIdentity({ bits: 0 }),
    clock,
    // The sources are drawn ids: their offers must reach the checks fuzzed here (core/id-work.ts).
    idWorkBits: 0,
    createPeer: (o) => {
      const p = new FakeSimplePeer(o);
      peers.push(p);
      return p.asPeer;
    },
  });
  const from = [randomId(rand), randomId(rand), randomId(rand)];
  const sdp = 'v=0\r\na=fingerprint:sha-256 AA:BB\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n';
  const valid = [
    JSON.stringify({ t: 'rtc', v: 1, cid: '0123456789abcdef', s: { type: 'offer', sdp } }),
    JSON.stringify({ t: 'rtc', v: 1, cid: '0123456789abcdef', s: { type: 'candidate', candidate: { candidate: 'candidate:1 1 UDP 1 127.0.0.1 5000 typ host', sdpMid: '0' } } }),
    JSON.stringify({ t: 'rtc', v: 1, cid: '00000000aaaa', s: { type: 'answer', sdp } }),
  ];
  let n = 0;
  const nowhere = { sendSignal: () => undefined };
  return {
    name: 'webrtc signals',
    frames: textFrameArb(valid),
    feed(text): FuzzVerdict {
      let blob: unknown;
      try {
        blob = JSON.parse(text as string);
      } catch {
        return { rejected: 'not JSON' }; // the relay and the overlay hand over objects only
      }
      if (typeof blob !== 'object' || blob === null || Array.isArray(blob)) return { rejected: 'not an object' };
      // Half-open connections free their slots as they time out (8 s); a second passes per frame.
      if (++n % 4 === 0) clock.advanceSync(1000);
      const before = { ...t.stats.badSignalsBy };
      const made = peers.length;
      const signalled = peers.reduce((k, p) => k + p.signals.length, 0);
      t.handleSignal(from[n % 3]!, blob as SignalBlob, nowhere);
      const grew = grewCounters(before, t.stats.badSignalsBy);
      if (grew.length === 0) return 'accepted';
      if (peers.length !== made || peers.reduce((k, p) => k + p.signals.length, 0) !== signalled) throw new FuzzFailure(`a signal refused as ${grew[0]} reached a connection`);
      return { rejected: grew[0]! };
    },
    close: () => t.close(),
  };
}

/** A WebSocket whose server side the fuzzer plays: it answers the registration, then sends frames. */
class ScriptedSocket implements WebSocketLike {
  static last: ScriptedSocket | undefined;
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code?: number; reason?: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  readonly sent: string[] = [];
  constructor(readonly url: string) {
    ScriptedSocket.last = this;
    queueMicrotask(() => {
      this.readyState = 1;
      this.onopen?.({});
    });
  }
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {
    this.readyState = 3;
  }
}

/** The relay client's frame handling after it registered: signals, peer lists, errors, junk. */
export async function relayClientTarget(identity?: Identity): Promise<FuzzTarget<unknown>> {
  const self = identity ?? (await generateNodeIdentity({ bits: 0 }));
  const selfHex = idToHex(self.id);
  const pending = connectRelay({ url: 'ws://fuzz/relay', identity: self, WebSocket: ScriptedSocket as unknown as WebSocketCtor });
  const ws = ScriptedSocket.last!;
  await new Promise((r) => setTimeout(r, 0));
  await answerRegistration(ws, selfHex);
  const client = await pending;
  let signals = 0;
  client.events.on('signal', () => void signals++);
  const peer = idToHex(randomId(rand));
  const valid = [
    JSON.stringify({ type: 'signal', from: peer, blob: { t: 'rtc', v: 1 } }),
    JSON.stringify({ type: 'peers', ids: [peer, selfHex] }),
    JSON.stringify({ type: 'error', code: 'unknown-peer', message: 'gone', to: peer }),
    JSON.stringify({ type: 'registered', id: selfHex }),
    JSON.stringify({ type: 'pong' }),
  ];
  return {
    name: 'relay client',
    frames: textFrameArb(valid),
    feed(text): FuzzVerdict {
      const bad = { ...client.stats.badBy };
      const before = signals;
      ws.onmessage?.({ data: text });
      const grew = grewCounters(bad, client.stats.badBy);
      if (grew.length === 0) return 'accepted';
      if (signals !== before) throw new FuzzFailure('a refused relay frame was taken as a signal');
      return { rejected: grew[0]! };
    },
    close: () => client.close(),
  };
}

/** Plays the relay's side of registration (relay-protocol.ts): challenge, then 'registered'. */
async function answerRegistration(ws: ScriptedSocket, selfHex: string): Promise<void> {
  ws.onmessage?.({ data: JSON.stringify({ type: 'challenge', nonce: 'A'.repeat(43) }) });
  for (let i = 0; i < 100 && !ws.sent.some((s) => s.includes('"register"')); i++) await new Promise((r) => setTimeout(r, 1));
  ws.onmessage?.({ data: JSON.stringify({ type: 'registered', id: selfHex }) });
}
