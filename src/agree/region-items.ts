// The items of one region at one of its hosts (docs/ITEMS.md "The host wiring"): the
// region's ItemLedger and this host's ItemVotes, whose voters are the region's certified
// host set in certificate order, tagged with its epoch. Driven by host-items.ts (one tick
// every TICK_MS; frames from the items wire), it reads the hosted region as the host layer
// keeps it (role, epoch, certificate, subscribers, players' positions) and never changes it,
// except to write the ledger with the region's stored record (`persist`).
//
// - Votes: a new VoterSet on each epoch change; open votes are handed over (voting-epoch.ts).
// - Spawns: while players stand in the region, each host proposes at random intervals.
// - Claims are checked against where the primary saw the claimant (seen-players.ts), and
//   must come from the claimant itself.
// - Decisions take effect elsewhere only with a majority's signatures (vote-signing.ts); the
//   ledger's signed records travel as ITEM_STATE (joined with `merge`: order-free) to the
//   other hosts and the subscribers, and are stored with the region, so a backup that missed
//   a decision, a new host, a failover and a restart all end with the decided items.
// - Drops and carries: only the primary takes them, each signed by the item's owner
//   (owner-request.ts), and they take effect once a majority of the hosts signed them
//   (replicated-drops.ts, carry-record.ts).
import { idToHex, hexToId, type NodeId } from '../core/node-id';
import type { Random } from '../core/seeded-random';
import type { ItemsRegion } from '../host/items-region';
import { REGION_BLOCKS, regionName } from '../region/region-key';
import type { ProofChecker, ProofSigner } from './decision-proof';
import type { ItemArea } from './item-ledger';
import { ItemLedger, PICKUP_REACH, type ItemLedgerOptions, type ItemCandidate, type LedgerState } from './item-ledger';
import type { OwnerRequestChecker } from './owner-request';
import { ItemVotes, type ItemEffect, type ItemVoteMessage } from './item-votes';
import { decodeLedger, encodeLedger, voteFrame, voteOf, type ItemWireMessage, type ItemWireOf, type RegionVoteFrame } from './item-wire';
import { RecordEndorsement } from './endorse-records';
import { ReplicatedDrops, type Carried, type DropOp } from './replicated-drops';
import { SeenPlayers } from './seen-players';
import { provenRecords, VoteSigning } from './vote-signing';
import type { HostItemStats } from './host-item-stats';
import { KnownSets, restartOf, takeHandover, type Voting } from './voting-epoch';
import type { Handover } from './vote';
import type { VoteStats } from './vote-stats';
import { VoterSet } from './voter-set';

/** The ledger goes to the other hosts at least this often (a lost ITEM_STATE is made good). */
const STATE_EVERY_MS = 5000;
/** And to the primary's subscribers this often (a lost or early one made good; decisions and drops go at once). */
const SUBSCRIBER_STATE_EVERY_MS = 20_000;
/** The primary tells its backups where the players stand this often (while any do). */
const SEEN_EVERY_MS = 500;
/** A position heard in ITEM_SEEN is used this long. */
const SEEN_TTL_MS = 5000;
/** After an epoch change, votes wait this long at most for the old set's handovers. */
const HANDOVER_WAIT_MS = 3000;
/** A host that joins a set with no ledger of its own (new, restarted) votes once another host's state came, or after this long (no host of the region kept one). */
const CATCH_UP_MS = 30_000;
/** A host answers a state behind its own with its own, at most this often per sender (a new host pulls the ledger). */
const ANSWER_STATE_MS = 1000;
/** The area of region (rx, rz): one ledger per region. */
export const areaOf = (r: { rx: number; rz: number }): ItemArea => ({ ax: r.rx, az: r.rz, x0: r.rx * REGION_BLOCKS, z0: r.rz * REGION_BLOCKS, size: REGION_BLOCKS });

export { newHostItemStats, type HostItemStats } from './host-item-stats';

