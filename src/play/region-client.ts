// The player's side of hosting: subscriptions to regions (locate the primary, SUBSCRIBE,
// SNAPSHOT then DELTAs, re-attach by itself when the primary goes quiet or redirects:
// primary-search.ts finds it),
// edits (resolve on CONFIRM; typed errors on REJECT or timeout), MOVE and PLAYERS.
//
// Only the primary we are attached to, in the epoch we are attached at, can change a
// subscription; everything else is counted and dropped. Entries merge per block by
// stamp, so a duplicate or re-sent entry changes nothing.
import { RelayCheck } from './relay-proofs';
import type { RelayProofs } from '../region/entry-proofs';
import type { Pose } from '../world/pose';
import { every } from '../core/clock';
import { answering } from '../core/answering';
import { Emitter } from '../core/emitter';
import { guardKeys, type KeyGuard } from '../core/key-ids';
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { LatencySamples, type LatencySummary } from '../core/latency-samples';
import { succeeds } from '../region/epoch-cert';
import type { HostToPlayer, SubscriptionMessageOf } from '../region/subscription-messages';
import { regionAt, regionName, RegionKeys, type RegionCoord } from '../region/region-key';
import { getEdits } from '../region/region-records';
import { closedOnPurpose } from '../net/close-reasons';
import { compareStamp, RegionState, tryDecodeWithinRules, ZERO, type Entry, type Stamp } from '../region/region-state';
import { DeltaOrder } from './delta-order';
import { SubmittedEdits } from './submitted-edits';
import { PendingView, type TakenBack } from './pending-view';
import { PositionStreams } from '../region/position-streams';
import { PrimarySearch } from './primary-search';
import { EditRejectedError, type ClientEvents, type ClientStats, type RegionClientArgs, type Subscription } from './region-client-types';
import { REBASE_SILENCE_MS } from '../region/host-set-rules';
import { LOOK_RULES, type PlayerLook } from '../region/player-look';

/** Whose pins the links to our primaries are (dht/link-pins.ts): a host's sweep of its own pins leaves them alone. */
const PIN_OWNER = 'play';
/**
 * A backup that served us a crowd's share and sent nothing of the region for this long serves
 * us no more (it stops at FEED_MS, 1 s, without its primary's feed: host/fan-out-share.ts;
 * its beats come every 100 ms while it serves): our pin on it goes.
 */
export const SERVED_MS = 2000;

/** No heartbeat or delta from the primary for this long: re-attach. */
export const SILENCE_MS = 1200;
/**
 * For this long after it last heard its primary, a subscriber takes a later certificate
 * only as a link of its own chain, never by nearness (checkSnapshot, docs/TRUST.md rule 7):
 * the hosts' `rebaseMs`, the least time a set's majority is silent before anyone may rebase
 * over it. Every other successor needs grants of a majority of the set it follows, which it
 * walks to through the links a SNAPSHOT carries.
 */
export const OWN_CHAIN_MS = REBASE_SILENCE_MS;
/** Attached subscriptions re-send SUBSCRIBE this often (keepalive and gap repair). */
export const KEEPALIVE_MS = 5000;
/** Subscription watchdog period. */
const WATCH_MS = 250;
/** After a node said no certified primary can be had (it is alone), ask again this much later. */
const ALONE_RETRY_MS = 3000;
/** A primary whose link to us a budget let go and that does not answer a routed ping this soon is dialled again (we stay attached). */
const LINK_CLOSE_PING_MS = 300;
/** A pending edit (PENDING, not yet committed) nothing commits within this is taken back (pending-view.ts). */
const PENDING_TTL_MS = 5000;

// The events, counters, errors and arguments live in region-client-types.ts; they
// are part of this module's face.
export * from './region-client-types';

