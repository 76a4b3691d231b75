// One host's side of its area's item votes (thesis 4.5.2 pickups, 4.5.3 spawns): routes
// vote frames to a Vote per vote id, opens votes as frames or its own proposals name them,
// and applies each decision to its ItemLedger. Pure like the engine: frames, ticks, the
// world time and an rng in; frames to send and what changed out. The host wiring sends
// `send` effects on the host wire to `to` and feeds received ITEM vote frames to `receive`.
//
// What a vote may decide is checked here before the engine sees it: a spawn must name the
// area's next slot, lie inside the area, be a kind the area may spawn (a star only in its
// home area, once); a claim must come from a player near an item lying in the world, whose
// position the hosts saw about there. A voter's frame for a vote this host cannot open
// yet (the item's spawn or the last pickup not applied here: lost or slower frames) waits,
// bounded, and is replayed once the ledger catches up, so a lagging voter neither stalls
// the vote nor misses its decision.
import type { Random } from '../core/seeded-random';
import { candidateKey, itemCandidateSchema, type ClaimCandidate, type Item, type ItemCandidate, type ItemLedger, type SpawnCandidate } from './item-ledger';
import * as v from 'valibot';
import type { CodecSpec } from '../core/codec';
import { proofSigSchema, type ProofSig } from './decision-proof';
import { MAX_VOTERS, voteSpec, type VoteMessage } from './vote-messages';
import { newVoteStats, type VoteStats } from './vote-stats';
import { Vote, type Decision, type Handover } from './vote';
import type { Restart } from './vote-handover';
import type { VoterSet } from './voter-set';

/** Decided votes kept to answer late frames with the decision. */
const MAX_DONE = 32;
/** Frames held for votes this host cannot open yet. */
const MAX_WAITING = 64;
/** Votes open at once (a spawn and a pickup per item lying in the area fit easily). */
const MAX_OPEN = 32;
/**
 * Ticks on which a decided voter repeats its DECIDED to the other voters (thesis 18 and 24:
 * the forced appearance / forced pickup): a voter that missed every frame of a vote (loss,
 * a late start) still learns it, at 10% loss with odds of 1e-8 of missing all.
 */
const ANNOUNCE_TICKS = 8;

/** The vote frames over items; a non-null PROPOSE carries its voter's signature, a DECIDED the proof (vote-signing.ts). */
export type ItemVoteMessage =
  | Extract<VoteMessage<ItemCandidate>, { t: 'CLAIM' | 'REPORT' }>
  | (Extract<VoteMessage<ItemCandidate>, { t: 'PROPOSE' }> & { sig?: ProofSig | undefined })
  | (Extract<VoteMessage<ItemCandidate>, { t: 'DECIDED' }> & { sigs?: ProofSig[] | undefined });

/**
 * The item vote frames (CLAIM, REPORT, PROPOSE, DECIDED over ItemCandidate) as codec entries
 * from `firstCode` on, for the host wire. A PROPOSE may carry its voter's signature, a
 * DECIDED its proof (vote-signing.ts); without them they prove nothing.
 */
export function itemVoteSpec(firstCode: number) {
  const s = voteSpec(itemCandidateSchema, firstCode);
  return {
    ...s,
    PROPOSE: [s.PROPOSE[0], v.object({ ...s.PROPOSE[1].entries, sig: v.optional(proofSigSchema) })],
    DECIDED: [s.DECIDED[0], v.object({ ...s.DECIDED[1].entries, sigs: v.optional(v.pipe(v.array(proofSigSchema), v.maxLength(MAX_VOTERS))) })],
  } as const satisfies CodecSpec;
}

export type ItemEffect =
  | { send: ItemVoteMessage; to: readonly string[] }
  | { spawned: Item; vote: string; decision: Decision<ItemCandidate> }
  | { taken: Item; vote: string; decision: Decision<ItemCandidate> };

export interface ItemVotesOptions {
  self: string;
  voters: VoterSet;
  ledger: ItemLedger;
  rng: Random;
  /** World time (the synchronised clock). */
  now: () => number;
  /** Where the hosts last saw a player (the region's motion tracker); undefined: claims are checked against the claimed position only. */
  positionOf?: (who: string) => { x: number; y: number; z: number } | undefined;
  patience?: number;
  stats?: VoteStats;
  /**
   * The area's players (its subscribers): each decision is sent to them too, at once and
   * with the repeats (thesis 18: a peer that missed the appearance shows it on hearing).
   */
  subscribers?: () => readonly string[];
  /**
   * What a vote of this set must respect after a change of voter set (vote-handover.ts):
   * a lock, or 'wait' while too few of the old set handed over (its frames are held).
   * Default: every vote is free.
   */
  restart?: (voteId: string) => Restart<ItemCandidate> | 'wait';
}

