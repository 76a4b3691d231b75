// The owner's own signature on what it asks of a held item (docs/ITEMS.md "Owner-signed
// requests"): a drop (ITEM_DROP), a carry off to another region (ITEM_CARRY) and the arrival
// of one carried in (ITEM_BRING). Without it a host took the owner's word from the link the
// request came on, and a backup took it from its primary (ITEM_DROPPING `by`): a hostile
// primary could have its backups sign the drop of an item somebody else holds.
//
// The owner is the node id the item record names, so the key that signs is the node's own
// identity, the key that stands for that id as a node's (what the tabs' verifier checks; the simulator's
// keyring stands for it): one signature check proves the owner asked, with no pass or
// lookup. The signed bytes are rebuilt by each host from its own view (its ledger's gen of
// the item, the region it hosts, the record the request makes), never copied from the frame:
//
//   voxel-populi item request v1\0 + JSON [kind, region, item, gen, destination, r, t]
//
// kind: drop / carry / arrive; region: the one whose hosts take it; gen: the item's gen the
// owner held (a tombstone's, for an arrival); destination: the block (drop, arrival, plus the
// region it was carried from) or the region carried to; r: the owner's request number; t: the
// world time it signed at. So a request moved to another region, item, gen or spot fails the
// signature; one signed for an older gen (the item moved on since) is refused as `other-gen`;
// one older than `maxAgeMs` as `expired`; and a host that took a request once refuses the same
// signature again (`replayed`; remembered while it could still be fresh, so bounded). Every
// host checks before it votes: the primary before it signs and asks its backups, each backup
// before it signs (ITEM_DROPPING carries the request), so a record a majority signed is one
// its owner asked for.
import * as v from 'valibot';
import { bytes, u32 } from '../core/codec';
import { hexToId, idToHex } from '../core/node-id';
import { derivationMark, refusedSince } from '../core/key-ids';
import type { Signer, Verifier } from '../core/signer';
import { KEY_ALGS, keyAlgCode, keyAlgSchema } from '../core/key-alg-code';
import { worldTime } from './clock-probe';

/** The owner's signature on a request: the gen `g` it held, the world time `t` it signed at, its key (alg `a`, raw `k`) and the signature `s`. */
export const ownerSigSchema = v.object({ g: u32, t: worldTime, a: keyAlgSchema, k: bytes(65), s: bytes(72) });
export type OwnerSig = v.InferOutput<typeof ownerSigSchema>;

/** A request as signed: its number `r` and the owner's signature. */
export interface OwnerRequest {
  r: number;
  o: OwnerSig;
}

/** What the owner asks, as its fields are signed. */
export type OwnerAsk =
  | { kind: 'drop'; item: string; gen: number; p: { x: number; y: number; z: number } }
  | { kind: 'carry'; item: string; gen: number; to: string }
  | { kind: 'arrive'; item: string; gen: number; p: { x: number; y: number; z: number }; from: string };

export const OWNER_REQUEST_FAULTS = ['bad-signature', 'other-gen', 'expired', 'replayed'] as const;
export type OwnerRequestFault = (typeof OWNER_REQUEST_FAULTS)[number];

export const OWNER_REQUEST_RULES = {
  /** A request signed longer ago than this (world time) is refused: a host gives up a drop after 5 s, so a fresh one is never refused. */
  maxAgeMs: 10_000,
  /** ...or this far in the future (the owner's world clock follows the hosts' within a few ms). */
  maxAheadMs: 2_000,
  /** Signatures remembered as taken (a primary's; older than maxAgeMs they are refused as expired anyway). */
  maxTaken: 512,
  /** Verdicts remembered (a backup is asked again every 500 ms until the drop is signed). */
  maxVerdicts: 256,
};

const DOMAIN = 'voxel-populi item request v1\0';

function destination(ask: OwnerAsk): unknown[] {
  if (ask.kind === 'carry') return [ask.to];
  const at = [ask.p.x, ask.p.y, ask.p.z];
  return ask.kind === 'arrive' ? [...at, ask.from] : at;
}

