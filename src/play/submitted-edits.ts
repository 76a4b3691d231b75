// A player's edits between submit and the host's answer: each waits for CONFIRM (resolves
// with its stamp), a final REJECT (EditRejectedError) or the timeout (EditTimeoutError), and
// is sent again, under the same request id, to whichever primary the region attaches to
// next (a primary that already ordered it answers with its first stamp: request-log.ts).
// Each host hears this node's player pass (region/player-pass.ts) before its first EDIT.
// Edits leave at a pace under the primary's rate (edit-pacer.ts): a backlog that waited
// through a failover goes to the next primary in order, as fast as it takes them.
import type { Clock } from '../core/clock';
import type { LatencySamples } from '../core/latency-samples';
import { hexToId, idToHex, type NodeId } from '../core/node-id';
import type { PlayerPass } from '../region/player-pass';
import { regionAt, regionName } from '../region/region-key';
import type { Stamp } from '../region/region-state';
import type { PlayerWire } from '../region/region-wire';
import type { SubscriptionMessageOf } from '../region/subscription-messages';
import { EditRejectedError, EditTimeoutError, type ClientStats } from './region-client-types';
import { EditPacer } from './edit-pacer';
import { EDIT_RATE } from '../region/edit-rate';

/** An edit with neither CONFIRM nor REJECT after this long fails with EditTimeoutError. */
export const EDIT_TIMEOUT_MS = 5000;
/**
 * Edits sent to a region's hosts at most this many a second after a burst (edit-pacer.ts):
 * under the primary's rate (region/edit-rate.ts, 20 a second after 20) by a margin of 5
 * edits and 4 a second for edits that reach it closer together than they left; far above
 * a player's clicks, so only a backlog (edits that waited through a failover) or a script
 * ever waits for it.
 */
export const EDIT_PACE = { perSec: EDIT_RATE.perSec - 4, burst: EDIT_RATE.burst - 5 };

interface SubmittedEdit {
  region: string;
  msg: SubscriptionMessageOf<'EDIT'>;
  /** Hex id of the primary it was last sent to, or is held for ('' when it waits for an attach). */
  sentTo: string;
  /** The host it goes to once the pace lets it (edit-pacer.ts), while held. */
  heldFor?: NodeId;
  resolve: (v: Stamp) => void;
  reject: (e: Error) => void;
  timer: unknown;
  /** Clock time of submit (confirm latency). */
  at: number;
  /**
   * The host that said it knows no pass of ours, and was shown it again with the edit: its
   * second such refusal fails the edit. Another host that says so is shown it again too
   * (the safety simulation, location records read by 3 paths: shown again to one primary, the
   * edit moved to the next, which had forgotten the pass as well; its refusal was taken as
   * final while the first primary ordered the re-sent edit).
   */
  passAgainTo?: string;
  /**
   * Sends not answered yet, by host (hex). A refusal is final only when no other send of the
   * edit is unanswered: that send may have been ordered (its answer lost, or the primary
   * died after ordering it, its batch then merged into a later epoch) while the refusing
   * host had not seen it. Safety seeds where a block held an edit its player was told was
   * refused 'unknown-player': 6 (an earlier send to the same host, answered late), 110 (sends
   * to three earlier primaries unanswered, one of them ordered it). At most MAX_HOSTS_OUT
   * hosts (the oldest forgotten).
   */
  out: Map<string, number>;
  /** An answer from `sentTo` that came before we had checked its certificate (held until we attach to it). */
  early?: SubscriptionMessageOf<'CONFIRM'> | SubscriptionMessageOf<'REJECT'>;
}

export interface SubmittedEditsDeps {
  clock: Clock;
  wire: PlayerWire;
  stats: ClientStats;
  /** Submit to CONFIRM. */
  latency: LatencySamples;
  /** This node's player pass (none: the hosts refuse our edits as 'unknown-player'); minting takes a while. */
  pass?: Promise<PlayerPass>;
}

/** Hosts an edit's unanswered sends are counted for (see SubmittedEdit.out). */
const MAX_HOSTS_OUT = 16;

