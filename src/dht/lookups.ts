// The node's lookups: lookup.ts's iterative search run over our routing table and our
// calls, counted in `stats`. A query goes to a candidate we hold no link to through the
// node that named it (it knows a way there): lookups never dial. Value reads of owned
// records in `disjointReads` (player records) take `valuePaths` disjoint paths.
import type { Clock } from '../core/clock';
import { bucketIndex, idToHex, type NodeId } from '../core/node-id';
import type { DhtOptions } from './dht-options';
import { iterativeLookup, type LookupResult } from './lookup';
import type { Namespace, ValueRecord } from './messages';
import { countRuleReject, type RecordCheck } from './record-rules';
import type { RoutingTable } from './routing-table';
import type { Call, RequestBody } from './rpc';
import type { DhtStats } from './stats';

/**
 * FIND_NODE, or with `valueNs` FIND_VALUE collecting up to `values` values that pass `check`;
 * `paths`: disjoint paths of a FIND_NODE (default `nodePaths`; near-view.ts asks for more).
 */
export type Lookup = (target: NodeId, valueNs?: Namespace, values?: number, check?: (rec: ValueRecord) => Promise<RecordCheck>, paths?: number) => Promise<LookupResult>;

export interface LookupDeps {
  selfId: NodeId;
  clock: Clock;
  opts: Pick<DhtOptions, 'k' | 'alpha' | 'getWaitMs' | 'getWaitRounds' | 'lookupStallMs' | 'valuePaths' | 'nodePaths' | 'disjointReads' | 'records' | 'lookupAttempts' | 'lookupTargetCopies' | 'lookupTargetWindows' | 'rpcTimeoutMs'>;
  stats: DhtStats;
  table: RoutingTable;
  /** Whether we hold a live link to hex (then a query goes straight there). */
  linked(hex: string): boolean;
  call: Call;
  /** Whether a node named in an answer may take part (id-gate.ts); without it, every one may. */
  admit?: (id: NodeId) => boolean;
}

export function nodeLookup(deps: LookupDeps): Lookup {
  const selfHex = idToHex(deps.selfId);
  const admit = deps.admit;
  const named = admit ? (nodes: NodeId[]) => nodes.filter((id) => admit(id)) : (nodes: NodeId[]) => nodes;
  return async (target, valueNs, values = 1, check, paths) => {
    const { opts, stats } = deps;
    stats.lookups++;
    if (valueNs) stats.getLookups++;
    const b = bucketIndex(deps.selfId, target);
    if (b >= 0) deps.table.touch(b, deps.clock.now());
    const res = await iterativeLookup({
      target,
      seeds: deps.table.closest(target, opts.k),
      k: opts.k,
      alpha: opts.alpha,
      selfHex,
      hexOf: idToHex,
      wantValue: valueNs !== undefined,
      // Reads of owned records go by disjoint paths: their answers can be told apart (the
      // rule), so reaching honest holders by another path defeats a path's liars.
      paths: valueNs ? (opts.records[valueNs] && opts.disjointReads.includes(valueNs) ? opts.valuePaths : 1) : (paths ?? opts.nodePaths),
      values: Math.max(1, values),
      valueWaitMs: opts.getWaitMs,
      valueWaitRounds: opts.getWaitRounds,
      now: () => deps.clock.now(),
      stallMs: opts.lookupStallMs,
      attempts: opts.lookupAttempts,
      targetCopies: opts.lookupTargetCopies,
      // A value read takes the values it gets; only a FIND_NODE is for the target's own answer.
      targetWindows: valueNs ? 1 : opts.lookupTargetWindows,
      retryWithinMs: opts.rpcTimeoutMs,
      // A query over a link of ours has no other way there; a routed one has.
      retryable: (hex) => !deps.linked(hex),
      setTimer: (fn, ms) => void deps.clock.setTimeout(fn, ms),
      query: async (id, hex, informer, attempt) => {
        const req: RequestBody = valueNs ? { t: 'FIND_VALUE', ns: valueNs, key: target } : { t: 'FIND_NODE', target };
        const reply = await deps.call(id, hex, req, informer && !deps.linked(hex) ? [informer] : [], attempt);
        // A read-only node is nobody's closest node, whoever named it (read-only-peers.ts):
        // what it names is used, but it never ends up in a lookup's result.
        if (reply.ro === 1) return { nodes: reply.t === 'NODES' || reply.t === 'VALUE' ? named(reply.nodes) : [], readOnly: true };
        if (reply.t === 'NODES') return { nodes: named(reply.nodes) };
        if (reply.t !== 'VALUE') return { nodes: [] };
        const nodes = named(reply.nodes);
        if (!reply.rec || !valueNs || !check) return { nodes };
        const verdict = await check(reply.rec);
        if (!verdict.ok) {
          stats.valuesInvalid++;
          countRuleReject(stats.ruleRejects, valueNs, verdict.reason);
          return { nodes };
        }
        stats.getAnswers++;
        return { nodes, value: reply.rec, version: verdict.version };
      },
    });
    stats.lookupRpcs += res.queries;
    stats.lookupHops += Math.max(0, res.hops);
    return res;
  };
}
