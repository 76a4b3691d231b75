// Values on the network: STORE on the k closest nodes, taking a STORE as a holder, and
// reading. A value is only as good as its namespace's owner rule (record-rules.ts): a
// holder keeps a value the rule takes and that is not older than the one held, and a
// remote STORE only if it is near the key; a reader takes the highest valid version among
// up to `getAnswers` answers. (Publishing and keeping values alive: republish.ts.)
import type { Clock } from '../core/clock';
import { OWN_SOURCE } from '../core/derivation-budget';
import { compareDistance, idToHex, type NodeId } from '../core/node-id';
import type { GetOptions, GotValue, ValueFilter } from './dht';
import type { DhtOptions } from './dht-options';
import type { Lookup } from './lookups';
import { MAX_VALUE_TTL_MS, NAMESPACE_LIMITS, type Namespace, type ValueRecord } from './messages';
import type { NearView } from './near-view';
import { checkRecord, countRuleReject, type RecordCheck, type RecordPolicy } from './record-rules';
import type { RoutingTable } from './routing-table';
import type { Call } from './rpc';
import type { DhtStats, StoreRefusal } from './stats';
import { sameBytes, ValueStore } from './value-store';

/** Distinct values whose check a get remembers (the same bytes from several holders are checked once). */
const CHECKS_KEPT = 8;

export type AcceptOutcome = StoreRefusal | 'stored' | 'refreshed';

export interface ValuesDeps {
  selfId: NodeId;
  clock: Clock;
  opts: Pick<DhtOptions, 'k' | 'records' | 'unruledMaxTtlMs' | 'storeNearFactor' | 'getAnswers'>;
  stats: DhtStats;
  table: RoutingTable;
  store: ValueStore;
  lookup: Lookup;
  call: Call;
  /** Our view of who is near a key: a holder checks a STORE with it (record-rules.ts). */
  view: NearView;
}

export class Values {
  constructor(private readonly deps: ValuesDeps) {}

  /**
   * Keeps a value if its namespace's rule takes it and it is not older than the one held (or
   * the rule says it outranks the held one: `RecordCheck.replaces`); a `remote` STORE only if
   * we are near the key. The same bytes as held only refresh it
   * (no second signature check on each republish). `via`: the STORE's sender (hex), whose
   * derivation budget the rule's checks spend (record-rules.ts).
   */
  async accept(ns: Namespace, key: NodeId, rec: ValueRecord, remote: boolean, via?: string): Promise<AcceptOutcome> {
    const { deps } = this;
    if (rec.v.length > NAMESPACE_LIMITS[ns].maxValueBytes) return 'tooLarge';
    if (remote && !this.nearKey(key)) return 'notNear';
    const hex = idToHex(key);
    const held = deps.store.get(ns, hex, deps.clock.now());
    let version: number;
    let replaces = false;
    if (deps.opts.records[ns] && held && sameBytes(held.value, rec.v) && sameBytes(held.publisher, rec.pub)) version = held.version;
    else {
      const chk = await checkRecord(deps.opts.records, ns, key, rec.v, rec.pub, rec.seq, { view: deps.view, ...(held ? { held: held.value } : {}) }, via);
      if (!chk.ok) {
        countRuleReject(deps.stats.ruleRejects, ns, chk.reason);
        return 'invalid';
      }
      version = chk.version;
      replaces = !!chk.replaces && !!held;
    }
    const outcome = deps.store.put(ns, key, hex, rec, version, deps.clock.now(), this.policy(ns), via, replaces);
    return outcome === 'too-large' ? 'tooLarge' : outcome;
  }

  /**
   * FIND_NODE for key, then STORE on the k closest (and locally if we are among them). Resolves
   * with how many took it. `via`: whose record it is, for our own copy's checks (default ours:
   * OWN_SOURCE; a held value re-stored, the peer whose STORE brought it).
   */
  async storeAt(ns: Namespace, key: NodeId, rec: ValueRecord, via: string = OWN_SOURCE): Promise<{ stored: number }> {
    const { deps } = this;
    const res = await deps.lookup(key);
    const targets = res.closest.slice(0, deps.opts.k);
    let stored = 0;
    const kth = targets[deps.opts.k - 1];
    if (!kth || compareDistance(deps.selfId, kth.id, key) < 0) {
      // Our own record (a region certificate read from our store at start, published again):
      // its check, and our copy's on each read, spend no budget (`via` OWN_SOURCE).
      const outcome = await this.accept(ns, key, rec, false, via);
      if (outcome === 'stored' || outcome === 'refreshed') stored++;
    }
    const acks = await Promise.allSettled(targets.map((t) => deps.call(t.id, t.hex, { t: 'STORE', ns, key, rec })));
    for (const a of acks) if (a.status === 'fulfilled' && a.value.t === 'STORED' && a.value.ok) stored++;
    return { stored };
  }