/** Regions whose paced epoch and recent sends are kept (`newDuty`; a player keeps 3 x 3 subscribed). */
const MAX_PACED_REGIONS = 64;
/** A primary's bucket for us refills its burst in this long: only sends to it this recent still count against it. */
const RATE_REFILL_MS = (1000 * EDIT_RATE.burst) / EDIT_RATE.perSec;
/** Sends to a host this recent count against its bucket for us (`newDuty`). */
const SENDS_COUNTED_MS = 2 * RATE_REFILL_MS;
/** Sends kept per region (at the pace, SENDS_COUNTED_MS holds burst + 2 x perSec of them). */
const SENDS_KEPT = 64;

/** Hosts remembered as holding our pass (others hear it again before the next EDIT). */
const MAX_PASS_SHOWN = 256;

/** What a REJECT did: the edit failed for good, or it waits for the region's next primary. */
export type RejectOutcome = 'failed' | 'retry' | 'stale' | 'resent';

export class SubmittedEdits {
  private readonly byRequest = new Map<number, SubmittedEdit>();
  /** Request ids start at random: a reloaded tab (same node id) must not look like a re-send to a primary. */
  private nextReq = (Math.floor(Math.random() * 0x7fffffff) + 1) >>> 0;
  /** Hosts (hex) we showed our pass to. */
  private readonly passShown = new Set<string>();
  /** Our pass once made, and the wait for it (new edits queue behind it: RegionClient.submit). */
  private pass: PlayerPass | undefined;
  passWait: Promise<void> | undefined;
  private readonly pacer: EditPacer;
  /** Per region, the epoch of the primary duty its pace started with last (`newDuty`). */
  private readonly pacedEpoch = new Map<string, number>();
  /** Per region, the EDITs sent in the last SENDS_COUNTED_MS: to whom (hex) and when (`newDuty`). */
  private readonly sends = new Map<string, { to: string; at: number }[]>();

  constructor(private readonly deps: SubmittedEditsDeps) {
    this.pacer = new EditPacer(deps.clock, EDIT_PACE, (r) => {
      const p = this.byRequest.get(r);
      const to = p?.heldFor;
      if (!p || !to) return;
      delete p.heldFor;
      this.sendNow(p, to);
    });
    this.passWait = deps.pass?.then((p) => void (this.pass = p), () => undefined).finally(() => (this.passWait = undefined));
  }

  /** A request id no edit of ours has had. */
  newRequest(): number {
    return this.nextReq++ >>> 0;
  }

  /**
   * An edit of world block (x, y, z); sent at once to `primary` when the region is attached.
   * `req`: its request id when it was submitted before (a kept edit's retry), unless an edit
   * waiting here holds it.
   */
  add(x: number, y: number, z: number, id: number, at: { x: number; y: number; z: number }, primary: NodeId | undefined, req?: number): Promise<Stamp> {
    const { clock, stats } = this.deps;
    const coord = regionAt(x, z);
    const r = req !== undefined && !this.byRequest.has(req) ? req : this.newRequest();
    const msg: SubscriptionMessageOf<'EDIT'> = { t: 'EDIT', rx: coord.rx, rz: coord.rz, r, x, y, z, id, px: at.x, py: at.y, pz: at.z };
    return new Promise<Stamp>((resolve, reject) => {
      const timer = clock.setTimeout(() => {
        this.settle(r, p);
        stats.timeouts++;
        reject(new EditTimeoutError(`edit at ${x},${y},${z} not confirmed within ${EDIT_TIMEOUT_MS} ms`));
      }, EDIT_TIMEOUT_MS);
      const p: SubmittedEdit = { region: regionName(coord), msg, sentTo: '', resolve, reject, timer, at: clock.now(), out: new Map() };
      this.byRequest.set(r, p);
      if (primary) this.send(p, primary);
    });
  }

  /** Sends `p` to `to` now if the pace allows, else holds it for `to` (behind the region's held edits). */
  private send(p: SubmittedEdit, to: NodeId): void {
    if (p.heldFor || !this.pacer.admit(p.region, p.msg.r)) {
      p.heldFor = to;
      p.sentTo = idToHex(to);
      return;
    }
    this.sendNow(p, to);
  }

