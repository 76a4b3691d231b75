// A drop takes effect only with the signatures of a majority of the region's hosts over the
// record it makes (docs/ITEMS.md "Drops", decision-proof.ts `drop:<item>:<gen>`). The owner
// asks the primary (ITEM_DROP); the primary works out the dropped record (the next gen, at
// the new spot, nobody's), signs it and sends it to its backups (ITEM_DROPPING); a backup
// whose own ledger has that owner holding that gen signs the same record (ITEM_HELD), and
// signs at most one record per (item, gen), so no two drops of one gen can both be proven.
// With a majority (the primary's signature among them) the primary checks the proof, puts
// the record in its ledger and shows it to the subscribers; the backups and players take it
// from the state, by its proof. A drop no majority signed in time is given up (counted): the
// owner still holds the item, and a backup that signed it may let a later primary prove it
// only with the same record, so either way the item has one place and one owner.
// The same path carries the two records of a carry into another region (carry-record.ts):
// the tombstone in the item's region, and its arrival in the region it was carried to.
// Each is the owner's request, signed by the owner (owner-request.ts): the primary checks
// the signature before it signs, and each backup before it signs (ITEM_DROPPING carries it),
// so no host signs a record its owner did not ask for, whatever the link or the primary says.
import { hexToId, idToHex, type NodeId } from '../core/node-id';
import { bareRecord, type DecisionProof, type ProofChecker, type ProofSig, type ProofSigner } from './decision-proof';
import { arrivedRecord, carriedRecord } from './carry-record';
import { ItemLedger, type Item, type ItemArea, type ItemLedgerOptions } from './item-ledger';
import { sameRecord } from './record-merge';
import type { ItemWireOf } from './item-wire';
import type { OwnerAsk, OwnerRequest, OwnerRequestChecker } from './owner-request';
import { regionName } from '../region/region-key';
import type { VoterSet } from './voter-set';

/** ITEM_DROPPING goes again to backups that have not answered this often. */
const RESEND_MS = 500;
/** A drop not signed by a majority by then is given up. */
const GIVE_UP_MS = 5000;
/** Drops waiting at once (each is one owner's request; more are refused, counted). */
const MAX_PENDING = 16;
/** Drops a backup remembers having signed (one record per item and gen). */
const MAX_SIGNED = 128;

export interface DropStats {
  /** Drops that took effect (signed by a majority first). */
  replicated: number;
  /** Drops given up: no majority signed them in time. */
  unreplicated: number;
  /** Drops refused because too many waited. */
  busy: number;
  /** ITEM_DROPPING a backup refused to sign: its ledger disagrees, or it signed another record of that gen. */
  refusedToSign: number;
}

export interface ReplicatedDropsArgs {
  seed: string;
  area: ItemArea;
  ledger: ItemLedger;
  ledgerOptions?: Partial<ItemLedgerOptions>;
  /** The region's voter set now (the certificate's hosts, tagged with its epoch); undefined while not hosting. */
  set: () => VoterSet | undefined;
  selfHex: string;
  signer: ProofSigner;
  checker: ProofChecker;
  /** Checks the owners' signatures on their requests (one per node). */
  requests: OwnerRequestChecker;
  send: (to: NodeId, msg: ItemWireOf<'ITEM_DROPPING' | 'ITEM_HELD'>) => void;
  /** The drop took effect in the ledger: show it (and tell `by`, who asked). */
  applied: (by: string) => void;
  /** Whether a tombstone from region `from` is proven by that region's certified hosts (an arrival's source). */
  checkSource: (from: Carried, via?: string) => Promise<boolean>;
  worldNow: () => number;
  localNow: () => number;
}

/** A proven tombstone from another region (ITEM_BRING, ITEM_DROPPING `from`). */
export interface Carried {
  rx: number;
  rz: number;
  rec: Item;
}

/** What the owner `by` asks: put it down here, carry it off to another area, or put down here one carried in; `req`: its signed request. */
export type DropOp = (
  | { kind: 'drop'; item: string; by: string; p: { x: number; y: number; z: number } }
  | { kind: 'carry'; item: string; by: string; to: string }
  | { kind: 'arrive'; by: string; p: { x: number; y: number; z: number }; from: Carried }
) & { req: OwnerRequest };