export class ItemVotes {
  readonly stats: VoteStats & { waited: number; waitDropped: number; tooManyVotes: number };
  private readonly open = new Map<string, Vote<ItemCandidate>>();
  private readonly done = new Map<string, Vote<ItemCandidate>>();
  private waiting: { from: string; msg: ItemVoteMessage }[] = [];
  private readonly announce = new Map<string, { d: Decision<ItemCandidate>; left: number }>();

  constructor(private readonly o: ItemVotesOptions) {
    this.stats = Object.assign(o.stats ?? newVoteStats(), { waited: 0, waitDropped: 0, tooManyVotes: 0 });
  }

  get ledger(): ItemLedger {
    return this.o.ledger;
  }

  /** The voters of this host's votes now. */
  get voters(): VoterSet {
    return this.o.voters;
  }

  /** Votes in progress (dashboard; bounded by MAX_OPEN). */
  get openVotes(): number {
    return this.open.size;
  }

  /** Whether a decision of vote `id` could take effect here now (the vote is open or may open: not done, not past). */
  deciding(id: string): boolean {
    return !this.done.has(id) && this.standing(id) === 'now';
  }

  /** This host's spawn timer fired: propose the next slot's item (nothing when the slot's vote is already under way, or no room). */
  proposeSpawn(ground: (x: number, z: number) => number | undefined, near?: (x: number, z: number) => boolean): ItemEffect[] {
    if (this.o.restart?.(this.o.ledger.spawnVoteId) === 'wait') return [];
    const c = this.o.ledger.propose(this.o.rng, this.o.now(), this.o.self, ground, near);
    if (!c) return [];
    const vote = this.voteFor(this.o.ledger.spawnVoteId);
    return vote ? this.settle(vote.begin(c)) : [];
  }

  /** A claim made by this host itself (a host playing: the one-tab mode). */
  claim(itemId: string, c: ClaimCandidate): ItemEffect[] {
    const id = this.o.ledger.pickupVoteId(itemId);
    return id ? this.receive(this.o.self, { t: 'CLAIM', vote: id, c }) : [];
  }

  receive(from: string, msg: ItemVoteMessage): ItemEffect[] {
    const done = this.done.get(msg.vote);
    if (done) return this.settle(done.receive(from, msg)); // answers with the decision
    const state = this.standing(msg.vote);
    // A decision of a vote we cannot open yet is not held: it could not be checked here (its
    // record is unknown), and the region state will bring the record with its proof.
    if (state === 'later') return msg.t === 'DECIDED' ? this.count('farRound') : this.wait(from, msg);
    if (state === 'past') return this.count('oldRound'); // decided long ago: the region state tells
    if (state === 'bad') return this.count('wrongVote');
    const spawn = msg.vote.startsWith('spawn:');
    if (msg.t === 'CLAIM' && spawn) return this.count('nonVoter'); // only hosts propose spawns, in REPORTs
    if (msg.t !== 'CLAIM') {
      // Checked before a vote is opened for it: a stranger's frames open nothing.
      if (this.o.voters.indexOf(from) === undefined) return this.count('nonVoter');
      if (msg.set !== this.o.voters.tag) return this.count('wrongSet');
      if (msg.c !== null && (spawn ? this.o.ledger.checkSpawn(msg.c) : msg.c.t !== 'c')) return this.count('badCandidate');
    }
    if (!this.open.has(msg.vote) && this.o.restart?.(msg.vote) === 'wait') return msg.t === 'DECIDED' ? this.count('farRound') : this.wait(from, msg);
    const vote = this.voteFor(msg.vote);
    return vote ? this.settle(vote.receive(from, msg)) : [];
  }

  /** This set is replaced (an epoch change): every open vote stops, and what the next set must respect is returned (vote-handover.ts). */
  handover(): { vote: string; h: Handover<ItemCandidate> }[] {
    const out = [...this.open].map(([vote, v]) => ({ vote, h: v.handover() }));
    this.open.clear();
    return out;
  }

  /** The ledger learned more from elsewhere (a merged region state): frames that waited for it are taken now. */
  caughtUp(): ItemEffect[] {
    return this.replay();
  }

  tick(): ItemEffect[] {
    const out: ItemEffect[] = [];
    for (const vote of [...this.open.values()]) out.push(...this.settle(vote.tick()));
    for (const [vote, a] of this.announce) {
      if (--a.left <= 0) this.announce.delete(vote);
      out.push(...this.decidedTo(vote, a.d));
    }
    return out;
  }

