// Owner rules for DHT values, one per namespace, injected into createDhtNode
// (`options.records`): the DHT cannot know what a player record or a region record is
// (those layers sit below it), so whoever composes the node hands it a `RecordRule` per
// namespace it owns, like js-libp2p's validators/selectors. A holder checks every STORE
// with the rule before keeping the value, and a reader checks every value a lookup
// answers before taking it; the rule's `version` (never the wire `seq`) decides which of
// two values is newer.
//
// A namespace without an injected rule gets the default rule: the size cap and version =
// the publisher's seq, with two bounds so no one can pin a key (seq 0xffffffff used to
// keep a key for 48 h): an equal seq replaces (last writer wins at the top), and a
// holder keeps such a value at most `unruledMaxTtlMs` (1 h) after its last STORE.
import type { NodeId } from '../core/node-id';
import { NAMESPACE_LIMITS, type Namespace } from './messages';
import type { NearView } from './near-view';

/**
 * A rule's verdict. `replaces` (a holder's check only): the value takes the place of the one
 * held whatever their versions, because the rule found the held one outranked by it (a region
 * record whose certificate anchors nearer the key in the holder's own view: a version is only
 * what its signer claims, and keys that are no region's hosts can claim any).
 */
export type RecordCheck = { ok: true; version: number; replaces?: boolean } | { ok: false; reason: string };

/**
 * What a namespace's owner rule decides for one value: whether it is valid for `key`
 * (signed by the key's owner, say) and its version (higher replaces lower; equal
 * versions with different bytes: the held one stays). `publisher` is the STORE's
 * `pub` field: a claim, not proof (a rule that cares must find the proof in the value).
 * May be async (signature checks); a rule that throws counts as `{ ok: false, reason: 'threw' }`.
 * `reason` should be a short stable word: refusals are counted by it (`stats.ruleRejects`).
 *
 * `via` is the peer (hex) that sent the value, a STORE's sender or the holder whose answer a
 * lookup got (none: our own copy): a rule that derives node ids from keys it carries charges
 * that peer's derivation budget (core/derivation-budget.ts), so junk records from some peers
 * do not spend the budget records from others need.
 *
 * `holder` is set when a holder checks a STORE: its own view of the nodes near `key`
 * (near-view.ts) and the value it holds now, for rules whose values name the key's nodes
 * and must be believed only when those are near, or follow from what is held. A reader's
 * check has none: what it takes from a value is checked again where it is used.
 */
export interface RecordRule {
  check(key: NodeId, value: Uint8Array, publisher: NodeId, holder?: HolderContext, via?: string): Promise<RecordCheck>;
}

/** What a holder knows when it checks a STORE (RecordRule.check). */
export interface HolderContext {
  view: NearView;
  /** The value held under the key now, if any. */
  held?: Uint8Array;
}

/** The rules a node runs with, by namespace (`options.records`). */
export type RecordRules = Partial<Record<Namespace, RecordRule>>;

/** How a held value may be replaced, and how long it may be kept. */
export interface RecordPolicy {
  /** An equal version with other bytes replaces the held one (default rule), else it is stale. */
  equalReplaces: boolean;
  /** Longest lifetime a holder grants a value of this namespace. */
  maxTtlMs: number;
}

/** The default rule: size cap, version = the publisher's seq (bounded by the policy). */
export function defaultCheck(ns: Namespace, value: Uint8Array, seq: number): RecordCheck {
  if (value.length > NAMESPACE_LIMITS[ns].maxValueBytes) return { ok: false, reason: 'tooLarge' };
  return { ok: true, version: seq };
}

/** Runs the namespace's rule (or the default), never throwing. */
export async function checkRecord(rules: RecordRules, ns: Namespace, key: NodeId, value: Uint8Array, publisher: NodeId, seq: number, holder?: HolderContext, via?: string): Promise<RecordCheck> {
  if (value.length > NAMESPACE_LIMITS[ns].maxValueBytes) return { ok: false, reason: 'tooLarge' };
  const rule = rules[ns];
  if (!rule) return defaultCheck(ns, value, seq);
  try {
    const verdict = await rule.check(key, value, publisher, holder, via);
    if (verdict.ok && !Number.isFinite(verdict.version)) return { ok: false, reason: 'badVersion' };
    return verdict;
  } catch {
    return { ok: false, reason: 'threw' };
  }
}

/** Distinct `ns:reason` counters kept in stats.ruleRejects; more fold into `ns:other`. */
export const MAX_RULE_REASONS = 32;

/** Counts a rule refusal by namespace and reason (bounded number of distinct keys). */
export function countRuleReject(counts: Record<string, number>, ns: Namespace, reason: string): void {
  let k = `${ns}:${reason}`;
  if (!(k in counts) && Object.keys(counts).length >= MAX_RULE_REASONS) k = `${ns}:other`;
  counts[k] = (counts[k] ?? 0) + 1;
}