export class RegionClient {
  readonly events = new Emitter<ClientEvents>();
  readonly stats: ClientStats = { attaches: 0, reattaches: 0, reattachWhy: { silence: 0, linkClosed: 0, takeover: 0, redirect: 0, reject: 0 }, redirects: 0, snapshots: 0, deltas: 0, gaps: 0, gapWhy: { delta: 0, beat: 0, overflow: 0 }, stale: 0, confirmed: 0, rejected: 0, timeouts: 0, failovers: 0, playerUpdates: 0, positionsLost: 0, positionsLostWhy: { gap: 0, overflow: 0, unreadable: 0 }, uncertified: 0, againstRules: 0, relayUnproven: 0, alone: 0, retiredLinks: 0, redials: 0, full: 0, pendingShown: 0, pendingTakenBack: 0, pendingRefused: 0 };
  /** snapshot: attach start to snapshot (chunk snapshot latency); confirm: submit to CONFIRM. */
  readonly latency = { snapshot: new LatencySamples(), confirm: new LatencySamples() };
  /** This world's region keys (the chunk source reads far regions with the same hash). */
  readonly keys: RegionKeys;
  private readonly subs = new Map<string, Subscription>();
  /** Our edits waiting for their host's answer. */
  private readonly edits: SubmittedEdits;
  /** Finds and attaches to each subscription's primary (primary-search.ts). */
  private readonly search: PrimarySearch;
  /** The primary's signatures over what a backup relays us (relay-proofs.ts). */
  readonly relays: RelayCheck;
  private stops: (() => void)[] = [];

  constructor(private readonly args: RegionClientArgs) {
    this.keys = new RegionKeys(args.world, args.keyHash);
    this.relays = new RelayCheck((c, data, sig, via) => args.certs.primarySigned(c, data, sig, via));
    this.edits = new SubmittedEdits({ clock: args.clock, wire: args.wire, stats: this.stats, latency: this.latency.confirm, ...(args.pass ? { pass: args.pass } : {}) });
    this.search = new PrimarySearch({ args, stats: this.stats, edits: this.edits, events: this.events });
    this.stops.push(args.wire.toPlayer.on('frame', ({ from, fromHex, msg }) => this.onFrame(from, fromHex, msg)));
    this.stops.push(every(args.clock, WATCH_MS, () => this.watch()));
    this.stops.push(every(args.clock, KEEPALIVE_MS, () => this.keepalive()));
    if (args.dht.events) this.stops.push(args.dht.events.on('link-close', ({ id, reason }) => this.onLinkClose(id, idToHex(id), reason)));
    this.stops.push(guardKeys(this.keyGuard));
  }

  /** The keys of the hosts of the regions we follow stay remembered, however many minted ids an attacker cycles through the key memory (core/key-ids.ts KEYS_GUARDED). */
  private readonly keyGuard: KeyGuard = { needsKey: (hex) => this.follows(hex) };

  /** Whether `hex` is the primary or a host of a region we subscribe to. */
  private follows(hex: string): boolean {
    for (const s of this.subs.values()) {
      if (s.primaryHex === hex) return true;
      for (const set of [s.hosts, s.cert?.hosts ?? []]) for (const h of set) if (idToHex(h) === hex) return true;
    }
    return false;
  }

  /**
   * Our link to a primary closed: if its tab went away, re-attach now, not after
   * `SILENCE_MS`. A link a budget let go (the primary's: it links to at most 32 nodes, and a
   * crowd subscribes by the hundred) is no death: the node was alive when it let go, and if
   * it dies later its beats' silence says so (`SILENCE_MS`). We stay attached. Our frames to
   * it now take routes, which may pass through a node that died silently: a ping by another
   * route that gets no answer within `LINK_CLOSE_PING_MS` dials the primary again instead.
   * (Re-attaching on each such close made players of a crowd re-attach ~100 times a minute;
   * re-attaching on an unanswered ping still made the crowd of 200 re-attach ~12 times a
   * second with nobody gone, each then served by the primary itself for 3 s.)
   */
  private onLinkClose(id: NodeId, hex: string, reason: string): void {
    const subs = [...this.subs.values()].filter((sub) => sub.attached && sub.primaryHex === hex);
    if (subs.length === 0) return;
    if (!closedOnPurpose(reason)) {
      for (const sub of subs) {
        sub.lastHeard = -Infinity;
        void this.search.attach(sub, 'linkClosed');
      }
      return;
    }
    this.stats.retiredLinks++;
    if (!this.args.dht.ping) return;
    const ping = this.args.dht.ping.bind(this.args.dht);
    void answering(this.args.clock, ping, [id], LINK_CLOSE_PING_MS).then((alive) => {
      if (alive.has(hex) || !subs.some((sub) => sub.attached && sub.primaryHex === hex)) return;
      this.stats.redials++;
      this.args.dht.connect(id, PIN_OWNER).catch(() => {});
    });
  }

  close(): void {
    for (const s of this.stops) s();
    this.stops = [];
    for (const sub of [...this.subs.values()]) this.unsubscribe(sub.coord);
    this.edits.closeAll();
  }

  // ---- subscriptions ---------------------------------------------------------------