  /**
   * The highest version among the valid values of up to `getAnswers` holders (our own copy
   * counts as one), or undefined. Every value read is checked by its namespace's rule; one
   * that fails is dropped and counted (`valuesInvalid`), never returned. `o.live`: see `getLive`.
   */
  async get(ns: Namespace, key: NodeId, accept?: ValueFilter, o: GetOptions = {}): Promise<GotValue | undefined> {
    // (A lookup of the key by disjoint paths that still counts needs no second one.)
    if (o.live && !this.deps.view.hasLive?.(key)) return this.getLive(ns, key, accept);
    const { deps } = this;
    const now = deps.clock.now();
    const held = deps.store.get(ns, idToHex(key), now);
    const check = this.checker(ns, key, accept);
    // Our own copy is checked again too: a rule may depend on time (expiry, certificates);
    // on the budget of the peer whose STORE brought it.
    let best: { rec: ValueRecord; version: number; via?: string | undefined } | undefined;
    if (held) {
      const rec = ValueStore.toRecord(held, now);
      const chk = await check(rec, held.from);
      if (chk.ok) best = { rec, version: chk.version, via: held.from };
    }
    const wanted = best ? deps.opts.getAnswers - 1 : deps.opts.getAnswers;
    if (wanted > 0) for (const answer of (await deps.lookup(key, ns, wanted, check)).values) if (!best || answer.version > best.version) best = { rec: answer.rec, version: answer.version, via: idToHex(answer.from) };
    if (!best) return undefined;
    return gotValue(best);
  }

  /**
   * `get` whose lookup is also the reader's lookup of the key by disjoint paths (GetOptions
   * `live`): no value ends it, so every path runs to the nodes nearest the key as a FIND_NODE
   * does; its answers are noted as that lookup's (near-view.ts `adopt`: the reader's rank
   * check then judges by them instead of looking the key up again), and only then does
   * `accept` judge the values that passed the namespace's rule, highest version first, our
   * own copy among them.
   */
  private async getLive(ns: Namespace, key: NodeId, accept?: ValueFilter): Promise<GotValue | undefined> {
    const { deps } = this;
    const rule = this.checker(ns, key);
    const res = await deps.lookup(key, ns, Number.MAX_SAFE_INTEGER, rule);
    deps.view.adopt?.(key, res.closest.map((c) => c.id), res.paths ?? 1);
    const found: { rec: ValueRecord; version: number; via?: string | undefined }[] = res.values.map((x) => ({ rec: x.rec, version: x.version, via: idToHex(x.from) }));
    const now = deps.clock.now();
    const held = deps.store.get(ns, idToHex(key), now);
    if (held) {
      const rec = ValueStore.toRecord(held, now);
      const chk = await rule(rec, held.from);
      if (chk.ok) found.push({ rec, version: chk.version, via: held.from });
    }
    found.sort((a, b) => b.version - a.version);
    const judged: ValueRecord[] = [];
    for (const x of found) {
      if (judged.some((r) => sameBytes(r.v, x.rec.v))) continue;
      judged.push(x.rec);
      if (!accept || (await accept(x.rec.v, x.via).catch(() => false))) return gotValue(x);
    }
    return undefined;
  }

  private policy(ns: Namespace): RecordPolicy {
    return this.deps.opts.records[ns]
      ? { equalReplaces: false, maxTtlMs: MAX_VALUE_TTL_MS }
      : { equalReplaces: true, maxTtlMs: this.deps.opts.unruledMaxTtlMs };
  }

  /** Whether fewer than storeNearFactor * k of the contacts we know are closer to key than we are. */
  nearKey(key: NodeId): boolean {
    const { deps } = this;
    const limit = deps.opts.k * deps.opts.storeNearFactor;
    if (limit <= 0) return true;
    let closer = 0;
    for (const c of deps.table.closest(key, limit)) if (compareDistance(c.id, deps.selfId, key) < 0) closer++;
    return closer < limit;
  }

  /**
   * Checks a value a lookup was answered with (the namespace's rule, then the reader's
   * `accept`); the same bytes are checked once per lookup, on the budget of the holder that
   * answered them first (`via`).
   */
  private checker(ns: Namespace, key: NodeId, accept?: ValueFilter): (rec: ValueRecord, via?: string) => Promise<RecordCheck> {
    const seen: { rec: ValueRecord; check: Promise<RecordCheck> }[] = [];
    const { records } = this.deps.opts;
    const ruled = records[ns] !== undefined;
    return (rec, via) => {
      const same = seen.find((x) => (ruled || x.rec.seq === rec.seq) && sameBytes(x.rec.v, rec.v) && sameBytes(x.rec.pub, rec.pub));
      if (same) return same.check;
      const byRule = checkRecord(records, ns, key, rec.v, rec.pub, rec.seq, undefined, via);
      const check = accept ? byRule.then(async (r): Promise<RecordCheck> => (r.ok && !(await accept(rec.v, via).catch(() => false)) ? { ok: false, reason: 'reader' } : r)) : byRule;
      if (seen.length < CHECKS_KEPT) seen.push({ rec, check });
      return check;
    };
  }
}

function gotValue(best: { rec: ValueRecord; version: number; via?: string | undefined }): GotValue {
  const record = best.rec;
  return { value: record.v, publisher: record.pub, seq: record.seq, version: best.version, ttlMs: record.ttl, ...(best.via !== undefined ? { via: best.via } : {}) };
}
