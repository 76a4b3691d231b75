// Fuzz targets for the pure decoders: the core codec (through the DHT's and the vote's
// specs), the ROUTE header reader and the link's frame reassembly. A decoder may only
// return a message or throw its typed error with a stable reason; what it returns must
// encode again and decode to the same thing.
import { bytes, CodecError, defineCodec, type Codec, type CodecSpec, type MessageOf } from '../core/codec';
import { ID_BYTES } from '../core/node-id';
import { Vote } from '../agree/vote';
import { MAX_VOTERS, voteSpec } from '../agree/vote-messages';
import type { VoteStats } from '../agree/vote-stats';
import { VoterSet } from '../agree/voter-set';
import { seededRandom } from '../core/seeded-random';
import { itemWireCodec } from '../agree/item-wire';
import { dhtCodec, type DhtMessage } from '../dht/messages';
import { encodeRoute, readRoute } from '../dht/route-frame';
import { FRAME_BYTES, FrameReader, splitMessage, controlFrame } from '../net/frames';
import { coarsen, decodePositions, encodePositions, PositionCodeError, type QPose } from '../region/position-code';
import { frameArb } from './fuzz-frames';
import { FuzzFailure, grewCounters, type FuzzTarget, type FuzzVerdict } from './fuzz-campaign';

const id = (n: number) => new Uint8Array(ID_BYTES).fill(n);

/** One valid DHT message of each type. */
export function validDhtMessages(): DhtMessage[] {
  const rec = { v: new Uint8Array([1, 2, 3]), pub: id(9), seq: 4, ttl: 60_000 };
  return [
    { t: 'PING', r: 1 },
    { t: 'PONG', r: 1 },
    { t: 'FIND_NODE', r: 2, target: id(3) },
    { t: 'NODES', r: 2, nodes: [id(4), id(5)] },
    { t: 'FIND_VALUE', r: 3, ns: 'test', key: id(6) },
    { t: 'VALUE', r: 3, rec, nodes: [id(7)] },
    { t: 'STORE', r: 4, ns: 'test', key: id(8), rec },
    { t: 'STORED', r: 4, ok: true },
    { t: 'SIGNAL', blob: { t: 'rtc', v: 1, cid: '0123456789abcdef', s: { type: 'offer', sdp: 'v=0\r\n' } } },
    { t: 'DATA', body: new Uint8Array([1, 104, 105]) },
    { t: 'CLOSING' },
    // A read-only node's frames (dht/read-only-peers.ts): the same, flagged.
    { t: 'PING', r: 5, ro: 1 },
    { t: 'NODES', r: 5, nodes: [id(4)], ro: 1 },
    { t: 'DATA', body: new Uint8Array([2]), ro: 1 },
  ];
}

function sameJson(a: unknown, b: unknown): boolean {
  const j = (x: unknown) => JSON.stringify(x, (_k, val: unknown) => (val instanceof Uint8Array ? Array.from(val) : val));
  return j(a) === j(b);
}

/** A codec's decode: a message that round-trips, or a CodecError with its reason. */
export function codecTarget<S extends CodecSpec>(name: string, codec: Codec<S>, valid: MessageOf<S>[]): FuzzTarget {
  const codes = new Set<number>();
  const frames = valid.map((m) => codec.encode(m));
  for (const f of frames) codes.add(f[1]! & 0x7f);
  return {
    name,
    frames: frameArb({ valid: frames, codes: [...codes, 0, 99, -1] }),
    feed(frame): FuzzVerdict {
      let msg: MessageOf<S>;
      try {
        msg = codec.decode(frame);
      } catch (e) {
        if (e instanceof CodecError) return { rejected: e.reason };
        throw e;
      }
      let again: Uint8Array;
      try {
        again = codec.encode(msg);
      } catch (e) {
        throw new FuzzFailure(`a decoded ${msg.t} does not encode: ${(e as Error).message}`);
      }
      if (!sameJson(codec.decode(again), msg)) throw new FuzzFailure(`${msg.t} changes when encoded again`);
      return 'accepted';
    },
  };
}

export function dhtCodecTarget(): FuzzTarget {
  return codecTarget('dht codec', dhtCodec, validDhtMessages());
}

