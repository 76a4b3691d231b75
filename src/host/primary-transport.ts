// Slow or dead: what tells a backup that its silent primary is a live tab starved of CPU, not
// a dead one. A primary's frames come from its page's main thread: starved or blocked (a busy
// machine, a long task, a synchronous request), it says nothing for a second or two, as a
// crashed one does. Its browser's network thread goes on acknowledging every packet we send
// it (net/transport-watch.ts); a crashed renderer, a killed or frozen process answers nothing.
// So once the primary's silence comes within TRANSPORT_LEAD_MS of its limit, the backup
// probes it over our direct link and reads the link's counters: something heard from it after
// its last frame, within the last TRANSPORT_ALIVE_MS, means alive but slow, and its silence
// is allowed slowPrimaryMaxMs, never more (a tab alive at the transport whose page never
// speaks again is taken over all the same). So is the wait for the first answer
// (TRANSPORT_ANSWER_MS from the watch's start, which ends before the limit when our watch
// ran on time): else a busy backup's claim raced the acknowledgement on its way.
// Proven deaf (a probe sent after the primary's last frame, unanswered for
// TRANSPORT_DEAF_MS by readings our own tab took on time: transport-watch.ts `unanswered`),
// the primary is dead at failoverMs, whatever its recent pace: a page slow lately whose
// renderer then crashed was otherwise waited for up to slowPrimaryMaxMs. So the watch of a
// primary beating normally begins TRANSPORT_LEAD_MS before failoverMs, not before its pace's
// limit. Neither heard nor proven deaf (no probe answered lately, or our readings late: our
// own tab starved, its counters perhaps behind what came in) is judged as without the watch
// (the pace of primary-pace.ts, a closed link at once). No direct link, a peer that reads no
// probes, a runtime whose counters count data only (node-datachannel: its links say they
// cannot be watched), or the simulations: no probe, nothing heard, nothing proven, nothing
// changes. Pure but for the probe it is handed; times in ms.
import type { TransportProbe } from '../net/transport-watch';

/** The watch begins this long before the primary's silence reaches its limit (the first acknowledgement takes up to the 200 ms delayed ack). */
export const TRANSPORT_LEAD_MS = 450;
/** Something heard at the transport this recently (after the primary's last frame) means it is alive: probes go every 250 ms, each acknowledged within 200 ms, the counters read every 125 ms. */
export const TRANSPORT_ALIVE_MS = 400;
/** The first answer is awaited this long from the watch's start (the 200 ms delayed ack, a round trip, a reading every 125 ms). */
export const TRANSPORT_ANSWER_MS = 300;

export class PrimaryTransport {
  /** The silence (when it began) we watch the primary's transport for, and when the watch began. */
  private watched = { from: NaN, at: -Infinity };

  /** `probe`: our link to the primary (hex), watched at the transport, if it can be. */
  constructor(private readonly probe: (hex: string) => TransportProbe | undefined) {}

  /**
   * Called at each of the backup's watches: `silentFrom` when we last heard the primary,
   * `limit` the silence from which a deaf link is death (backup-machine.ts `watchLimit`).
   * Within TRANSPORT_LEAD_MS of it, the link is watched a while longer.
   */
  watch(now: number, hex: string, silentFrom: number, limit: number): void {
    if (now - silentFrom < limit - TRANSPORT_LEAD_MS || !this.probe(hex)?.watchTransport(now + TRANSPORT_ALIVE_MS)) return;
    if (this.watched.from !== silentFrom) this.watched = { from: silentFrom, at: now };
  }

  /**
   * Whether the primary (hex), silent since `silentFrom`, was heard at the transport after
   * that and lately, or the first answer of this silence's watch is still due.
   */
  alive(now: number, hex: string, silentFrom: number): boolean {
    if (this.watched.from === silentFrom && now - this.watched.at < TRANSPORT_ANSWER_MS) return true;
    const at = this.probe(hex)?.transportHeardAt();
    return at !== undefined && at > silentFrom && now - at <= TRANSPORT_ALIVE_MS;
  }

  /** Whether the primary (hex), silent since `silentFrom`, left a probe sent after that unanswered (net/transport-watch.ts `unanswered`; anything heard since clears it). */
  deaf(hex: string, silentFrom: number): boolean {
    const u = this.probe(hex)?.transportUnanswered();
    return u !== undefined && u.probedAt > silentFrom;
  }
}
