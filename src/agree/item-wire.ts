// The items' own channel ('items', dht/app-channels.ts) between a region's hosts and its
// players: the item vote frames (item-votes.ts, each wrapped with the region it is about),
// the clock probes (clock-probe.ts), the area's ledger state, drops and the positions the
// primary saw. Its own channel and codec rather than entries in the host codecs
// (host/replication-messages.ts, region/subscription-messages.ts): the layer rule keeps
// host/ and region/ from importing agree/, whose schemas these are. Every frame passes
// these schemas before any other code sees it; a frame that fails is counted by the wire.
//
//   host <-> host:   ITEM_REPORT, ITEM_PROPOSE, ITEM_DECIDED, ITEM_STATE, ITEM_SEEN, ITEM_HELD, TIME_*
//   player -> hosts: ITEM_CLAIM, ITEM_DROP / ITEM_CARRY / ITEM_BRING (to the primary, signed by the owner), TIME_REQ
//   hosts -> player: ITEM_PROPOSE (its own claims), ITEM_DECIDED, ITEM_STATE, TIME_REP
import * as v from 'valibot';
import type { Clock } from '../core/clock';
import { defineCodec, u32, type MessageOf } from '../core/codec';
import type { AppChannels } from '../dht/app-channels';
import { CODEC_MAX_FRAME, coord, id, PART, region } from '../region/frame-schemas';
import { FrameWire } from '../region/frame-wire';
import { clockSpec, type ClockMessage } from './clock-probe';
import { proofSigSchema } from './decision-proof';
import { itemCandidateSchema, itemIdSchema, itemSchema, ledgerStateSchema, type LedgerState } from './item-ledger';
import { ownerSigSchema } from './owner-request';
import { voteIdSchema } from './vote-messages';
import { itemVoteSpec, type ItemVoteMessage } from './item-votes';

/** Signatures in one ITEM_KEEP (a ledger's records: item-ledger.ts maxItems). */
export const MAX_KEEP = 128;
const who = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
/** A proven tombstone of region (rx, rz) (carry-record.ts). */
const carried = v.object({ ...region, rec: itemSchema });
/** Players' positions in one ITEM_SEEN (a region's subscriber cap). */
export const MAX_SEEN = 64;

const votes = itemVoteSpec(1);
/** Votes one host has open at once (item-votes.ts MAX_OPEN). */
export const MAX_HANDOVERS = 32;
const handoverSchema = v.object({
  decided: v.optional(v.object({ c: itemCandidateSchema, round: votes.DECIDED[1].entries.round, proof: votes.DECIDED[1].entries.proof })),
  proposal: v.optional(v.object({ round: votes.DECIDED[1].entries.round, c: itemCandidateSchema })),
});
/** A vote frame's schema with the region it is about (a star's id names no area). */
const inRegion = <E extends v.ObjectEntries>(s: v.ObjectSchema<E, undefined>) => v.object({ ...region, ...s.entries });