/** The vote frames with a claimant id as candidate (pickups). */
export function voteCodecTarget(): FuzzTarget {
  const codec = defineCodec(voteSpec(bytes(ID_BYTES, ID_BYTES), 40));
  const c = id(7);
  return codecTarget('vote codec', codec, [
    { t: 'CLAIM', vote: 'item-1', c },
    { t: 'REPORT', vote: 'item-1', set: 3, round: 1, c },
    { t: 'PROPOSE', vote: 'item-1', set: 3, round: 2, c: null },
    { t: 'DECIDED', vote: 'item-1', set: 3, round: 2, c, proof: 2 ** MAX_VOTERS - 1 },
  ]);
}

/** The items channel's codec (agree/item-wire.ts): vote frames with their region, clock probes, ledger state, drops, positions, handovers. */
export function itemWireCodecTarget(): FuzzTarget {
  const r = { rx: 1, rz: -2 };
  const claim = { t: 'c' as const, who: 'ab12', x: 70.5, y: 71, z: -100.5 };
  const spawn = { t: 's' as const, slot: 3, kind: 'gem' as const, x: 70.5, y: 71, z: -100.5, at: 1.7e12, by: 'cd34' };
  const area = { ax: 1, az: -2, x0: 64, z0: -128, size: 64 };
  const sig = { id: id(6), a: 0 as const, k: new Uint8Array(32).fill(3), s: new Uint8Array(64).fill(4) };
  const held = { id: '1,-2/3', kind: 'star' as const, x: 70.5, y: 71, z: -100.5, at: 1.7e12, owner: 'ab12', gen: 0, proof: { e: 4, vote: 'take:1,-2/3:0', round: 1, sigs: [sig, sig] } };
  const tomb = { ...held, gen: 1, away: '1,-2', proof: { e: 4, vote: 'carry:1,-2/3:1', round: 0, sigs: [sig, sig] } };
  const o = { g: 1, t: 1.7e12, a: 0 as const, k: sig.k, s: sig.s };
  return codecTarget('items codec', itemWireCodec, [
    { t: 'ITEM_CLAIM', ...r, vote: 'take:1,-2/3:0', c: claim },
    { t: 'ITEM_REPORT', ...r, vote: 'spawn:1,-2:3', set: 4, round: 1, c: spawn },
    { t: 'ITEM_PROPOSE', ...r, vote: 'spawn:1,-2:3', set: 4, round: 2, c: null },
    { t: 'ITEM_DECIDED', ...r, vote: 'take:1,-2/3:0', set: 4, round: 2, c: claim, proof: 3 },
    { t: 'TIME_REQ', n: 7 },
    { t: 'TIME_REP', n: 7, now: 1.7e12, err: 1.5 },
    { t: 'ITEM_STATE', ...r, e: 4, state: { area, slot: 4, stars: 1, items: [{ id: '1,-2/3', kind: 'gem', x: 70.5, y: 71, z: -100.5, at: 1.7e12, owner: 'ab12', gen: 0 }] } },
    { t: 'ITEM_DROP', ...r, r: 1, item: '1,-2/3', x: 72.5, y: 71, z: -100.5, o },
    { t: 'ITEM_SEEN', ...r, e: 4, p: [[id(5), 70, 71, -100]] },
    { t: 'ITEM_HANDOVER', ...r, e: 3, votes: [{ vote: 'spawn:1,-2:3', h: { proposal: { round: 2, c: spawn } } }, { vote: 'take:1,-2/3:0', h: { decided: { c: claim, round: 1, proof: 7 } } }] },
    // Signed decisions (agree/decision-proof.ts) and carries (agree/carry-record.ts).
    { t: 'ITEM_PROPOSE', ...r, vote: 'take:1,-2/3:0', set: 4, round: 1, c: claim, sig },
    { t: 'ITEM_DECIDED', ...r, vote: 'take:1,-2/3:0', set: 4, round: 1, c: claim, proof: 3, sigs: [sig, sig] },
    { t: 'ITEM_STATE', ...r, e: 4, state: { area, slot: 4, stars: 1, items: [tomb] } },
    { t: 'ITEM_HELD', ...r, e: 4, item: '1,-2/3', gen: 1, sig },
    { t: 'ITEM_DROPPING', ...r, e: 4, by: 'ab12', rec: { ...held, owner: null, gen: 2, proof: undefined }, from: { rx: 0, rz: -2, rec: tomb }, r: 3, o },
    { t: 'ITEM_KEEP', ...r, e: 5, sigs: [{ item: '1,-2/3', gen: 1, sig }] },
    { t: 'ITEM_CARRY', ...r, r: 2, item: '1,-2/3', to: { rx: 2, rz: -2 }, o },
    { t: 'ITEM_BRING', ...r, r: 3, from: { rx: 0, rz: -2, rec: tomb }, x: 72.5, y: 71, z: -100.5, o },
  ]);
}