  /**
   * Subscribes (idempotent); resolves when the first snapshot arrived. With no certificate of
   * the region yet, its location record's read is the lookup the first one is judged by
   * (region-records.ts `getLocation`, Dht.get `live`): no other is started for it.
   */
  subscribe(coord: RegionCoord): Promise<void> {
    const name = regionName(coord);
    let sub = this.subs.get(name);
    if (!sub) {
      let markReady = () => {};
      const ready = new Promise<void>((resolve) => (markReady = resolve));
      sub = {
        coord: { rx: coord.rx, rz: coord.rz }, name, key: this.keys.key(coord), state: new RegionState(), epoch: 0, primary: undefined, primaryHex: '', hosts: [],
        since: ZERO, attached: false, attaching: false, target: '', hint: undefined, lastHeard: this.args.clock.now(), ready, markReady, wake: () => {},
        positions: new PositionStreams(coord, idToHex(this.args.dht.selfId), this.stats.positionsLostWhy), deltas: new DeltaOrder(), pending: new PendingView(PENDING_TTL_MS), closed: false, attachStarted: this.args.clock.now(), cert: undefined, aloneUntil: -Infinity,
      };
      this.subs.set(name, sub);
      void this.search.attach(sub);
    }
    return sub.ready;
  }

  unsubscribe(coord: RegionCoord): void {
    const sub = this.subs.get(regionName(coord));
    if (!sub) return;
    sub.closed = true;
    sub.wake();
    // What we showed pending and nobody will commit to us now goes back to the state.
    this.emitPending(sub, [], sub.pending.clear(sub.state));
    this.subs.delete(sub.name);
    if (sub.primary) {
      this.args.wire.send(sub.primary, { t: 'UNSUBSCRIBE', rx: coord.rx, rz: coord.rz });
      this.unpinIfUnused(sub.primary);
    }
    if (sub.servedBy) this.unpinIfUnused(sub.servedBy);
  }

  /**
   * A region's published edit log (the DHT), for a region shown without a subscription.
   * Believed only under a certificate this reader anchors itself, as one it would attach
   * under (cert-anchor.ts: its hosts granted it and are among the nodes nearest the key in
   * our own view, or it follows the certificate we hold): the DHT's rule lets a holder
   * *learn* any validly signed certificate, and two keys of one attacker sign one. Undefined
   * when no part is believed: the player sees the generated terrain, not a forged log.
   */
  async farEdits(coord: RegionCoord): Promise<Entry[] | undefined> {
    const key = await this.keys.key(coord);
    const known = this.subs.get(regionName(coord))?.cert;
    const rv = { certs: this.args.certs, verify: this.args.verify, hash: this.keys.hash };
    return getEdits(this.args.dht, key, rv, this.keys.hash, undefined, { fresh: 'near', known });
  }

  subscribed(): RegionCoord[] {
    return [...this.subs.values()].map((s) => s.coord);
  }

  /** The region's entries as this client knows them (undefined when not subscribed). */
  state(coord: RegionCoord): RegionState | undefined {
    return this.subs.get(regionName(coord))?.state;
  }

  /** The region's pending entries (ordered, not committed yet), or the one of block `key`. */
  pendingEntries(coord: RegionCoord): Entry[] {
    return this.subs.get(regionName(coord))?.pending.entries() ?? [];
  }

  pendingAt(coord: RegionCoord, key: number): Entry | undefined {
    return this.subs.get(regionName(coord))?.pending.at(key);
  }

  isReady(coord: RegionCoord): boolean {
    const s = this.subs.get(regionName(coord));
    return !!s && s.epoch > 0;
  }

  /** Primary and epoch of an attached subscription. */
  attachment(coord: RegionCoord): { primary: string; epoch: number } | undefined {
    const s = this.subs.get(regionName(coord));
    return s?.attached ? { primary: s.primaryHex, epoch: s.epoch } : undefined;
  }

  /** The certified host set of an attached subscription, in certificate order (the region's item voters: play/player-items.ts). */
  hostSet(coord: RegionCoord): { epoch: number; hosts: NodeId[]; primary: NodeId; prev?: { epoch: number; hosts: NodeId[] } } | undefined {
    const s = this.subs.get(regionName(coord));
    if (!(s?.attached && s.cert && s.primary && s.cert.e === s.epoch)) return undefined;
    // The previous set, as the certificate names it (signed with its terms): decisions it signed still count.
    return { epoch: s.epoch, hosts: s.cert.hosts, primary: s.primary, ...(s.cert.prev ? { prev: { epoch: s.cert.prev.e, hosts: s.cert.prev.hosts } } : {}) };
  }