export interface RegionItemsArgs {
  /** The region as this host holds it, read-only but for the items' stored copy (host/items-region.ts). */
  region: ItemsRegion;
  seed: string;
  /** World time (the node's WorldClock). */
  worldNow: () => number;
  /** Local time, for the timers. */
  localNow: () => number;
  rng: Random;
  send: (to: NodeId, msg: ItemWireMessage) => void;
  /** Standing height at a block column (a spawn's y). */
  ground: (x: number, z: number) => number | undefined;
  stats: HostItemStats;
  /** This node's signing of decisions, and the checks of others' (one of each per node: shared counters). */
  signer: ProofSigner;
  checker: ProofChecker;
  /** This node's check of owners' signed drop and carry requests (owner-request.ts). */
  requests: OwnerRequestChecker;
  /** Whether a tombstone from another region is proven by that region's certified hosts (host-items.ts: its DHT location record's). */
  checkCarried: (from: Carried, via?: string) => Promise<boolean>;
  voteStats?: VoteStats;
  ledger?: Partial<ItemLedgerOptions>;
}

export class RegionItems {
  readonly ledger: ItemLedger;
  /** Drops waiting for a majority of the hosts (at the primary). */
  readonly drops: ReplicatedDrops;
  /** The current set vouching for records proven by older sets. */
  readonly endorse: RecordEndorsement;
  private voting: Voting | undefined;
  private readonly self: string;
  private nextSpawnAt = NaN;
  private lastState = -Infinity;
  private changed = false;
  private lastSeenSent = -Infinity;
  private lastSubState = -Infinity;
  private readonly seen: SeenPlayers;
  private readonly signing: VoteSigning;
  /** The voter sets of the epochs this host followed (and each certificate's previous one), by epoch. */
  private readonly sets = new KnownSets();
  private readonly subsTold = new Set<string>();
  private stored = '';
  /**
   * Whether our ledger is the region's: we voted in the set before (continuity), or merged
   * another host's state, or the region is new. A host joining with an empty (or stored,
   * possibly stale) ledger must not vote before: a majority of such hosts would decide the
   * spawn slots again and give two items one id.
   */
  private current = false;
  private joinedAt = NaN;
  private readonly answered = new Map<string, number>();

  constructor(private readonly a: RegionItemsArgs) {
    this.self = a.region.ctx.selfHex;
    this.ledger = new ItemLedger(a.seed, areaOf(a.region.coord), a.ledger);
    const kept = a.region.storedItems && decodeLedger(a.region.storedItems);
    if (kept) this.ledger.merge(kept);
    a.region.itemState = () => encodeLedger(a.region.coord, a.region.epoch, this.ledger.toState());
    this.seen = new SeenPlayers(SEEN_TTL_MS, a.localNow);
    const area = areaOf(a.region.coord);
    this.signing = new VoteSigning({ area, ledger: this.ledger, signer: a.signer, checker: a.checker, stats: a.stats });
    const shown = () => {
      this.changed = true;
      this.shareState(this.a.localNow(), true);
    };
    const votingSet = () => (this.voting && this.current && this.voting.set.tag === this.a.region.epoch ? this.voting.set : undefined);
    this.endorse = new RecordEndorsement({
      area, ledger: this.ledger, signer: a.signer, checker: a.checker, selfHex: this.self, set: votingSet,
      send: (to, m) => this.a.send(to, m), applied: shown,
    });
    this.drops = new ReplicatedDrops({
      seed: a.seed, area, ledger: this.ledger, ...(a.ledger ? { ledgerOptions: a.ledger } : {}),
      set: votingSet, selfHex: this.self,
      signer: a.signer, checker: a.checker,
      send: (to, m) => this.a.send(to, m), worldNow: a.worldNow, localNow: a.localNow,
      applied: (by) => {
        shown();
        this.a.send(hexToId(by), this.stateFrame()); // the asker, subscribed or not
      },
      checkSource: a.checkCarried, requests: a.requests,
    });
  }