  private sendNow(p: SubmittedEdit, to: NodeId): void {
    p.sentTo = idToHex(to);
    p.out.set(p.sentTo, (p.out.get(p.sentTo) ?? 0) + 1);
    if (p.out.size > MAX_HOSTS_OUT) p.out.delete(p.out.keys().next().value!);
    delete p.early;
    const pass = this.pass;
    if (pass && !this.passShown.has(p.sentTo)) {
      // Ahead of the EDIT on the same ordered link: the host checks it before judging the edit.
      this.deps.wire.send(to, { t: 'PLAYER', ...pass });
      this.passShown.add(p.sentTo);
      if (this.passShown.size > MAX_PASS_SHOWN) this.passShown.delete(this.passShown.keys().next().value!);
    }
    this.deps.wire.send(to, p.msg);
    this.noteSend(p.region, p.sentTo);
  }

  /** The region detached: its edits wait for the next primary. */
  unsend(region: string): void {
    for (const p of this.byRequest.values()) {
      if (p.region !== region) continue;
      p.sentTo = '';
      delete p.heldFor;
    }
    this.pacer.dropRegion(region);
  }

  /**
   * The region attached to `primaryHex` in epoch `e`, later than any it was paced for before:
   * a new duty at that host, whose rate for us starts full (edit-pacer.ts `restart`). Our pace
   * starts again too, less the edits sent to that host lately (a takeover notice's sender
   * gets them before its snapshot: primary-search.ts): those within SENDS_COUNTED_MS, or
   * those it has not answered, whichever are more. A bucket that refills its burst in
   * RATE_REFILL_MS holds at least its burst less what it took in that long, duty or not; the
   * window is twice that, and sends still unanswered count whenever they went, for sends the
   * host reads late (it charges them as they arrive). Held ones are sent again by `sendTo`, in
   * order. Only a later epoch: a re-attach to the same duty (after silence) finds its bucket
   * spent by what it confirmed.
   */
  newDuty(region: string, primaryHex: string, e: number): void {
    if (e <= (this.pacedEpoch.get(region) ?? -Infinity)) return;
    this.pacedEpoch.delete(region);
    this.pacedEpoch.set(region, e);
    if (this.pacedEpoch.size > MAX_PACED_REGIONS) this.pacedEpoch.delete(this.pacedEpoch.keys().next().value!);
    let unanswered = 0;
    for (const p of this.byRequest.values()) {
      if (p.region !== region) continue;
      if (p.out.has(primaryHex)) unanswered++;
      if (!p.heldFor) continue;
      delete p.heldFor;
      p.sentTo = '';
    }
    const since = this.deps.clock.now() - SENDS_COUNTED_MS;
    this.pacer.restart(region, Math.max(unanswered, (this.sends.get(region) ?? []).filter((x) => x.to === primaryHex && x.at > since).length));
  }

  /** Notes an EDIT of `region` sent to `to` now (`newDuty` counts the last SENDS_COUNTED_MS of them). */
  private noteSend(region: string, to: string): void {
    const now = this.deps.clock.now();
    const log = (this.sends.get(region) ?? []).filter((x) => x.at > now - SENDS_COUNTED_MS).slice(-(SENDS_KEPT - 1));
    log.push({ to, at: now });
    this.sends.delete(region);
    this.sends.set(region, log);
    if (this.sends.size > MAX_PACED_REGIONS) this.sends.delete(this.sends.keys().next().value!);
  }

  /** The region is attached to `primary`: every edit of it not yet sent there goes now. */
  sendTo(region: string, primary: NodeId, primaryHex: string): void {
    for (const p of this.byRequest.values()) if (p.region === region && p.sentTo !== primaryHex) this.send(p, primary);
  }

  /**
   * The region attached to `primaryHex` (its certificate checked): the answers it sent to
   * edits we gave it before that count now.
   */
  attached(region: string, primaryHex: string): void {
    for (const p of [...this.byRequest.values()]) {
      if (p.region !== region || p.sentTo !== primaryHex || !p.early) continue;
      const m = p.early;
      delete p.early;
      if (m.t === 'CONFIRM') this.confirm(primaryHex, m, true, true);
      else this.reject(primaryHex, m, true, true);
    }
  }

