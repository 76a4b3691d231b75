// A new host set vouches for the records it holds (decision-proof.ts `keep:<item>:<gen>`).
// A record's proof names the set of the epoch that decided it; a player or host knows the
// sets of the epochs it followed and the previous set each certificate names, so after a
// few epoch changes an old proof could no longer be checked by a newcomer (a reloaded tab,
// a new host), and the record would vanish for it. So once a set votes, each of its hosts
// signs the records of its ledger whose proofs name an older set (ITEM_KEEP, to every host of
// the set), and any host holding the record, with a majority of the set's signatures over
// it, puts the new proof on it; the state then carries it to the others. Any holder, not only
// the primary: a primary that joined without the record (new, or its store lost) cannot take
// it from the others' state while its proof names a set it never knew, and would wait for a
// proof only it could assemble. A host signs only records it holds, and it
// took each of them only by a proof it checked (or by deciding it itself), so the chain of
// signatures runs unbroken from the set that decided a record to the set that holds it now.
import { hexToId, idToHex, type NodeId } from '../core/node-id';
import { bareRecord, type DecisionProof, type ProofChecker, type ProofSig, type ProofSigner } from './decision-proof';
import type { ItemArea, ItemLedger } from './item-ledger';
import { MAX_KEEP, type ItemWireOf } from './item-wire';
import type { VoterSet } from './voter-set';

/** Records signed per tick (a ledger of 128 records is vouched for within a few ticks). */
const SIGN_PER_TICK = 32;

export interface EndorseArgs {
  area: ItemArea;
  ledger: ItemLedger;
  signer: ProofSigner;
  checker: ProofChecker;
  selfHex: string;
  /** The set this host votes in now (undefined while it does not, or is catching up). */
  set: () => VoterSet | undefined;
  send: (to: NodeId, msg: ItemWireOf<'ITEM_KEEP'>) => void;
  /** A record got a proof of the current set: share the state. */
  applied: () => void;
}

export const keepVote = (rec: { id: string; gen: number }): string => `keep:${rec.id}:${rec.gen}`;

export class RecordEndorsement {
  readonly stats = { signed: 0, endorsed: 0, refused: 0 };
  /** `epoch id gen` we signed. */
  private readonly mine = new Set<string>();
  /** `id gen` -> the signatures gathered for a record we hold (current epoch only). */
  private gathered = new Map<string, Map<string, ProofSig>>();
  private epoch = -1;
  private busy = false;

  constructor(private readonly a: EndorseArgs) {}

  /** Signs the records proven by an older set (a few per tick) and sends the signatures to every host of the set. */
  async tick(): Promise<void> {
    const set = this.a.set();
    if (!set || this.busy) return;
    this.follow(set);
    const todo = this.a.ledger.items.filter((i) => i.proof && i.proof.e < set.tag && !this.mine.has(`${set.tag} ${i.id} ${i.gen}`)).slice(0, SIGN_PER_TICK);
    if (!todo.length) return;
    this.busy = true;
    try {
      const sigs = await Promise.all(todo.map(async (rec) => ({ item: rec.id, gen: rec.gen, sig: await this.a.signer.sign(this.a.area, set.tag, keepVote(rec), 0, bareRecord(rec)) })));
      for (const rec of todo) this.mine.add(`${set.tag} ${rec.id} ${rec.gen}`);
      this.stats.signed += sigs.length;
      const msg = { t: 'ITEM_KEEP' as const, rx: this.a.area.ax, rz: this.a.area.az, e: set.tag, sigs: sigs.slice(0, MAX_KEEP) };
      for (const h of set.ids) if (h !== this.a.selfHex) this.a.send(hexToId(h), msg);
      await this.receive(this.a.selfHex, msg);
    } finally {
      this.busy = false;
    }
  }

  /** A host's signatures (ITEM_KEEP); a record we hold with a majority's gets its new proof. */
  async receive(fromHex: string, m: ItemWireOf<'ITEM_KEEP'>): Promise<void> {
    const set = this.a.set();
    if (!set || set.tag !== m.e || set.indexOf(fromHex) === undefined) return void this.stats.refused++;
    this.follow(set);
    for (const { item, gen, sig } of m.sigs) {
      const rec = this.a.ledger.item(item);
      if (!rec?.proof || rec.gen !== gen || rec.proof.e >= set.tag || idToHex(sig.id) !== fromHex) continue;
      const tag = `${item} ${gen}`;
      let got = this.gathered.get(tag);
      if (!got) this.gathered.set(tag, (got = new Map()));
      got.set(fromHex, sig);
      if (got.size < set.decides) continue;
      this.gathered.delete(tag);
      const proof: DecisionProof = { e: set.tag, vote: keepVote(rec), round: 0, sigs: set.ids.flatMap((h) => got.get(h) ?? []) };
      const bare = bareRecord(rec);
      if ((await this.a.checker.check(this.a.area, bare, proof, set, fromHex)) !== null) continue; // its last signer's budget
      if (this.a.ledger.prove(bare, proof)) {
        this.stats.endorsed++;
        this.a.applied();
      }
    }
  }

  /** A new epoch: what was gathered for the old one is void. */
  private follow(set: VoterSet): void {
    if (set.tag === this.epoch) return;
    this.epoch = set.tag;
    this.gathered = new Map();
    for (const k of this.mine) if (!k.startsWith(`${set.tag} `)) this.mine.delete(k);
  }
}

