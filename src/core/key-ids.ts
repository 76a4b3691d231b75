// Which id a public key stands for, by the kind of key. A node id is the first 160 bits of
// scrypt(public key, "vp-node-id-v2"): a node's place in the DHT is where it hosts and
// grants, so each candidate key a grinder tries for a place costs one memory-hard hash, as
// it costs the honest tab (docs/TRUST.md "Ids that cost work"); a cheap id let an attacker
// add the base point to a running point natively and hash ~10^7 keys a second. A player id
// is the first 160 bits of SHA-256(public key): passes and saved players hang on it, and
// its price is the player pass. Every place that matches a key to an id names the kind
// (a required argument), so a node key cannot be checked as a player's or the other way.
import { DerivationBudget, OWN_SOURCE, UNATTRIBUTED } from './derivation-budget';
import type { DerivationQueue } from './derivation-queue';
import { KeyMemory } from './key-memory';
import { ID_BYTES, idEquals, idFromSha256, idToHex, type NodeId } from './node-id';
import { scryptSync } from './scrypt';

export type KeyKind = 'node' | 'player';

/** Domain separation: the node id's hash can be mistaken for no other scrypt. */
export const NODE_ID_CONTEXT = new TextEncoder().encode('vp-node-id-v2');

/**
 * scrypt's cost for a node id: N * r * 128 bytes = 128 KiB of memory per key, measured p50
 * 0.44-0.51 ms in plain JS in Node (this file's scrypt), 0.70 ms on a Chromium page, and
 * ~0.6-0.7 ms natively (node:crypto, OpenSSL, no faster) on the project's shared 2-core
 * machine at a load of 13-33 (`npm run bench -- id_work`, docs/TRUST.md). A tab pays it once
 * per key it meets (remembered below) and ~2^ID_WORK_BITS times to mint its own id, so N is
 * held where one check stays under a millisecond (N = 256 doubled it for ~10% off a mint);
 * the work is in the bits.
 */
export const NODE_ID_SCRYPT = { N: 128, r: 8, dkLen: 32 } as const;

/** The node id of a raw public key, computed (never remembered): one scrypt. */
export function deriveNodeId(publicKey: Uint8Array): NodeId {
  return scryptSync(publicKey, NODE_ID_CONTEXT, NODE_ID_SCRYPT).slice(0, ID_BYTES);
}

/** Keys whose node ids were derived, remembered (least recently used dropped first). */
const KEYS_KEPT = 2048;

/**
 * Of KEYS_KEPT, how many keys one source (the link or address a key came over) may have put
 * in memory: past it, its new keys are derived (on its budget) but not remembered. Only a
 * key that stands for the worked id it came with is remembered at all (junk keys cost an
 * attacker nothing and would push honest keys out at the budget's rate); with this bound,
 * pushing them out takes KEYS_KEPT / KEYS_KEPT_PER_SOURCE sources too, each bringing that
 * many ids minted with work (core/id-work.ts). An honest peer brings a few keys: its own,
 * a certificate's grants, a lookup's answers, the origins of frames it routes to us.
 */
export const KEYS_KEPT_PER_SOURCE = 256;

/**
 * Keys kept apart from the KEYS_KEPT least recently used (key-memory.ts): those of ids a part
 * of this realm still needs (`guardKeys`: its own id, its routing table's contacts and linked
 * peers, the host sets of the regions it holds or follows). A source sending only keys that
 * stand for their ids, each minted with work, keeps 256 in memory; 9 such sources (2,304
 * minted ids, ~2^9 scrypts each: ~1.2 million, ~10 CPU-minutes at the measured 0.5 ms)
 * pushed every other key out, an honest host's too, and each then cost a derivation again
 * on the budget the attacker keeps spent. An attacker's own ids are guarded only as far as
 * it is linked, a contact or a host of a region we hold or follow, each bounded
 * (docs/TRUST.md "Keys a node has not met").
 */
export const KEYS_GUARDED = 1024;