  /** Unpins `id` unless a subscription (but `except`) is attached to it or served by it. */
  private unpinIfUnused(id: NodeId, except?: Subscription): void {
    for (const s of this.subs.values()) if (s !== except && ((s.primary && idEquals(s.primary, id)) || (s.servedBy && idEquals(s.servedBy, id)))) return;
    this.args.dht.unpin(id, PIN_OWNER);
  }

  /** The backup that served us a share of the region's fan-out is silent (SERVED_MS): its pin goes, unless it serves us another region. */
  private servedNoMore(sub: Subscription): void {
    const was = sub.servedBy!;
    sub.servedBy = undefined;
    sub.servedAt = undefined;
    this.unpinIfUnused(was);
  }

  /** Chunk snapshot latency (attach start to snapshot) over the last attaches, ms. */
  snapshotLatency(): LatencySummary {
    return this.latency.snapshot.summary();
  }

  private watch(): void {
    const now = this.args.clock.now();
    for (const sub of this.subs.values()) {
      if (sub.pending.size > 0) this.emitPending(sub, [], sub.pending.expire(now, sub.state));
      if (sub.servedBy && now - (sub.servedAt ?? -Infinity) > SERVED_MS) this.servedNoMore(sub);
      if (sub.attaching) continue;
      if (!sub.attached || now - sub.lastHeard > SILENCE_MS) void this.search.attach(sub, 'silence');
      else if (sub.deltas.due(now)) this.resubscribe(sub, true);
    }
    this.edits.sendWaiting((region) => {
      const sub = this.subs.get(region);
      return sub?.attached ? sub.primary : undefined;
    });
  }

  private keepalive(): void {
    for (const sub of this.subs.values()) if (sub.attached && sub.primary) this.resubscribe(sub);
  }

  /** `missed`: a gap in the deltas that did not fill (the primary sends what we miss, and serves us itself a while: host/fan-out-plan.ts). */
  private resubscribe(sub: Subscription, missed = false): void {
    if (missed) {
      this.stats.gaps++;
      this.stats.gapWhy[sub.deltas.cause]++;
    }
    if (!sub.primary) return;
    // We hold its certificate of the epoch we follow: its answer may leave it out.
    const c = sub.attached && sub.cert?.e === sub.epoch && sub.since.e === sub.epoch;
    this.args.wire.send(sub.primary, { t: 'SUBSCRIBE', rx: sub.coord.rx, rz: sub.coord.rz, host: false, since: sub.since, ...(missed ? { missed } : {}), ...(c ? { c } : {}) });
  }

  // ---- edits and movement ------------------------------------------------------------

  /**
   * Sets world block (x, y, z) to id; `at` is where the editor stands. Resolves with the
   * edit's stamp once confirmed. `r`: the request id of an edit submitted before (newRequest),
   * so that a primary that ordered it answers with its stamp instead of ordering it again.
   */
  submit(x: number, y: number, z: number, id: number, at: { x: number; y: number; z: number }, r?: number): Promise<Stamp> {
    if (this.edits.passWait) return this.edits.passWait.then(() => this.submit(x, y, z, id, at, r)); // edits wait for our player pass
    const coord = regionAt(x, z);
    void this.subscribe(coord);
    const sub = this.subs.get(regionName(coord))!;
    if (!sub.attached && this.args.clock.now() < sub.aloneUntil) {
      this.stats.rejected++;
      return Promise.reject(new EditRejectedError('uncertified'));
    }
    // While we subscribe to a node that named itself primary, the edit goes to it now, not
    // a round trip later at its snapshot: its answer counts once the snapshot's certificate
    // is checked (submitted-edits.ts `early`).
    return this.edits.add(x, y, z, id, at, sub.attached ? sub.primary : sub.named, r);
  }

  /** A request id for an edit that may be submitted more than once (a kept edit's retries: play/tentative-edits.ts). */
  newRequest(): number {
    return this.edits.newRequest();
  }