/** The fields the owner signed for `op`, whose record (the next gen) is `rec` (owner-request.ts). */
export function askOf(op: DropOp, rec: { gen: number }): OwnerAsk {
  const gen = rec.gen - 1;
  if (op.kind === 'carry') return { kind: 'carry', item: op.item, gen, to: op.to };
  const p = { x: op.p.x, y: op.p.y, z: op.p.z };
  return op.kind === 'drop' ? { kind: 'drop', item: op.item, gen, p } : { kind: 'arrive', item: op.from.rec.id, gen, p, from: regionName(op.from) };
}

interface Pending {
  e: number;
  rec: Item;
  by: string;
  req: OwnerRequest;
  from: Carried | undefined;
  sigs: Map<string, ProofSig>;
  since: number;
  sent: number;
}

export class ReplicatedDrops {
  readonly stats: DropStats = { replicated: 0, unreplicated: 0, busy: 0, refusedToSign: 0 };
  private readonly pending = new Map<string, Pending>();
  /** Backup side: `item gen` -> the record signed for it. */
  private readonly signed = new Map<string, string>();
  /**
   * Requests whose owner's signature is being checked, by item, sender and request number:
   * keyed by the item alone, a forged or replayed request in check made the owner's own,
   * arriving meanwhile, pass for a re-sent one and go unanswered (owner-requests.test.ts).
   */
  private readonly checking = new Set<string>();

  constructor(private readonly a: ReplicatedDropsArgs) {}

  /**
   * The owner `by` asks `op`: false when the ledger refuses it, its owner's signature does not
   * hold (owner-request.ts, counted there) or too many wait; the effect comes once signed (an
   * arrival's source checked first).
   */
  async request(op: DropOp): Promise<boolean> {
    const item = op.kind === 'arrive' ? op.from.rec.id : op.item;
    const key = `${item} ${op.by} ${op.req.r}`;
    if (this.pending.has(item) || this.checking.has(key)) return true; // a re-sent request: already under way
    if (this.pending.size + this.checking.size >= MAX_PENDING) {
      this.stats.busy++;
      return false;
    }
    const first = this.recordOf(op);
    if (typeof first === 'string') return false; // counted by the ledger
    this.checking.add(key);
    const fault = await this.a.requests.check(this.a.area, askOf(op, first), op.by, op.req, this.a.worldNow()).finally(() => this.checking.delete(key));
    const set = this.a.set();
    if (fault || !set || this.pending.has(item) || !this.a.requests.take(op.req, this.a.worldNow())) return false;
    const it = this.recordOf(op); // the ledger again: it may have moved on while the signature was checked
    if (typeof it === 'string' || it.gen !== first.gen) return false;
    const d: Pending = { e: set.tag, rec: bareRecord(it), by: op.by, req: op.req, from: op.kind === 'arrive' ? op.from : undefined, sigs: new Map(), since: this.a.localNow(), sent: -Infinity };
    this.pending.set(item, d);
    void this.signOwn(d, set);
    this.settle(item, d, this.a.localNow());
    return true;
  }

  /** A backup's signature over a pending drop (ITEM_HELD). */
  held(fromHex: string, item: string, gen: number, sig: ProofSig): void {
    const d = this.pending.get(item);
    if (!d || gen !== d.rec.gen || idToHex(sig.id) !== fromHex) return;
    d.sigs.set(fromHex, sig);
    this.settle(item, d, this.a.localNow());
  }

  /**
   * Backup side: the primary asks us to sign a record; we do if our own ledger makes the same
   * record of the owner's request (a drop or carry of what `by` holds here; an arrival of a
   * tombstone proven by its region), the owner signed that request, and we signed no other
   * record of this item and gen.
   */
  async sign(primary: NodeId, m: ItemWireOf<'ITEM_DROPPING'>): Promise<void> {
    const rec = bareRecord(m.rec);
    const tag = `${rec.id} ${rec.gen}`, mineJson = JSON.stringify(rec);
    const signedOther = () => { const other = this.signed.get(tag); return other !== undefined && other !== mineJson; };
    const req = { r: m.r, o: m.o };
    const op: DropOp = m.from ? { kind: 'arrive', by: m.by, p: rec, from: m.from, req }
      : rec.away !== undefined ? { kind: 'carry', item: rec.id, by: m.by, to: rec.away, req }
      : { kind: 'drop', item: rec.id, by: m.by, p: rec, req };
    const mine = this.recordOf(op, rec.at);
    const agrees = typeof mine !== 'string' && sameRecord(mine, rec) && !signedOther()
      && (await this.a.requests.check(this.a.area, askOf(op, rec), m.by, req, this.a.worldNow(), idToHex(primary))) === null
      && (!m.from || (await this.a.checkSource(m.from, idToHex(primary))));
    // Read after the checks: another record of this item and gen may have been signed while they ran.
    const set = this.a.set();
    if (!set || set.tag !== m.e || !agrees || signedOther()) return void this.stats.refusedToSign++;
    this.signed.set(tag, mineJson);
    if (this.signed.size > MAX_SIGNED) this.signed.delete(this.signed.keys().next().value!);
    const sig = await this.a.signer.sign(this.a.area, set.tag, voteOf(rec), 0, rec);
    this.a.send(primary, { t: 'ITEM_HELD', rx: this.a.area.ax, rz: this.a.area.az, e: set.tag, item: rec.id, gen: rec.gen, sig });
  }