export const itemWireSpec = {
  ITEM_CLAIM: [1, inRegion(votes.CLAIM[1])],
  ITEM_REPORT: [2, inRegion(votes.REPORT[1])],
  /** `sig`: the voter's signature over the record its candidate makes (decision-proof.ts); a non-null PROPOSE without one proves nothing. */
  ITEM_PROPOSE: [3, inRegion(votes.PROPOSE[1])],
  /** `sigs`: the proof, the signatures of the proposals that decided it (a majority of the set); without them the decision changes nothing. */
  ITEM_DECIDED: [4, inRegion(votes.DECIDED[1])],
  ...clockSpec(5),
  /**
   * host -> hosts and subscribers: the area's ledger as this host holds it (joined with
   * `merge`), only its signed records (each taken only if its proof checks). `e`: the host's
   * epoch; `cur`: its ledger is the region's (region-items.ts `current`), absent while it
   * catches up.
   */
  ITEM_STATE: [7, v.object({ ...region, e: u32, state: ledgerStateSchema, cur: v.optional(v.boolean()) })],
  /** owner -> primary: put a held item back at (x, y, z); `r`: the request, answered by the state; `o`: the owner's signature on it (owner-request.ts). */
  ITEM_DROP: [8, v.object({ ...region, r: u32, item: itemIdSchema, x: coord, y: coord, z: coord, o: ownerSigSchema })],
  /** primary -> backups: where it believes the region's players stand (claims are checked against it). */
  ITEM_SEEN: [9, v.object({ ...region, e: u32, p: v.pipe(v.array(v.tuple([id, coord, coord, coord])), v.maxLength(MAX_SEEN)) })],
  /** old voter -> the new set's voters: on an epoch change, the votes it had open in epoch `e` (vote-handover.ts). */
  ITEM_HANDOVER: [10, v.object({ ...region, e: u32, votes: v.pipe(v.array(v.object({ vote: voteIdSchema, h: handoverSchema })), v.maxLength(MAX_HANDOVERS)) })],
  /** backup -> primary: its signature over the dropped record `item` at `gen` (asked in ITEM_DROPPING; replicated-drops.ts). */
  ITEM_HELD: [11, v.object({ ...region, e: u32, item: itemIdSchema, gen: u32, sig: proofSigSchema })],
  /**
   * primary -> backups: owner `by` drops (or carries off) an item: `rec` is the record after
   * it; sign it if your ledger makes the same (ITEM_HELD). `from`: an arrival, the proven
   * tombstone in region (rx, rz) it was carried from (carry-record.ts). `r`, `o`: the owner's
   * request and its signature, checked by each backup before it signs (owner-request.ts).
   */
  ITEM_DROPPING: [12, v.object({ ...region, e: u32, by: who, rec: itemSchema, from: v.optional(carried), r: u32, o: ownerSigSchema })],
  /** host -> the other hosts of a new set: its signatures vouching for records it holds, so their proofs name this set (endorse-records.ts; any holder assembles a majority). */
  ITEM_KEEP: [13, v.object({ ...region, e: u32, sigs: v.pipe(v.array(v.object({ item: itemIdSchema, gen: u32, sig: proofSigSchema })), v.maxLength(MAX_KEEP)) })],
  /** owner -> primary of the item's region: carry a held item off to region `to` (the tombstone, carry-record.ts); `r`: the request. */
  ITEM_CARRY: [14, v.object({ ...region, r: u32, item: itemIdSchema, to: v.object(region), o: ownerSigSchema })],
  /** owner -> primary of the region it stands in: put down at (x, y, z) an item carried in, `from` its proven tombstone. */
  ITEM_BRING: [15, v.object({ ...region, r: u32, from: carried, x: coord, y: coord, z: coord, o: ownerSigSchema })],
  PART,
} as const;

export type ItemWireMessage = Exclude<MessageOf<typeof itemWireSpec>, { t: 'PART' }>;
export type ItemWireOf<T extends ItemWireMessage['t']> = Extract<ItemWireMessage, { t: T }>;
export type ItemWire = FrameWire<typeof itemWireSpec>;
export type RegionVoteFrame = ItemWireOf<'ITEM_CLAIM' | 'ITEM_REPORT' | 'ITEM_PROPOSE' | 'ITEM_DECIDED'>;

export const itemWireCodec = defineCodec(itemWireSpec, { maxFrame: CODEC_MAX_FRAME });

export function openItemWire(channels: Pick<AppChannels, 'open'>, clock: Clock): ItemWire {
  return new FrameWire(itemWireCodec, channels.open('items'), clock);
}

const VOTE_TYPES = { ITEM_CLAIM: 'CLAIM', ITEM_REPORT: 'REPORT', ITEM_PROPOSE: 'PROPOSE', ITEM_DECIDED: 'DECIDED' } as const;

export function isVoteFrame(m: ItemWireMessage): m is RegionVoteFrame {
  return m.t in VOTE_TYPES;
}

export function isClockFrame(m: ItemWireMessage): m is ItemWireMessage & ClockMessage {
  return m.t === 'TIME_REQ' || m.t === 'TIME_REP';
}

/** The vote frame inside a wire frame (the region stripped). */
export function voteOf(m: RegionVoteFrame): ItemVoteMessage {
  const { rx: _rx, rz: _rz, t, ...rest } = m;
  return { ...rest, t: VOTE_TYPES[t] } as ItemVoteMessage;
}

/** A vote frame on the wire, about region (rx, rz). */
export function voteFrame(r: { rx: number; rz: number }, m: ItemVoteMessage): RegionVoteFrame {
  return { ...m, t: `ITEM_${m.t}`, rx: r.rx, rz: r.rz } as RegionVoteFrame;
}

/** A region's ledger as the stored region record keeps it (the ITEM_STATE frame: schema-checked on reading). */
export function encodeLedger(r: { rx: number; rz: number }, e: number, s: LedgerState): Uint8Array {
  return itemWireCodec.encode({ t: 'ITEM_STATE', rx: r.rx, rz: r.rz, e, state: s });
}

export function decodeLedger(bytes: Uint8Array): LedgerState | undefined {
  try {
    const m = itemWireCodec.decode(bytes);
    return m.t === 'ITEM_STATE' ? m.state : undefined;
  } catch {
    return undefined;
  }
}