  get votes(): ItemVotes | undefined {
    return this.voting?.votes;
  }

  get regionFields(): { rx: number; rz: number } {
    return { rx: this.a.region.coord.rx, rz: this.a.region.coord.rz };
  }

  stop(): void {
    this.a.region.itemState = undefined;
    this.a.region.storedItems = encodeLedger(this.regionFields, this.a.region.epoch, this.ledger.toState());
  }

  /** Every tick: follow the region's host set, run the votes and the spawn timer, pass the ledger on. */
  tick(): void {
    const now = this.a.localNow();
    this.follow(now);
    const v = this.voting;
    if (!v || v.set.tag !== this.a.region.epoch) return;
    if (!this.current) {
      if (now - this.joinedAt < CATCH_UP_MS) {
        // Catching up: our (empty or stale) state to the others, who answer with theirs.
        if (now - this.lastState >= ANSWER_STATE_MS) this.shareState(now);
        return;
      }
      this.current = true;
    }
    if (this.a.region.duty) this.drops.tick();
    void this.endorse.tick();
    // Frames held for the old set's handovers are taken once the restart is known (or the wait is over).
    if (v.prev && now - v.since <= 2 * HANDOVER_WAIT_MS) this.apply(v.votes.caughtUp());
    this.apply(v.votes.tick());
    const players = this.players();
    if (players.length === 0 || !this.ledger.wantsSpawn()) this.nextSpawnAt = NaN;
    else if (Number.isNaN(this.nextSpawnAt)) this.nextSpawnAt = now + this.ledger.nextSpawnIn(this.a.rng);
    else if (now >= this.nextSpawnAt && this.open(v, this.ledger.spawnVoteId)) {
      this.nextSpawnAt = NaN;
      this.apply(v.votes.proposeSpawn(this.a.ground, (x, z) => players.some(([, q]) => Math.hypot(q.x - x, q.z - z) <= 2 * PICKUP_REACH))); // away from players: item-ledger.ts `propose`
    }
    const duty = this.a.region.duty;
    if (duty) {
      if (players.length && now - this.lastSeenSent >= SEEN_EVERY_MS) {
        this.lastSeenSent = now;
        const p = players.slice(0, 64).map(([h, q]): [NodeId, number, number, number] => [hexToId(h), q.x, q.y, q.z]);
        for (const b of duty.backups()) this.a.send(b, { t: 'ITEM_SEEN', ...this.regionFields, e: this.a.region.epoch, p });
      }
      if (now - this.lastSubState >= SUBSCRIBER_STATE_EVERY_MS) {
        this.lastSubState = now;
        this.subsTold.clear();
      }
      for (const [hex, s] of duty.subscribers) {
        if (this.subsTold.has(hex)) continue;
        this.subsTold.add(hex);
        this.a.send(s.id, this.stateFrame());
      }
      for (const hex of this.subsTold) if (!duty.subscribers.has(hex)) this.subsTold.delete(hex);
    } else this.subsTold.clear();
    if (this.changed || now - this.lastState >= STATE_EVERY_MS) this.shareState(now);
  }