  /**
   * Sends our position to the primary of the region we stand in, with our look (name and
   * colour as our node signed them, region/player-look.ts) when it changed, the primary did,
   * or LOOK_RULES.sendEveryMs went by since it last went; false when not attached there.
   */
  move(pos: Pose, look?: PlayerLook): boolean {
    const coord = regionAt(pos.x, pos.z);
    const here = regionName(coord);
    const msg = { t: 'MOVE' as const, rx: coord.rx, rz: coord.rz, x: pos.x, y: pos.y, z: pos.z, yaw: pos.yaw, pitch: pos.pitch };
    // We walked out of a region: its primary hears where we are now (outside it), once, and
    // stops listing us there (host/primary-duty.ts move).
    const left = this.standingIn !== here ? this.subs.get(this.standingIn) : undefined;
    if (left?.attached && left.primary) this.args.wire.send(left.primary, { ...msg, rx: left.coord.rx, rz: left.coord.rz });
    this.standingIn = here;
    const sub = this.subs.get(here);
    if (!sub?.attached || !sub.primary) return false;
    const now = this.args.clock.now();
    if (look && (look !== this.lookSent.look || sub.primaryHex !== this.lookSent.to || now - this.lookSent.at >= LOOK_RULES.sendEveryMs)) {
      this.lookSent = { look, to: sub.primaryHex, at: now };
      this.args.wire.send(sub.primary, { ...msg, l: look });
    } else {
      this.args.wire.send(sub.primary, msg);
    }
    return true;
  }

  /** Our look as last sent with a MOVE: which, to whom, when. */
  private lookSent: { look: PlayerLook | undefined; to: string; at: number } = { look: undefined, to: '', at: -Infinity };

  /** The region of our last MOVE (region name). */
  private standingIn = '';

  // ---- frames --------------------------------------------------------------------------

  private onFrame(from: NodeId, fromHex: string, m: HostToPlayer): void {
    switch (m.t) {
      case 'SNAPSHOT':
      case 'DELTA':
      case 'PENDING':
      case 'HEARTBEAT':
      case 'NOT_PRIMARY':
      case 'POSITIONS':
        break;
      case 'CONFIRM':
        return this.edits.confirm(fromHex, m, this.attachedTo(m, fromHex));
      case 'REJECT':
        return this.onReject(fromHex, m);
      case 'CHAT':
        return; // play/chat-client.ts's
    }
    const sub = this.subs.get(regionName(m));
    if (!sub) return; // not subscribed
    const fromPrimary = sub.attached && fromHex === sub.primaryHex;
    // In a crowd a backup of the set relays the primary's deltas and beats (host/fan-out-plan.ts).
    const fromHost = fromPrimary || (sub.attached && sub.hosts.some((h) => idToHex(h) === fromHex));
    if (sub.servedBy && fromHost && !fromPrimary && idEquals(sub.servedBy, from)) sub.servedAt = this.args.clock.now();
    switch (m.t) {
      case 'SNAPSHOT':
        if (sub.attaching) this.args.trace?.(sub.name, `client: snapshot from ${fromHex.slice(0, 6)} e${m.e}`);
        // From whom we asked last, or from anyone this attach asked (a primary whose answer came
        // after we stopped waiting for it: primary-search.ts `asked`); its certificate decides.
        if ((fromHex !== sub.target && !fromPrimary && !(sub.attaching && sub.asked?.has(fromHex))) || m.e < sub.epoch) return void this.stats.stale++;
        void this.checkSnapshot(sub, from, fromHex, m);
        return;
      case 'DELTA':
      case 'PENDING':
        // A PENDING passes a DELTA's checks: only the primary we follow (or a host of its set
        // relaying to us in a crowd, with the primary's signatures), in the epoch we follow.
        if (!fromHost || m.e !== sub.epoch) return void this.stats.stale++;
        if (!fromPrimary) return void this.relayed(sub, fromHex, m, m.pf, m.t);
        return m.t === 'DELTA' ? this.onDelta(sub, m) : this.onPending(sub, m);
      case 'HEARTBEAT':
        if (!fromHost || m.e !== sub.epoch) return; // backups get heartbeats too; not ours
        if (m.hosts && fromPrimary) sub.hosts = m.hosts;
        return this.onBeat(sub, m.e, m.s);
      case 'NOT_PRIMARY': {
        if ((m.alone || m.full) && fromHex === sub.target && !sub.attached) return this.onAlone(sub, m.full ? 'full' : 'alone');
        // A takeover notice: a host we were told of names itself primary of a later epoch.
        const takeover = m.primary && idEquals(m.primary, from) && m.e > sub.epoch && sub.hosts.some((h) => idEquals(h, from));
        if (takeover) {
          this.args.trace?.(sub.name, `client: takeover notice from ${fromHex.slice(0, 6)} e${m.e}`);
          this.stats.redirects++;
          sub.hint = from;
          if (sub.attaching) sub.wake();
          else void this.search.attach(sub, 'takeover');
          return;
        }
        if ((!fromPrimary && fromHex !== sub.target) || m.e < sub.epoch) return void this.stats.stale++;
        this.stats.redirects++;
        sub.hint = m.primary && !idEquals(m.primary, from) ? m.primary : undefined;
        if (sub.attaching) sub.wake();
        else void this.search.attach(sub, 'redirect');
        return;
      }
      case 'POSITIONS':
        return this.onPositions(sub, from, fromHex, m);
    }
  }