/**
 * A part of the node that still needs some ids' keys (its own, its contacts', its links', the
 * hosts' of regions it holds or follows): `needsKey` is asked only as the memory lets a key
 * go (at most at the derivation rate), so it must be quick.
 */
export interface KeyGuard {
  needsKey(idHex: string): boolean;
}

/** The parts that guard keys, held weakly: a part dropped without unregistering is not kept alive by this. */
const guards = new Set<WeakRef<KeyGuard>>();

/** Registers `g`: the keys of ids it needs are kept apart when the least recently used memory lets them go. Returns the unregistering. */
export function guardKeys(g: KeyGuard): () => void {
  const ref = new WeakRef(g);
  guards.add(ref);
  return () => void guards.delete(ref);
}

/** Whether any part of this realm still needs `id`'s key (`guardKeys`). */
export function keyGuarded(id: NodeId): boolean {
  if (guards.size === 0) return false;
  const hex = idToHex(id);
  for (const ref of guards) {
    const g = ref.deref();
    if (!g) guards.delete(ref);
    else if (g.needsKey(hex)) return true;
  }
  return false;
}

/**
 * What matching keys to node ids has cost this realm: keys derived (each one scrypt) and
 * the ms spent on them; `hits` counts keys answered from memory. A tab pays one
 * derivation per new peer it links to or hears signed frames from. `junk`: keys derived that
 * did not stand for the id they came with (not remembered); `unkept`: keys not remembered
 * because their source had KEYS_KEPT_PER_SOURCE in memory; `sheltered`: guarded keys the
 * least recently used memory let go, kept apart (KEYS_GUARDED); `unsheltered`: guarded keys
 * dropped past KEYS_GUARDED.
 */
export const nodeIdDerivations = { keys: 0, ms: 0, hits: 0, refused: 0, junk: 0, unkept: 0, sheltered: 0, unsheltered: 0 };

/** Keys whose node ids were derived, remembered (key-memory.ts). */
const memory = new KeyMemory({ kept: KEYS_KEPT, perSource: KEYS_KEPT_PER_SOURCE, guarded: KEYS_GUARDED }, keyGuarded, nodeIdDerivations);

/** Keys remembered now (at most KEYS_KEPT + KEYS_GUARDED). */
export const nodeIdsKept = (): number => memory.size;

/**
 * The realm's budget for deriving keys it has not met, from what others send
 * (derivation-budget.ts): past it a key is judged unproven without its scrypt.
 */
export const nodeIdBudget = new DerivationBudget();

const tagOf = (publicKey: Uint8Array) => String.fromCharCode.apply(null, publicKey as unknown as number[]);

/** The node id of `publicKey`: one scrypt the first time a key is met, remembered after. For keys this realm holds or chose to load; a key someone sent goes through `sentNodeIdOfKey`. */
export function nodeIdOfKey(publicKey: Uint8Array): NodeId {
  return rememberedOrDerived(publicKey, tagOf(publicKey))!;
}

/**
 * The node id of a key someone sent (`via`: the link or address it came from; OWN_SOURCE: a
 * record of our own, no budget), or undefined
 * when the key is not remembered and `via`'s derivation budget (or the realm's) is spent:
 * such a key is judged unproven, and not remembered, so it is derived once there is budget.
 * With `claimed` (the id the key came with) a key that does not stand for it is junk: not
 * remembered, and told to the budget (`via` then takes no part of the reserve a while)
 * unless `forwarded` (`via` passed on a frame it did not check: a routed message's hop).
 */
export function sentNodeIdOfKey(publicKey: Uint8Array, via: string = UNATTRIBUTED, budget: DerivationBudget = nodeIdBudget, claimed?: NodeId, forwarded = false): NodeId | undefined {
  return rememberedOrDerived(publicKey, tagOf(publicKey), budget, via, claimed, forwarded);
}

/**
 * The node id of a key someone sent as `claimed`'s, derived once `queue` gives it a turn
 * (derivation-queue.ts: it waits in line, never refused for want of budget while it waits);
 * undefined, the key judged unproven and not remembered, when the line is full or `alive`
 * says false (the caller's connection died) as its turn comes. Keys remembered are answered
 * at once. A key that does not stand for `claimed` is not remembered: junk keys at the line's
 * rate would push the keys of honest peers out of memory.
 */