  /** A frame about this region from the items wire. */
  receive(from: NodeId, fromHex: string, m: ItemWireMessage): void {
    switch (m.t) {
      case 'ITEM_CLAIM':
      case 'ITEM_REPORT':
      case 'ITEM_PROPOSE':
      case 'ITEM_DECIDED':
        return this.onVote(fromHex, m);
      case 'ITEM_STATE':
        if (!this.isHost(fromHex)) return void this.a.stats.notFromHost++;
        return void this.join(from, fromHex, m);
      case 'ITEM_SEEN': {
        const r = this.a.region;
        if (r.duty || fromHex !== r.primaryHex || m.e !== r.epoch) return void this.a.stats.notFromHost++;
        return this.seen.heard(m.p);
      }
      case 'ITEM_DROP':
      case 'ITEM_CARRY':
        // Takes effect once a majority of the hosts signed it (replicated-drops.ts); refused: the dropper sees it still holds it.
        // The owner's signature decides who asks, not the link (owner-request.ts): `by` is the sender, whose key must have signed it.
        return this.ask(from, m.t === 'ITEM_DROP' ? { kind: 'drop', item: m.item, by: fromHex, p: m, req: { r: m.r, o: m.o } } : { kind: 'carry', item: m.item, by: fromHex, to: regionName(m.to), req: { r: m.r, o: m.o } });
      case 'ITEM_BRING':
        // An item carried in: only with its tombstone proven by its region's certified hosts (carry-record.ts).
        if (m.from.rec.owner !== fromHex) return this.ask(from, undefined);
        return void this.a.checkCarried(m.from, fromHex).then((ok) => this.ask(from, ok ? { kind: 'arrive', by: fromHex, p: { x: m.x, y: m.y, z: m.z }, from: m.from, req: { r: m.r, o: m.o } } : undefined));
      case 'ITEM_DROPPING':
        if (this.a.region.duty || fromHex !== this.a.region.primaryHex || !this.current) return void this.a.stats.notFromHost++;
        return void this.drops.sign(from, m);
      case 'ITEM_KEEP':
        return void this.endorse.receive(fromHex, m);
      case 'ITEM_HELD':
        if (!this.a.region.duty || m.e !== this.a.region.epoch || !this.isHost(fromHex)) return void this.a.stats.notFromHost++;
        return this.drops.held(fromHex, m.item, m.gen, m.sig);
      default:
        return void this.a.stats.stray++;
    }
  }

  /** The owner's request to the primary; refused (or not the primary): counted, and the asker gets our state (it still holds the item). */
  private ask(from: NodeId, op: DropOp | undefined): void {
    const refused = () => {
      this.a.stats.dropRefused++;
      this.a.send(from, this.stateFrame());
    };
    if (!op || !this.a.region.duty) return refused();
    void this.drops.request(op).then((ok) => ok || refused());
  }

  /** An old voter's handovers of the votes it had open (ITEM_HANDOVER, host-items.ts). */
  onHandover(fromHex: string, e: number, hs: { vote: string; h: Handover<ItemCandidate> }[]): void {
    const v = this.voting;
    if (!takeHandover(v, fromHex, e, hs)) return void this.a.stats.notFromHost++;
    this.apply(v!.votes.caughtUp());
  }

  private onVote(fromHex: string, m: RegionVoteFrame): void {
    const v = this.voting;
    if (!v || !this.current) return void this.a.stats.notVoting++;
    if (m.t === 'ITEM_CLAIM' && m.c.t === 'c' && m.c.who !== fromHex) return void this.a.stats.impersonation++;
    const msg = voteOf(m);
    if (msg.t === 'PROPOSE') this.signing.book.heard(v.set.tag, fromHex, msg);
    if (msg.t !== 'DECIDED' || msg.set !== v.set.tag || v.set.indexOf(fromHex) === undefined || !v.votes.deciding(msg.vote)) return this.apply(v.votes.receive(fromHex, msg));
    // A decision of a vote open here, taken from another voter: only with its signatures
    // (vote-signing.ts). Of a vote decided here, past or not yet open, the engine counts it,
    // and it changes nothing (ItemVotes holds no DECIDED for later).
    void this.signing.checkDecided(v.set, msg, fromHex).then((ok) => {
      if (ok && this.voting === v) this.apply(v.votes.receive(fromHex, msg));
      else if (!ok) v.votes.stats.forgedDecision++;
    });
  }

  /** The voter set of epoch `e`, if this host knows it (proofs name their epoch). */
  setOf(e: number): VoterSet | undefined {
    return this.sets.get(e);
  }