  /**
   * Positions from our primary or, in a crowd, from the backup of its host set serving our
   * share of the subscribers (host/positions-duty.ts), of the epoch we follow.
   */
  private onPositions(sub: Subscription, from: NodeId, fromHex: string, m: SubscriptionMessageOf<'POSITIONS'>): void {
    const hosts = sub.hosts.map(idToHex);
    if (m.e !== sub.epoch || !(fromHex === sub.primaryHex || hosts.includes(fromHex))) return void this.stats.stale++;
    // A backup serving us a share of a crowd's fan-out: its PENDINGs come over a pinned link,
    // as our primary's do (its end is pinned too: fan-out-share.ts).
    if (sub.attached && fromHex !== sub.primaryHex && (!sub.servedBy || !idEquals(sub.servedBy, from))) {
      const old = sub.servedBy;
      sub.servedBy = from;
      sub.servedAt = this.args.clock.now();
      this.args.dht.connect(from, PIN_OWNER).catch(() => {});
      if (old) this.unpinIfUnused(old);
    }
    // A delta, a pending batch and a beat may ride in the frame (host/player-outbox.ts): read
    // as if they came alone (relayed: with their signatures, `dp` and `pp`).
    const relayed = fromHex !== sub.primaryHex;
    for (const [t, r, pf] of [['DELTA', m.d, m.dp], ['PENDING', m.p, m.pp]] as const) {
      if (!sub.attached || !r) continue;
      const x = { e: m.e, from: r[0], to: r[1], entries: r[2] };
      if (relayed) void this.relayed(sub, fromHex, x, pf, t);
      else if (t === 'DELTA') this.onDelta(sub, x);
      else this.onPending(sub, x);
    }
    if (sub.attached && m.s !== undefined) this.onBeat(sub, m.e, m.s);
    sub.positions.keepOnly([sub.primaryHex, ...hosts]);
    const out = sub.positions.take(fromHex, m, this.args.clock.now());
    if (out.lost) {
      this.stats.positionsLost++;
      this.args.wire.send(from, { t: 'POSITIONS_LOST', ...sub.coord, e: m.e });
    }
    this.stats.playerUpdates += out.players.length;
    this.events.emit('players', { region: sub.coord, players: out.players, gone: out.gone, via: fromHex });
  }

  /**
   * The node asked cannot certify an epoch (it is alone, or cut off): nobody can confirm
   * edits of this region now. Loads stop waiting (the region shows what we have), pending
   * edits fail as 'uncertified' at once (the player keeps them tentative), and we ask again
   * after `ALONE_RETRY_MS`. The same when the primary is `full` (it holds as many subscribers
   * as it takes): we back off rather than look it up again at once.
   */
  private onAlone(sub: Subscription, why: 'alone' | 'full'): void {
    this.stats[why]++;
    sub.aloneUntil = this.args.clock.now() + ALONE_RETRY_MS;
    sub.markReady();
    this.edits.failRegion(sub.name, 'uncertified');
    sub.wake();
  }