  /** Edits that wait for an attach (a REJECT 'not-primary' or 'busy'), sent to the region's primary if `primaryOf` names one. */
  sendWaiting(primaryOf: (region: string) => NodeId | undefined): void {
    for (const p of this.byRequest.values()) {
      if (p.sentTo !== '') continue;
      const to = primaryOf(p.region);
      if (to) this.send(p, to);
    }
  }

  /** Every edit of the region fails with `reason` (no certified primary can be had now). */
  failRegion(region: string, reason: 'uncertified'): void {
    for (const [r, p] of this.byRequest) {
      if (p.region !== region) continue;
      this.settle(r, p);
      this.deps.stats.rejected++;
      p.reject(new EditRejectedError(reason));
    }
  }

  /**
   * A CONFIRM. `certified`: it comes from the primary we are attached to. An edit given to
   * a node that named itself primary (a takeover notice) before its certificate was checked
   * keeps that node's answer until we attach to it (`attached`), else drops it.
   */
  confirm(fromHex: string, m: SubscriptionMessageOf<'CONFIRM'>, certified: boolean, counted = false): void {
    this.pacer.poll();
    const p = this.byRequest.get(m.r);
    if (p && !counted) answered(p, fromHex);
    if (!p || p.sentTo !== fromHex || p.region !== regionName(m)) return void this.deps.stats.stale++;
    if (!certified) return void (p.early = m);
    this.settle(m.r, p);
    this.deps.stats.confirmed++;
    this.deps.latency.add(this.deps.clock.now() - p.at);
    p.resolve({ e: m.e, s: m.s });
  }

  /** A REJECT: 'not-primary' and 'busy' keep the edit for the next primary ('retry'); others fail it. */
  reject(fromHex: string, m: SubscriptionMessageOf<'REJECT'>, certified: boolean, counted = false): RejectOutcome {
    const p = this.byRequest.get(m.r);
    if (p && !counted) answered(p, fromHex);
    if (!p || p.sentTo !== fromHex || p.region !== regionName(m)) {
      this.deps.stats.stale++;
      return 'stale';
    }
    if (m.reason === 'not-primary' || m.reason === 'busy') {
      this.unhold(p);
      p.sentTo = '';
      return 'retry';
    }
    if (m.reason === 'unknown-player' && p.passAgainTo !== fromHex && this.pass) {
      // The host forgot our pass (it restarted, or let it go past its bound): once more with it.
      p.passAgainTo = fromHex;
      this.passShown.delete(fromHex);
      this.send(p, hexToId(fromHex));
      return 'resent';
    }
    // Another send is unanswered (e.g. refused before it had our pass again, the last send's
    // answer is due; or an earlier primary's): this refusal does not say the edit never applies.
    if (p.out.size > 0) {
      this.deps.stats.stale++;
      return 'stale';
    }
    // A final refusal counts only from a primary whose certificate we checked (as a CONFIRM).
    if (!certified) {
      p.early = m;
      return 'stale';
    }
    this.settle(m.r, p);
    this.deps.stats.rejected++;
    p.reject(new EditRejectedError(m.reason));
    return 'failed';
  }

  /** The client closes: every edit fails. */
  closeAll(): void {
    this.pacer.close();
    for (const [r, p] of this.byRequest) {
      this.settle(r, p);
      p.reject(new EditTimeoutError('client closed'));
    }
  }

  private unhold(p: SubmittedEdit): void {
    if (!p.heldFor) return;
    delete p.heldFor;
    this.pacer.drop(p.region, p.msg.r);
  }

  private settle(r: number, p: SubmittedEdit): void {
    this.unhold(p);
    this.byRequest.delete(r);
    this.deps.clock.clearTimeout(p.timer);
  }
}

/** An answer from the host an edit was last sent to (counted once, when it comes). */
function answered(p: SubmittedEdit, fromHex: string): void {
  const n = p.out.get(fromHex);
  if (n === undefined) return;
  if (n > 1) p.out.set(fromHex, n - 1);
  else p.out.delete(fromHex);
}