export async function queuedNodeIdOfKey(publicKey: Uint8Array, claimed: NodeId, queue: DerivationQueue, alive?: () => boolean): Promise<NodeId | undefined> {
  const tag = tagOf(publicKey);
  const known = memory.get(tag);
  if (known) {
    nodeIdDerivations.hits++;
    return known;
  }
  if (!(await queue.turn(alive))) {
    nodeIdDerivations.refused++;
    return undefined;
  }
  const kept = memory.get(tag); // derived while this one waited
  if (kept) return kept;
  const id = derivedNow(publicKey);
  if (idEquals(id, claimed)) memory.keep(tag, id);
  else nodeIdDerivations.junk++;
  return id;
}

function rememberedOrDerived(publicKey: Uint8Array, tag: string, budget?: DerivationBudget, via?: string, claimed?: NodeId, forwarded = false): NodeId | undefined {
  const kept = memory.get(tag);
  if (kept) {
    nodeIdDerivations.hits++;
    return kept;
  }
  // What a node checks of its own spends no budget: no peer can have a key checked on it.
  if (budget && via !== OWN_SOURCE && !budget.take(via)) {
    nodeIdDerivations.refused++;
    return undefined;
  }
  const id = derivedNow(publicKey);
  if (claimed && !idEquals(id, claimed)) {
    nodeIdDerivations.junk++;
    if (!forwarded) budget?.junk(via);
    return id;
  }
  memory.keep(tag, id, budget ? via : undefined);
  return id;
}

/** One scrypt, counted. */
function derivedNow(publicKey: Uint8Array): NodeId {
  const t0 = performance.now();
  const id = deriveNodeId(publicKey);
  nodeIdDerivations.ms += performance.now() - t0;
  nodeIdDerivations.keys++;
  return id;
}

/**
 * A mark of the keys judged unproven for want of budget so far; `refusedSince(mark)` says
 * whether any was since. A signature check that failed meanwhile may have failed for want
 * of budget, not of a signature, and its verdict is not remembered (CertChecker, proof and
 * request checkers): remembered, it would refuse an honest frame for as long as it stayed
 * cached, and an attacker can keep the budget spent.
 */
export const derivationMark = (): number => nodeIdDerivations.refused;
export const refusedSince = (mark: number): boolean => nodeIdDerivations.refused !== mark;

/** Marks `id` as the node id of `publicKey` (a minter that just derived it: the first check is free). */
export function rememberNodeId(publicKey: Uint8Array, id: NodeId): void {
  memory.keep(tagOf(publicKey), id);
}

/** The id a raw public key of `kind` stands for (a key this realm holds or loads: no budget). */
export function idOfPublicKey(kind: KeyKind, publicKey: Uint8Array): Promise<NodeId> {
  return kind === 'node' ? Promise.resolve(nodeIdOfKey(publicKey)) : idFromSha256(publicKey);
}

/** The id a key someone sent (as `claimed`'s, if given; `forwarded`: see `sentNodeIdOfKey`) stands for, as `idOfPublicKey`; undefined when a node key is past `via`'s derivation budget. */
export function idOfSentKey(kind: KeyKind, publicKey: Uint8Array, via?: string, budget?: DerivationBudget, claimed?: NodeId, forwarded = false): Promise<NodeId | undefined> {
  return kind === 'node' ? Promise.resolve(sentNodeIdOfKey(publicKey, via, budget, claimed, forwarded)) : idFromSha256(publicKey);
}

/** True when `publicKey`, a key someone sent over `via`, as a key of `kind` stands for `claimed` (false past the derivation budget). */
export async function publicKeyMatchesId(kind: KeyKind, publicKey: Uint8Array, claimed: NodeId, via?: string): Promise<boolean> {
  const id = await idOfSentKey(kind, publicKey, via, undefined, claimed);
  return id !== undefined && idEquals(id, claimed);
}