  /** A snapshot counts only from a certified primary: its certificate names it, for this epoch, and succeeds the one we hold. */
  private async checkSnapshot(sub: Subscription, from: NodeId, fromHex: string, m: SubscriptionMessageOf<'SNAPSHOT'>): Promise<void> {
    // Without a certificate: the answer to a keepalive that said we hold it, read only from
    // the primary we are attached to, in its epoch (as its DELTAs are).
    const c = m.cert ?? (sub.attached && fromHex === sub.primaryHex && m.e === sub.epoch && sub.cert?.e === m.e ? sub.cert : undefined);
    if (!c) return void this.stats.stale++;
    const same = sub.cert && sub.cert.e === c.e && idEquals(sub.cert.primary, c.primary) && fromHex === sub.primaryHex;
    if (!same) {
      const key = await sub.key;
      // Until OWN_CHAIN_MS after we last heard our primary (a beat or delta of its epoch), a later
      // certificate counts only when a majority of its hosts granted it, directly or through
      // the links the snapshot carries (cert-checker.ts `live`): no honest host may rebase over
      // that set sooner, and every other successor is granted by a majority of it. Before, the
      // window was SILENCE_MS (1.2 s): a subscriber re-attaching during a failover took a
      // certificate that near ids spliced onto its own (docs/TRUST.md (a)).
      const live = !!sub.cert && sub.cert.e === sub.epoch && this.args.clock.now() - sub.lastHeard < OWN_CHAIN_MS;
      if (c.e !== m.e || !idEquals(c.primary, from) || !succeeds(c, sub.cert) || (await this.args.certs.check(key, c, { known: sub.cert, chain: m.chain, live, via: fromHex }))) {
        this.stats.uncertified++;
        this.args.trace?.(sub.name, `client: snapshot of ${fromHex.slice(0, 6)} e${m.e} not certified`);
        return;
      }
    }
    if (sub.closed || m.e < sub.epoch || (!succeeds(c, sub.cert))) return void this.stats.stale++;
    if (m.more) {
      // A piece of a large snapshot: its entries now, the attachment with the last piece.
      const entries = this.decode(m.entries);
      const changed = entries ? sub.state.merge(entries) : [];
      if (changed.length > 0) this.events.emit('edits', { region: sub.coord, entries: changed });
      return;
    }
    sub.cert = c;
    this.onSnapshot(sub, from, fromHex, m);
  }

  private onSnapshot(sub: Subscription, from: NodeId, fromHex: string, m: SubscriptionMessageOf<'SNAPSHOT'>): void {
    const entries = this.decode(m.entries);
    if (!entries) return;
    this.stats.snapshots++;
    const moved = fromHex !== sub.primaryHex || m.e !== sub.epoch || !sub.attached;
    if (moved) {
      sub.deltas.reset();
      if (sub.primary && fromHex !== sub.primaryHex && m.e > sub.epoch) this.stats.failovers++;
      if (sub.attaching) {
        this.latency.snapshot.add(this.args.clock.now() - sub.attachStarted);
      }
    }
    const changed = sub.state.merge(entries);
    if (m.e > sub.since.e || compareStamp(m.v, sub.since) > 0) sub.since = m.v;
    if (sub.primary && fromHex !== sub.primaryHex) this.unpinIfUnused(sub.primary, sub);
    sub.epoch = m.e;
    sub.primary = from;
    sub.primaryHex = fromHex;
    sub.hosts = m.hosts;
    sub.lastHeard = this.args.clock.now();
    if (moved) {
      sub.attached = true;
      // A snapshot from any node this attach asked counts, so the node asked last may answer
      // after it: that answer (a redirect naming the node we attached to) is stale, as any
      // other non-primary's, not a redirect sending us to look again. Taken for one, a crowd's
      // players attached by a claimant's late snapshot let go of it at once, suspected it in
      // their DHT and attached to it again (hosting-crowd-sim.test.ts: a host-set change).
      sub.target = fromHex;
      this.stats.attaches++;
      this.args.dht.connect(from, PIN_OWNER).catch(() => {});
      this.args.trace?.(sub.name, `client: attached to ${fromHex.slice(0, 6)} e${m.e}`);
      this.events.emit('attached', { region: sub.coord, primary: fromHex, epoch: m.e });
      this.edits.newDuty(sub.name, fromHex, m.e);
      this.edits.sendTo(sub.name, from, fromHex);
      this.edits.attached(sub.name, fromHex);
    }
    sub.markReady();
    sub.wake();
    const back = sub.pending.settle(sub.epoch, sub.since, sub.state);
    if (changed.length > 0) this.events.emit('edits', { region: sub.coord, entries: changed });
    this.emitPending(sub, [], back, changed);
  }

  /**
   * A frame's entries, or undefined (counted as stale) when they do not decode. Entries
   * against the world's rules (region-state.ts obeysWorldRules: a block no edit may set,
   * anything at the floor) are left out and counted: a certified primary is one host of the
   * set, and no frame of it may show a player what no edit could make.
   */
  private decode(bytes: Uint8Array): Entry[] | undefined {
    const got = tryDecodeWithinRules(bytes);
    if (!got) return void this.stats.stale++;
    this.stats.againstRules += got.against;
    return got.entries;
  }

  /** A beat of our epoch from a host of the set: alive, committed up to s (a gap in our deltas shows). */
  private onBeat(sub: Subscription, e: number, s: number): void {
    sub.lastHeard = this.args.clock.now();
    if (sub.since.e === e && sub.deltas.beat(s, sub.since.s, sub.lastHeard)) this.resubscribe(sub, true);
  }