  /** The region's host set as this host follows it now: a new voter set on an epoch change (its open votes handed over). */
  private follow(now: number): void {
    const r = this.a.region;
    const cert = r.cert;
    // Voters only from a certificate this host anchored: one it merely learnt (rule 3 of
    // docs/TRUST.md: any validly signed one, when it held none) may be an attacker's, naming
    // us beside two keys of its own, which would then be a majority of our voter set and
    // prove any decision to us (learnt-voters.test.ts).
    const learnt = !!r.el.learnt;
    const hosting = (r.role === 'primary' || r.role === 'backup') && !!cert && !learnt && cert.e === r.epoch && cert.hosts.some((h) => idToHex(h) === this.self);
    const old = this.voting;
    if (!hosting || !cert) {
      // Between epochs: the votes wait to be handed to the next set. So while we still host
      // and only the certificate lags the epoch (granted, not yet certified): dropping our
      // currency then would make a whole set that held the ledger catch up again, each
      // waiting for another's (CATCH_UP_MS), and none vote nor vouch for old records.
      if (r.role === 'claiming' || ((r.role === 'primary' || r.role === 'backup') && cert && cert.e < r.epoch)) return;
      if (old && !learnt) this.handOver(old, r.hosts.map(idToHex));
      this.voting = undefined;
      // Decisions may pass us by now: when we host again, we catch up first.
      this.current = false;
      this.joinedAt = NaN;
      return;
    }
    if (old && old.set.tag === cert.e) return;
    // Voting before (continuity) or a region's first set: our ledger is the region's.
    if (old || !cert.prev) this.current = true;
    if (Number.isNaN(this.joinedAt)) this.joinedAt = now;
    const set = new VoterSet(cert.e, cert.hosts.map(idToHex));
    // Nor is a set the host held as learnt, even as the previous set of its own certificate
    // (a claim built on a learnt one, which an attacker's live key granted: docs/TRUST.md "Open gaps").
    const prev = old?.set ?? (cert.prev && !r.el.heldLearnt(cert.prev.e, cert.prev.hosts) ? new VoterSet(cert.prev.e, cert.prev.hosts.map(idToHex)) : undefined);
    if (prev) this.sets.learn(prev);
    this.sets.learn(set);
    const v: Voting = { votes: undefined as unknown as ItemVotes, set, since: now, prev, handovers: new Map(), heard: new Set() };
    v.votes = new ItemVotes({
      self: this.self, voters: set, ledger: this.ledger, rng: this.a.rng, now: this.a.worldNow, ...(this.a.voteStats ? { stats: this.a.voteStats } : {}),
      positionOf: (who) => this.positionOf(who),
      subscribers: () => (r.duty ? [...r.duty.subscribers.keys()] : r.knownSubs.map(idToHex)),
      restart: (id) => restartOf(v, id, this.a.localNow(), HANDOVER_WAIT_MS),
    });
    this.voting = v;
    if (old) this.handOver(old, set.ids);
    this.changed = true;
  }

  private open(v: Voting, id: string): boolean {
    return restartOf(v, id, this.a.localNow(), HANDOVER_WAIT_MS) !== 'wait';
  }

  /** Our open votes of `old` go to the new set (every voter of it, ourselves too); we vote no more in `old`. */
  private handOver(old: Voting, to: readonly string[]): void {
    const hs = old.votes.handover();
    for (const hex of to) {
      if (hex === this.self) this.onHandover(this.self, old.set.tag, hs);
      else this.a.send(hexToId(hex), { t: 'ITEM_HANDOVER', ...this.regionFields, e: old.set.tag, votes: hs });
    }
  }

  private positionOf(who: string): { x: number; y: number; z: number } | undefined {
    const duty = this.a.region.duty;
    if (duty) return duty.presence.position(who, this.a.region.ctx.clock.now());
    return this.seen.position(who);
  }

