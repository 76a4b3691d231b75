// The thesis's timer request / timer reply (messages 14 and 15) between a peer and one of
// its region's hosts: the peer asks, the host answers with its world clock's reading, and
// the round trip feeds the OffsetEstimator. A reply must answer a request still open
// (nonce), so a replayed or unasked-for reply changes nothing and is counted.
import * as v from 'valibot';
import { u32, type CodecSpec } from '../core/codec';
import { OffsetEstimator } from './offset-estimator';

/** Requests awaiting a reply; the oldest is forgotten past this. */
export const MAX_OPEN_REQUESTS = 8;

/**
 * TIME_REP's `err`: the answering clock's own error bound against its reference (0 or
 * absent: it is the reference). `busy`: the answering node draws frames, so a request
 * often waits behind a frame before it is read: its readings are late by up to a frame
 * and the middle of a round trip overstates them (world-clock.ts avoids following it).
 */
export type ClockMessage = { t: 'TIME_REQ'; n: number } | { t: 'TIME_REP'; n: number; now: number; err?: number | undefined; busy?: boolean | undefined };

/**
 * A world-clock reading on the wire (world-clock.ts; TIME_REP, an item's spawn time, an owner's
 * signed request): ms, finite, and within 1e15 of 1970 either way (some 30,000 years), so a
 * hostile value is neither NaN nor infinite nor so large that adding an offset loses the ms.
 * Not held to whole ms: a reading is a local clock plus an estimated offset.
 */
export const worldTime = v.pipe(v.number(), v.finite(), v.minValue(-1e15), v.maxValue(1e15));

/** Both frames as codec entries from `firstCode` on. */
export function clockSpec(firstCode: number) {
  return {
    TIME_REQ: [firstCode, v.object({ n: u32 })],
    TIME_REP: [firstCode + 1, v.object({ n: u32, now: worldTime, err: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(60_000))), busy: v.optional(v.boolean()) })],
  } as const satisfies CodecSpec;
}

/** The host's side: answer with the clock the world runs on. */
export function answerTime(req: { n: number }, worldNow: number, err?: number, busy?: boolean): ClockMessage {
  return { t: 'TIME_REP', n: req.n, now: worldNow, ...(err ? { err } : {}), ...(busy ? { busy } : {}) };
}

/** A peer's side towards one reference: requests out, replies in, the estimate kept. */
export class ClockProbe {
  readonly stats = { requests: 0, replies: 0, unasked: 0 };
  private next: number;
  private readonly open = new Map<number, number>(); // nonce -> local send time

  /** `firstNonce`: two clocks of one node probing one reference (a tab's host and player clocks) number their requests apart. */
  constructor(readonly estimator = new OffsetEstimator(), firstNonce = 1) {
    this.next = firstNonce >>> 0 || 1;
  }

  request(localNow: number): ClockMessage {
    const n = this.next;
    this.next = (this.next + 1) >>> 0 || 1;
    this.open.set(n, localNow);
    if (this.open.size > MAX_OPEN_REQUESTS) this.open.delete(this.open.keys().next().value!);
    this.stats.requests++;
    return { t: 'TIME_REQ', n };
  }

  /** Takes a reply; false (counted) when it answers no open request. */
  reply(msg: { n: number; now: number }, localNow: number): boolean {
    const t0 = this.open.get(msg.n);
    if (t0 === undefined) {
      this.stats.unasked++;
      return false;
    }
    this.open.delete(msg.n);
    this.stats.replies++;
    this.estimator.add({ t0, t1: localNow, remote: msg.now });
    return true;
  }
}