  /**
   * A DELTA or PENDING a host of the set relayed (not the primary): taken once the primary's
   * signatures cover it (relay-proofs.ts), if we still follow that epoch; else dropped and
   * counted (`relayUnproven`). On `fromHex`'s derivation budget (the host that relayed it).
   */
  private async relayed(sub: Subscription, fromHex: string, m: Pick<SubscriptionMessageOf<'DELTA'>, 'e' | 'from' | 'to' | 'entries'>, pf: RelayProofs | undefined, t: 'DELTA' | 'PENDING'): Promise<void> {
    const cert = sub.cert;
    if (!(await this.relays.covers(await sub.key, cert, m, pf, fromHex))) return void this.stats.relayUnproven++;
    if (sub.closed || !sub.attached || sub.cert !== cert || m.e !== sub.epoch) return void this.stats.stale++;
    if (t === 'DELTA') this.onDelta(sub, m);
    else this.onPending(sub, m);
  }

  /** Deltas in order of seq; an early one waits for those before it (delta-order.ts). */
  private onDelta(sub: Subscription, m: Pick<SubscriptionMessageOf<'DELTA'>, 'e' | 'from' | 'to' | 'entries'>): void {
    sub.lastHeard = this.args.clock.now();
    const out = sub.deltas.take(m, sub.since.e === m.e ? sub.since.s : 0, sub.lastHeard);
    if (out.resubscribe) this.resubscribe(sub, true);
    const changed: Entry[] = [];
    for (const d of out.apply) {
      const entries = this.decode(d.entries);
      if (!entries) break;
      this.stats.deltas++;
      changed.push(...sub.state.merge(entries));
      sub.since = { e: d.e, s: d.to };
    }
    if (out.apply.length === 0) return;
    // What the commit covers leaves the pending view first, so the blocks drawn now are the
    // newest of state and pending (a later pending edit of a block stays over its commit).
    const back = sub.pending.settle(sub.epoch, sub.since, sub.state);
    if (changed.length > 0) this.events.emit('edits', { region: sub.coord, entries: changed });
    this.emitPending(sub, [], back, changed);
  }

  /**
   * Edits the primary ordered and has not committed (PENDING): drawn now, kept apart from
   * the state until a delta or snapshot covers them (pending-view.ts). Every entry must carry
   * the frame's epoch and a seq in its from..to, as the primary stamps them.
   */
  private onPending(sub: Subscription, m: Pick<SubscriptionMessageOf<'PENDING'>, 'e' | 'from' | 'to' | 'entries'>): void {
    const entries = this.decode(m.entries);
    if (!entries || !sub.attached || m.from > m.to || entries.some((x) => x.e !== m.e || x.s < m.from || x.s > m.to)) return void this.stats.stale++;
    const now = this.args.clock.now();
    sub.lastHeard = now;
    const { shown, refused } = sub.pending.take(entries, sub.since.e === m.e ? sub.since.s : 0, now);
    this.stats.pendingRefused += refused;
    this.emitPending(sub, shown, []);
  }

  /** Tells the chunk source what to draw pending and what to redraw from the state (`drawn`: blocks it was just given from the state). */
  private emitPending(sub: Subscription, shown: Entry[], takenBack: TakenBack[], drawn: readonly Entry[] = []): void {
    const keys = new Set(drawn.map((e) => e.key));
    const back = takenBack.filter((t) => !keys.has(t.key));
    if (shown.length === 0 && back.length === 0) return;
    this.stats.pendingShown += shown.length;
    this.stats.pendingTakenBack += back.length;
    this.events.emit('pending', { region: sub.coord, shown, takenBack: back });
  }


  /** Whether the region of `m` is attached to `fromHex` (its certificate checked). */
  private attachedTo(m: RegionCoord, fromHex: string): boolean {
    const sub = this.subs.get(regionName(m));
    return !!sub?.attached && sub.primaryHex === fromHex;
  }

  /** A REJECT that leaves the edit for the next primary: the one that refused is no primary of ours any more. */
  private onReject(fromHex: string, m: SubscriptionMessageOf<'REJECT'>): void {
    if (this.edits.reject(fromHex, m, this.attachedTo(m, fromHex)) !== 'retry') return;
    const sub = this.subs.get(regionName(m));
    if (sub && sub.primaryHex === fromHex && !sub.attaching) void this.search.attach(sub, 'reject');
  }
}
