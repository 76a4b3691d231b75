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
import { SilentCandidates } from './silent-candidates';
import type { DhtStats } from './stats';

/** Parallel queries per lookup (Kademlia's alpha). */
const ALPHA = 3;
/**
 * Queries a lookup sends one candidate at most, each by another route, when the last
 * stalled (`lookupStallMs`) or failed (lookup.ts): a routed query lost to a dropping
 * forwarder or a dead link is asked again instead of costing the lookup that node.
 */
const LOOKUP_ATTEMPTS = 5;
/**
 * Queries to a lookup's target itself (a FIND_NODE for a node: its own answer is the one
 * that counts) go out this many at once, each by another route, and it gets
 * LOOKUP_ATTEMPTS times this many in all (lookup.ts). Traced misses at 1,000 nodes, 20%
 * hostile: all 4 queries the retry window allows dropped, or their answers.
 */
const LOOKUP_TARGET_COPIES = 2;
/**
 * A FIND_NODE's target keeps being asked (its copies, by other routes) for this many RPC
 * timeouts after its first query, not one (lookup.ts): every try of the first window
 * leaves before the routes it met were judged by their silence. Traced misses during
 * churn at 5,000 nodes, 20% hostile: 15 of 17 were a live target whose 8 tries all went
 * within 1.8 s and were lost. With 2: during churn 0.982 -> 0.998 there, and 0.978 -> 0.998
 * at 10,000 nodes (docs/BENCHMARKS.md "Adversarial DHT"). A target that never
 * answers holds the lookup this much longer.
 */
const LOOKUP_TARGET_WINDOWS = 2;
/**
 * A get (DhtOptions getAnswers) waits for more values at most this many lookup rounds (the
 * time to the first value over its rounds), and at most GET_WAIT_MS, after its first value.
 * Measured on 1,000 simulated nodes (20 ms links): 1 round: +80 ms get p50, 2.0 values;
 * 2 rounds: +130 ms, 2.6 values; unbounded: +150 ms, 3.0.
 */
const GET_WAIT_ROUNDS = 2;
const GET_WAIT_MS = 500;

/**
 * FIND_NODE, or with `valueNs` FIND_VALUE collecting up to `values` values that pass `check`;
 * `paths`: disjoint paths of a FIND_NODE (default `nodePaths`; near-view.ts asks for more).
 * `check` is told the holder (hex) that answered the value (record-rules.ts `via`).
 */
export type Lookup = (target: NodeId, valueNs?: Namespace, values?: number, check?: (rec: ValueRecord, via?: string) => Promise<RecordCheck>, paths?: number) => Promise<LookupResult>;

export interface LookupDeps {
  selfId: NodeId;
  clock: Clock;
  opts: Pick<DhtOptions, 'k' | 'lookupStallMs' | 'lookupGiveUpMs' | 'heartbeatTimeoutMs' | 'valuePaths' | 'nodePaths' | 'disjointReads' | 'records' | 'rpcTimeoutMs'>;
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
  // Nodes our lookups gave up on: the next ones ask them without waiting (until the heartbeat
  // timeout, by when the nodes that name them have found them dead).
  const silent = new SilentCandidates(() => deps.clock.now(), deps.opts.heartbeatTimeoutMs);
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
      alpha: ALPHA,
      selfHex,
      hexOf: idToHex,
      wantValue: valueNs !== undefined,
      // Reads of owned records go by disjoint paths: their answers can be told apart (the
      // rule), so reaching honest holders by another path defeats a path's liars.
      paths: valueNs ? (opts.records[valueNs] && opts.disjointReads.includes(valueNs) ? opts.valuePaths : 1) : (paths ?? opts.nodePaths),
      values: Math.max(1, values),
      valueWaitMs: GET_WAIT_MS,
      valueWaitRounds: GET_WAIT_ROUNDS,
      now: () => deps.clock.now(),
      stallMs: opts.lookupStallMs,
      giveUpMs: opts.lookupGiveUpMs,
      silent,
      attempts: LOOKUP_ATTEMPTS,
      targetCopies: LOOKUP_TARGET_COPIES,
      // A value read takes the values it gets; only a FIND_NODE is for the target's own answer.
      targetWindows: valueNs ? 1 : LOOKUP_TARGET_WINDOWS,
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
        const verdict = await check(reply.rec, hex);
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