/** The exact bytes the owner signs: request `r` at world time `t`, of `ask`, to the hosts of `area`. */
export function requestBytes(area: { ax: number; az: number }, ask: OwnerAsk, r: number, t: number): Uint8Array {
  return new TextEncoder().encode(DOMAIN + JSON.stringify([ask.kind, area.ax, area.az, ask.item, ask.gen, ...destination(ask), r, t]));
}

/** The owner signs request `r` of `ask` at world time `t`. */
export async function signOwnerRequest(owner: Signer, area: { ax: number; az: number }, ask: OwnerAsk, r: number, t: number): Promise<OwnerRequest> {
  const s = await owner.sign(requestBytes(area, ask, r, t));
  return { r, o: { g: ask.gen, t, a: keyAlgCode(owner.alg), k: owner.publicKey, s } };
}

/** A node's check of owners' requests (one per node: shared counters), timed. */
export class OwnerRequestChecker {
  readonly stats: Record<OwnerRequestFault, number> & { checked: number; cached: number; verifyMs: number } = {
    ...(Object.fromEntries(OWNER_REQUEST_FAULTS.map((f) => [f, 0])) as Record<OwnerRequestFault, number>), checked: 0, cached: 0, verifyMs: 0,
  };
  /** Signatures (hex) of requests taken, with their world time. */
  private readonly taken = new Map<string, number>();
  private readonly verdicts = new Map<string, boolean>();
  private readonly rules: typeof OWNER_REQUEST_RULES;

  constructor(
    private readonly verify: Verifier,
    private readonly now: () => number = () => performance.now(),
    rules: Partial<typeof OWNER_REQUEST_RULES> = {},
  ) {
    this.rules = { ...OWNER_REQUEST_RULES, ...rules };
  }

  /**
   * null when owner `by` (node id, hex) signed `req` for exactly `ask` to the hosts of `area`,
   * at a world time within the window of `worldNow`; otherwise the fault, counted. `via`: the
   * node (hex) that sent it, whose derivation budget the owner's key, if new, spends (default
   * the owner: a request comes from its owner but when a primary asks its backups).
   */
  async check(area: { ax: number; az: number }, ask: OwnerAsk, by: string, req: OwnerRequest, worldNow: number, via = by): Promise<OwnerRequestFault | null> {
    if (req.o.g !== ask.gen) return this.count('other-gen');
    if (req.o.t < worldNow - this.rules.maxAgeMs || req.o.t > worldNow + this.rules.maxAheadMs) return this.count('expired');
    const data = requestBytes(area, ask, req.r, req.o.t);
    const tag = `${by} ${idToHex(data)} ${idToHex(req.o.s)}`;
    let ok = this.verdicts.get(tag);
    if (ok !== undefined) this.stats.cached++;
    else {
      const t0 = this.now();
      const mark = derivationMark();
      ok = await this.verify('node', hexToId(by), KEY_ALGS[req.o.a], req.o.k, data, req.o.s, via).catch(() => false);
      this.stats.verifyMs += this.now() - t0;
      this.stats.checked++;
      // A key refused for want of derivation budget is not a bad signature (key-ids.ts).
      if (!ok && refusedSince(mark)) return this.count('bad-signature');
      this.verdicts.set(tag, ok);
      if (this.verdicts.size > this.rules.maxVerdicts) this.verdicts.delete(this.verdicts.keys().next().value!);
    }
    return ok ? null : this.count('bad-signature');
  }

  /** The primary takes a checked request: false (counted `replayed`) when it took this signature before. */
  take(req: OwnerRequest, worldNow: number): boolean {
    const key = idToHex(req.o.s);
    if (this.taken.has(key)) {
      this.count('replayed');
      return false;
    }
    this.taken.set(key, req.o.t);
    for (const [k, t] of this.taken) {
      if (this.taken.size <= this.rules.maxTaken && t >= worldNow - this.rules.maxAgeMs) break;
      this.taken.delete(k);
    }
    return true;
  }

  private count(f: OwnerRequestFault): OwnerRequestFault {
    this.stats[f]++;
    return f;
  }
}