  private players(): [string, { x: number; y: number; z: number }][] {
    const duty = this.a.region.duty;
    if (duty) return [...duty.presence.standing(this.a.region.ctx.clock.now())];
    return this.seen.standing();
  }

  private isHost(hex: string): boolean {
    const hosts = this.a.region.cert?.hosts ?? this.a.region.hosts;
    return hosts.some((h) => idToHex(h) === hex);
  }

  /** Another host's ledger joined into ours (its records only by their proofs); frames that waited for it are taken. */
  private async join(from: NodeId, fromHex: string, m: ItemWireOf<'ITEM_STATE'>): Promise<void> {
    const cur = m.cur === true;
    // A host catching up gets ours at once.
    const now = this.a.localNow();
    if (this.current && !cur && now - (this.answered.get(fromHex) ?? -Infinity) >= ANSWER_STATE_MS) {
      this.answered.set(fromHex, now);
      if (this.answered.size > 16) this.answered.delete(this.answered.keys().next().value!);
      this.a.send(from, this.stateFrame());
    }
    const { state } = await provenRecords(this.ledger, m.state, this.a.checker, (e) => this.setOf(e), this.a.stats, fromHex);
    const before = JSON.stringify(this.ledger.toState());
    this.ledger.merge(state);
    // The state of a host whose ledger is the region's: ours is too from now on.
    if (cur && fromHex !== this.self) this.current = true;
    if (JSON.stringify(this.ledger.toState()) !== before) this.changed = true;
    if (this.voting) this.apply(this.voting.votes.caughtUp());
  }

  private apply(fx: ItemEffect[]): void {
    const v = this.voting;
    for (const e of fx) {
      if ('send' in e) {
        this.sendVote(e.send, e.to);
        continue;
      }
      this.changed = true;
      // Our own decision took effect here; its proof goes on the record once assembled (then the state carries it).
      if (v) void this.signing.decided(v.set, e.vote, e.decision, 'spawned' in e ? e.spawned : e.taken).then((p) => p && (this.changed = true));
    }
  }

  /** A vote frame to voters or players: a proposal signed, a decision with its proof (vote-signing.ts). */
  private sendVote(msg: ItemVoteMessage, to: readonly string[]): void {
    const go = (m: ItemVoteMessage) => {
      const frame = voteFrame(this.regionFields, m);
      for (const hex of to) if (hex !== this.self) this.a.send(hexToId(hex), frame);
    };
    const v = this.voting;
    if (!v || !((msg.t === 'PROPOSE' && msg.c !== null) || msg.t === 'DECIDED')) return go(msg);
    void this.signing.outgoing(v.set, msg).then((m) => m && go(m));
  }

  /** Our ledger as the others may take it: its signed records only (a record whose proof is still being assembled waits). */
  private stateFrame(): ItemWireOf<'ITEM_STATE'> {
    const s: LedgerState = this.ledger.toState();
    return { t: 'ITEM_STATE', ...this.regionFields, e: this.a.region.epoch, state: { ...s, items: s.items.filter((i) => i.proof) }, ...(this.current ? { cur: true } : {}) };
  }

  /** The ledger to the other hosts (and, after a drop, the subscribers); stored with the region when it changed. */
  private shareState(now: number, toSubscribers = false): void {
    this.lastState = now;
    const frame = this.stateFrame();
    const hosts = (this.a.region.cert?.hosts ?? []).filter((h) => idToHex(h) !== this.self);
    for (const h of hosts) this.a.send(h, frame);
    const duty = this.a.region.duty;
    if (toSubscribers && duty) for (const s of duty.subscribers.values()) this.a.send(s.id, frame);
    if (!this.changed) return;
    this.changed = false;
    const bytes = JSON.stringify(frame.state);
    if (bytes === this.stored) return;
    this.stored = bytes;
    this.a.region.persist().catch(() => {});
  }
}