  /** Whether a vote id names a vote open now, one already past, one this ledger cannot open yet, or nothing. */
  private standing(id: string): 'now' | 'past' | 'later' | 'bad' {
    const l = this.o.ledger;
    const spawn = /^spawn:(-?\d+,-?\d+):(\d+)$/.exec(id);
    if (spawn) {
      if (spawn[1] !== l.name) return 'bad';
      const slot = Number(spawn[2]);
      const next = Number(l.spawnVoteId.slice(l.spawnVoteId.lastIndexOf(':') + 1));
      return slot === next ? 'now' : slot < next ? 'past' : 'later';
    }
    const take = /^take:(.+):(\d+)$/.exec(id);
    if (!take) return 'bad';
    const it = l.item(take[1]!);
    if (!it) return 'later';
    const gen = Number(take[2]);
    return gen === it.gen && it.owner === null ? 'now' : gen <= it.gen ? 'past' : 'later';
  }

  private voteFor(id: string): Vote<ItemCandidate> | undefined {
    let vote = this.open.get(id);
    if (vote) return vote;
    if (this.open.size >= MAX_OPEN) {
      this.stats.tooManyVotes++;
      return undefined;
    }
    const l = this.o.ledger;
    const spawn = id.startsWith('spawn:');
    const itemId = spawn ? '' : id.slice(5, id.lastIndexOf(':'));
    const restart = this.o.restart?.(id);
    // A decision handed over is decided again by this set, locked on it: the new set's own
    // signatures then prove it (a handover is one voter's word, no proof).
    const lock = restart && restart !== 'wait' ? ('lock' in restart ? { lock: restart.lock } : 'decided' in restart ? { lock: restart.decided.c } : {}) : {};
    vote = new Vote<ItemCandidate>({ ...lock,
      id, voters: this.o.voters, self: this.o.self, key: candidateKey, rng: this.o.rng, stats: this.stats, patience: this.o.patience,
      admit: spawn
        ? (c) => l.checkSpawn(c, this.o.now()) === undefined
        : (c) => l.checkClaim(itemId, c, this.o.now(), c.t === 'c' ? this.o.positionOf?.(c.who) : undefined) === undefined,
    });
    this.open.set(id, vote);
    return vote;
  }

  /** Applies decisions to the ledger and passes frames on. */
  private settle(effects: ReturnType<Vote<ItemCandidate>['tick']>): ItemEffect[] {
    const out: ItemEffect[] = [];
    for (const e of effects) {
      if ('send' in e) {
        out.push(e);
        continue;
      }
      const id = this.idOf(e.decided);
      if (id === undefined) continue;
      this.announce.set(id, { d: e.decided, left: ANNOUNCE_TICKS });
      const players = this.o.subscribers?.() ?? [];
      if (players.length) out.push({ send: decidedFrame(id, this.o.voters.tag, e.decided), to: players });
      if (this.announce.size > MAX_DONE) this.announce.delete(this.announce.keys().next().value!);
      const vote = this.open.get(id)!;
      this.open.delete(id);
      this.done.set(id, vote);
      if (this.done.size > MAX_DONE) this.done.delete(this.done.keys().next().value!);
      const l = this.o.ledger;
      const r = id.startsWith('spawn:') ? l.applySpawn(id, e.decided, this.o.voters) : l.applyPickup(id, e.decided, this.o.voters);
      if (typeof r !== 'string') out.push(id.startsWith('spawn:') ? { spawned: r, vote: id, decision: e.decided } : { taken: r, vote: id, decision: e.decided });
      out.push(...this.replay());
    }
    return out;
  }

  /** The open vote whose decision this is. */
  private idOf(d: Decision<ItemCandidate>): string | undefined {
    for (const [id, vote] of this.open) if (vote.decided === d) return id;
    return undefined;
  }

  /** A decision repeated to the other voters and the area's players. */
  private decidedTo(vote: string, d: Decision<ItemCandidate>): ItemEffect[] {
    const to = [...this.o.voters.ids.filter((id) => id !== this.o.self), ...(this.o.subscribers?.() ?? [])];
    return to.length ? [{ send: decidedFrame(vote, this.o.voters.tag, d), to }] : [];
  }

  private wait(from: string, msg: ItemVoteMessage): ItemEffect[] {
    this.stats.waited++;
    this.waiting.push({ from, msg });
    if (this.waiting.length > MAX_WAITING) {
      this.waiting.shift();
      this.stats.waitDropped++;
    }
    return [];
  }

  /** Frames that waited for the ledger to catch up, delivered again (those still early wait on). */
  private replay(): ItemEffect[] {
    const held = this.waiting;
    this.waiting = [];
    const out: ItemEffect[] = [];
    for (const { from, msg } of held) {
      if (this.standing(msg.vote) === 'later') this.waiting.push({ from, msg });
      else out.push(...this.receive(from, msg));
    }
    return out;
  }

  private count(what: keyof VoteStats): ItemEffect[] {
    this.stats[what]++;
    return [];
  }
}

const decidedFrame = (vote: string, set: number, d: Decision<ItemCandidate>): ItemVoteMessage => ({ t: 'DECIDED', vote, set, round: d.round, c: d.c, proof: d.proof });

export type { ClaimCandidate, SpawnCandidate };
