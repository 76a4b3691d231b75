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
import { hexToId, idToHex, type NodeId } from '../core/node-id';
import { bareRecord, type DecisionProof, type ProofChecker, type ProofSig, type ProofSigner } from './decision-proof';
import { ItemLedger, type Item, type ItemArea, type ItemLedgerOptions } from './item-ledger';
import type { ItemWireOf } from './item-wire';
import type { VoterSet } from './voter-set';

export const REPLICATED_DROPS_DEFAULTS = {
  /** ITEM_DROPPING goes again to backups that have not answered this often. */
  resendMs: 500,
  /** A drop not signed by a majority by then is given up. */
  giveUpMs: 5000,
  /** Drops waiting at once (each is one owner's request; more are refused, counted). */
  maxPending: 16,
  /** Drops a backup remembers having signed (one record per item and gen). */
  maxSigned: 128,
};

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
  send: (to: NodeId, msg: ItemWireOf<'ITEM_DROPPING' | 'ITEM_HELD'>) => void;
  /** The drop took effect in the ledger: show it. */
  applied: () => void;
  worldNow: () => number;
  localNow: () => number;
  options?: Partial<typeof REPLICATED_DROPS_DEFAULTS>;
}

interface Pending {
  e: number;
  rec: Item;
  by: string;
  sigs: Map<string, ProofSig>;
  since: number;
  sent: number;
}

export class ReplicatedDrops {
  readonly stats: DropStats = { replicated: 0, unreplicated: 0, busy: 0, refusedToSign: 0 };
  private readonly pending = new Map<string, Pending>();
  /** Backup side: `item gen` -> the record signed for it. */
  private readonly signed = new Map<string, string>();
  private readonly o: typeof REPLICATED_DROPS_DEFAULTS;

  constructor(private readonly a: ReplicatedDropsArgs) {
    this.o = { ...REPLICATED_DROPS_DEFAULTS, ...a.options };
  }

  /** The owner `by` puts `item` down at p: false when the ledger refuses it (or too many wait); the effect comes once signed. */
  request(item: string, by: string, p: { x: number; y: number; z: number }): boolean {
    const set = this.a.set();
    if (!set) return false;
    if (this.pending.has(item)) return true; // a re-sent request: already under way
    if (this.pending.size >= this.o.maxPending) {
      this.stats.busy++;
      return false;
    }
    const trial = new ItemLedger(this.a.seed, this.a.area, this.a.ledgerOptions);
    trial.merge(this.a.ledger.toState());
    const it = trial.drop(item, by, p, this.a.worldNow());
    if (typeof it === 'string') {
      this.a.ledger.stats[it]++; // the refusal counted where the ledger's refusals are
      return false;
    }
    const d: Pending = { e: set.tag, rec: bareRecord(it), by, sigs: new Map(), since: this.a.localNow(), sent: -Infinity };
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

  /** Backup side: the primary asks us to sign a drop; we do if our ledger has `by` holding the gen before, and we signed no other record of this gen. */
  async sign(primary: NodeId, m: ItemWireOf<'ITEM_DROPPING'>): Promise<void> {
    const set = this.a.set();
    const ours = this.a.ledger.item(m.rec.id);
    const rec = bareRecord(m.rec);
    const tag = `${rec.id} ${rec.gen}`;
    const other = this.signed.get(tag);
    const agrees = !!ours && ours.gen === rec.gen - 1 && ours.owner === m.by && ours.away === undefined && ours.kind === rec.kind
      && rec.owner === null && rec.away === undefined && this.inside(rec) && (other === undefined || other === JSON.stringify(rec));
    if (!set || set.tag !== m.e || !agrees) return void this.stats.refusedToSign++;
    this.signed.set(tag, JSON.stringify(rec));
    if (this.signed.size > this.o.maxSigned) this.signed.delete(this.signed.keys().next().value!);
    const sig = await this.a.signer.sign(this.a.area, set.tag, dropVote(rec), 0, rec);
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
    d.sigs.set(this.a.selfHex, await this.a.signer.sign(this.a.area, set.tag, dropVote(d.rec), 0, d.rec));
    this.settle(d.rec.id, d, this.a.localNow());
  }

  private settle(item: string, d: Pending, now: number): void {
    if (this.pending.get(item) !== d) return;
    const set = this.a.set();
    const gone = !set || set.tag !== d.e;
    if (!gone && [...d.sigs.keys()].filter((h) => set.indexOf(h) !== undefined).length >= set.decides) {
      this.pending.delete(item);
      const proof: DecisionProof = { e: d.e, vote: dropVote(d.rec), round: 0, sigs: set.ids.flatMap((h) => d.sigs.get(h) ?? []) };
      void this.prove(d, proof, set);
      return;
    }
    if (gone || now - d.since >= this.o.giveUpMs) {
      this.pending.delete(item);
      this.stats.unreplicated++;
      return;
    }
    if (now - d.sent < this.o.resendMs) return;
    d.sent = now;
    const frame = { t: 'ITEM_DROPPING' as const, rx: this.a.area.ax, rz: this.a.area.az, e: d.e, by: d.by, rec: d.rec };
    for (const h of set.ids) if (h !== this.a.selfHex && !d.sigs.has(h)) this.a.send(hexToId(h), frame);
  }

  /** The assembled proof checked (a backup's bad signature must not reach the state), then the record in the ledger. */
  private async prove(d: Pending, proof: DecisionProof, set: VoterSet): Promise<void> {
    if ((await this.a.checker.check(this.a.area, d.rec, proof, set)) !== null) {
      this.stats.unreplicated++;
      return;
    }
    const before = this.a.ledger.item(d.rec.id);
    if (!before || before.gen !== d.rec.gen - 1 || before.owner !== d.by) {
      this.stats.unreplicated++; // the owner's item changed meanwhile (it cannot, but never apply over a newer record)
      return;
    }
    this.a.ledger.merge({ ...this.a.ledger.toState(), items: [{ ...d.rec, proof }] });
    this.stats.replicated++;
    this.a.applied();
  }

  private inside(r: { x: number; z: number }): boolean {
    const a = this.a.area;
    return r.x >= a.x0 && r.x < a.x0 + a.size && r.z >= a.z0 && r.z < a.z0 + a.size;
  }
}

export const dropVote = (rec: { id: string; gen: number }): string => `drop:${rec.id}:${rec.gen}`;