/** The ROUTE header reader: a header it takes re-encodes to the very same bytes. */
export function routeFrameTarget(): FuzzTarget {
  const body = dhtCodec.encode({ t: 'PING', r: 5 });
  const valid = [
    encodeRoute({ id: 7, ttl: 20, src: id(1), dst: id(2), trace: [id(3)], via: [], body }),
    encodeRoute({ id: 0xffffffff, ttl: 1, src: id(1), dst: id(2), trace: [], via: [id(4), id(5)], body }),
    encodeRoute({ id: 9, ttl: 64, src: id(1), dst: id(2), trace: [], via: [], body, auth: { alg: 'Ed25519', publicKey: new Uint8Array(32).fill(1), signature: new Uint8Array(64).fill(2) } }),
    encodeRoute({ id: 9, ttl: 3, src: id(1), dst: id(2), trace: [id(6)], via: [], body, auth: { alg: 'ECDSA-P256', publicKey: new Uint8Array(65).fill(1), signature: new Uint8Array(64).fill(2) } }),
  ].map((f) => f.slice());
  return {
    name: 'route frame',
    frames: frameArb({ valid, structured: false }),
    feed(frame): FuzzVerdict {
      let env;
      try {
        env = readRoute(frame);
      } catch (e) {
        if (e instanceof CodecError) return { rejected: e.reason };
        throw e;
      }
      const again = encodeRoute(env);
      if (again.length !== frame.length || again.some((b, i) => b !== frame[i])) throw new FuzzFailure('a ROUTE frame read does not encode to the same bytes');
      return 'accepted';
    },
  };
}

/**
 * The compact positions of POSITIONS frames (region/position-code.ts), read against a
 * receiver holding bases for slots 0..9 and prevs (the position before) for slots 0..5:
 * what it reads codes back (against the same) to bytes that read the same; anything else is
 * a PositionCodeError.
 */
export function positionCodeTarget(): FuzzTarget {
  const bases = new Map<number, QPose>();
  const prevs = new Map<number, QPose>();
  for (let s = 0; s < 10; s++) bases.set(s, { x: 17000 + s * 40, y: 19500, z: 16500 - s, yaw: s * 20, pitch: 127 });
  for (let s = 0; s < 6; s++) prevs.set(s, { ...bases.get(s)!, x: 17000 + s * 40 - 13, z: 16500 - s + 5 });
  const base = (slot: number) => bases.get(slot);
  const prev = (slot: number) => prevs.get(slot);
  const moved = [...bases].map(([slot, q]) => ({ slot, q: { ...q, x: q.x + slot * 3 - 12, yaw: (q.yaw + 7) & 255 } }));
  const stepped = [...prevs.keys()].map((slot) => ({ slot, q: { ...bases.get(slot)!, x: bases.get(slot)!.x + 13 + slot - 3, z: bases.get(slot)!.z - 5 } }));
  const valid = [
    encodePositions(moved, base, prev),
    encodePositions(stepped, base, prev),
    encodePositions([7, 8, 9].map((slot) => ({ slot, q: coarsen({ ...bases.get(slot)!, x: bases.get(slot)!.x + 50, yaw: 3 }, bases.get(slot)) })), base, prev),
    encodePositions([{ slot: 3, q: { x: 1, y: 2, z: 65535, yaw: 255, pitch: 0 } }, { slot: 700, q: { x: 5, y: 6, z: 7, yaw: 8, pitch: 9 } }], base, prev),
    encodePositions([{ slot: 2, q: bases.get(2)! }, { slot: 9, q: { ...bases.get(9)!, x: 30000 } }], base, prev),
  ];
  return {
    name: 'position code',
    frames: frameArb({ valid, structured: false, maxRandom: 256 }),
    feed(frame): FuzzVerdict {
      let entries;
      try {
        entries = decodePositions(frame, base, prev);
      } catch (e) {
        if (e instanceof PositionCodeError) return { rejected: e.message };
        throw e;
      }
      const again = decodePositions(encodePositions(entries, base, prev), base, prev);
      if (!sameJson(again, entries)) throw new FuzzFailure('positions read do not code back to the same positions');
      return 'accepted';
    },
  };
}