  tick(): void {
    const now = this.a.localNow();
    for (const [item, d] of this.pending) this.settle(item, d, now);
  }

  /** Drops waiting for a majority. */
  get waiting(): number {
    return this.pending.size;
  }

  private async signOwn(d: Pending, set: VoterSet): Promise<void> {
    d.sigs.set(this.a.selfHex, await this.a.signer.sign(this.a.area, set.tag, voteOf(d.rec), 0, d.rec));
    this.settle(d.rec.id, d, this.a.localNow());
  }

  private settle(item: string, d: Pending, now: number): void {
    if (this.pending.get(item) !== d) return;
    const set = this.a.set();
    const gone = !set || set.tag !== d.e;
    if (!gone && [...d.sigs.keys()].filter((h) => set.indexOf(h) !== undefined).length >= set.decides) {
      this.pending.delete(item);
      const proof: DecisionProof = { e: d.e, vote: voteOf(d.rec), round: 0, sigs: set.ids.flatMap((h) => d.sigs.get(h) ?? []) };
      void this.prove(d, proof, set);
      return;
    }
    if (gone || now - d.since >= GIVE_UP_MS) {
      this.pending.delete(item);
      this.stats.unreplicated++;
      return;
    }
    if (now - d.sent < RESEND_MS) return;
    d.sent = now;
    const frame = { t: 'ITEM_DROPPING' as const, rx: this.a.area.ax, rz: this.a.area.az, e: d.e, by: d.by, rec: d.rec, ...(d.from ? { from: d.from } : {}), r: d.req.r, o: d.req.o };
    for (const h of set.ids) if (h !== this.a.selfHex && !d.sigs.has(h)) this.a.send(hexToId(h), frame);
  }

  /** The assembled proof checked (a backup's bad signature must not reach the state), then the record in the ledger. */
  private async prove(d: Pending, proof: DecisionProof, set: VoterSet): Promise<void> {
    if ((await this.a.checker.check(this.a.area, d.rec, proof, set)) !== null) {
      this.stats.unreplicated++;
      return;
    }
    const before = this.a.ledger.item(d.rec.id);
    if (before && before.gen >= d.rec.gen) {
      this.stats.unreplicated++; // the item changed meanwhile (it cannot: one owner; but never apply over a newer record)
      return;
    }
    this.a.ledger.merge({ ...this.a.ledger.toState(), items: [{ ...d.rec, proof }] });
    this.stats.replicated++;
    this.a.applied(d.by);
  }

  /** The record `op` makes from our ledger (a refusal counted by the ledger); `at`: a drop's time as the primary set it (a backup's check). */
  private recordOf(op: DropOp, at = this.a.worldNow()): Item | string {
    if (op.kind === 'carry') return carriedRecord(this.a.ledger, op.item, op.by, op.to);
    if (op.kind === 'arrive') return op.from.rec.owner === op.by ? arrivedRecord(this.a.ledger, op.from.rec, op.p, at) : 'not-owner';
    const trial = new ItemLedger(this.a.seed, this.a.area, this.a.ledgerOptions);
    trial.merge(this.a.ledger.toState());
    const it = trial.drop(op.item, op.by, op.p, at);
    if (typeof it === 'string') this.a.ledger.stats[it]++; // the refusal counted where the ledger's refusals are
    return it;
  }
}

/** The vote id a record of these ops is proven under (decision-proof.ts). */
export const voteOf = (rec: { id: string; gen: number; away?: string | undefined }): string => `${rec.away !== undefined ? 'carry' : 'drop'}:${rec.id}:${rec.gen}`;