/**
 * The link's frame reassembly (net/frames.ts), fed frames of messages cut by splitMessage
 * and mutated. A rejected frame is reported as 'bad' with a reason; reassembly never
 * yields a message above its limit.
 */
export function frameReaderTarget(): FuzzTarget {
  const max = 40 * 1024;
  const reader = new FrameReader(max);
  const big = new Uint8Array(FRAME_BYTES * 2 + 100).fill(3);
  const valid = [...splitMessage(new Uint8Array([1, 2, 3])), ...splitMessage(big), controlFrame({ t: 'bye', reason: 'x' }), ...splitMessage(new Uint8Array(0))];
  return {
    name: 'link frames',
    frames: frameArb({ valid, structured: false, maxRandom: 2048 }),
    feed(frame): FuzzVerdict {
      const ev = reader.push(frame);
      if (ev.kind === 'bad') return { rejected: ev.why.replace(/\d+/g, 'N') };
      if (ev.kind === 'message' && ev.data.length > max) throw new FuzzFailure(`reassembled ${ev.data.length} bytes over the ${max} limit`);
      return 'accepted';
    },
  };
}

/**
 * The vote engine (agree/vote.ts) behind the vote codec: frames decoded as a voter would
 * decode them, from voters and strangers, fed to one vote (a new one every 300 frames). A
 * frame refused by a counter must not move the vote (round, backed candidate, decision),
 * and a decision once made never changes.
 */
export function voteEngineTarget(): FuzzTarget {
  const codec = defineCodec(voteSpec(bytes(ID_BYTES, ID_BYTES), 40));
  const voters = ['h0', 'h1', 'h2', 'h3', 'h4'];
  const set = new VoterSet(3, voters);
  const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  const rand = seededRandom(9);
  let vote!: Vote<Uint8Array>;
  let n = 0;
  const fresh = () => {
    vote = new Vote<Uint8Array>({ id: 'item-1', voters: set, self: 'h0', key: hex, rng: rand, admit: (c) => c[0] !== 0xee });
  };
  fresh();
  const c = id(7);
  const valid = [
    codec.encode({ t: 'CLAIM', vote: 'item-1', c }),
    codec.encode({ t: 'CLAIM', vote: 'item-1', c: id(8) }),
    codec.encode({ t: 'REPORT', vote: 'item-1', set: 3, round: 1, c }),
    codec.encode({ t: 'REPORT', vote: 'item-1', set: 3, round: 1, c: id(8) }),
    codec.encode({ t: 'PROPOSE', vote: 'item-1', set: 3, round: 1, c }),
    codec.encode({ t: 'PROPOSE', vote: 'item-1', set: 3, round: 2, c: null }),
    codec.encode({ t: 'DECIDED', vote: 'item-1', set: 3, round: 1, c, proof: 0b00111 }),
  ];
  // Never ourselves: frames come from proven peers, and the overlay drops our own id as a source.
  const senders = [...voters.slice(1), 'stranger'];
  const refusals = (s: VoteStats) => {
    const { resent: _r, splits: _s, decided: _d, forced: _f, oldRound: _o, ...refused } = s;
    return refused;
  };
  return {
    name: 'vote engine',
    frames: frameArb({ valid, codes: [40, 41, 42, 43, 44, 0] }),
    feed(frame): FuzzVerdict {
      if (++n % 300 === 0) fresh();
      let msg;
      try {
        msg = codec.decode(frame);
      } catch (e) {
        if (e instanceof CodecError) return { rejected: `codec ${e.reason}` };
        throw e;
      }
      const before = refusals({ ...vote.stats });
      const state = JSON.stringify([vote.currentRound, vote.backed && hex(vote.backed), vote.decided && hex(vote.decided.c)]);
      const decided = vote.decided && hex(vote.decided.c);
      vote.receive(senders[n % senders.length]!, msg);
      if (n % 7 === 0) vote.tick();
      const now = vote.decided && hex(vote.decided.c);
      if (decided !== undefined && now !== decided) throw new FuzzFailure(`a decision changed from ${decided} to ${now}`);
      const grew = grewCounters(before, refusals(vote.stats));
      if (grew.length === 0) return 'accepted';
      if (n % 7 !== 0 && JSON.stringify([vote.currentRound, vote.backed && hex(vote.backed), vote.decided && hex(vote.decided.c)]) !== state) {
        throw new FuzzFailure(`a frame refused as ${grew[0]} moved the vote`);
      }
      return { rejected: grew[0]! };
    },
  };
}
