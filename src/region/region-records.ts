// What a region leaves in the DHT: the location record ('chunk' namespace: who is primary
// in which epoch) and the edit log ('edits' namespace: the entries, so the region outlives
// its hosts). Both are signed by the primary that publishes them and carry its epoch
// certificate (epoch-cert.ts), so nobody but a certified primary of the region can write
// them (a forged record is dropped by every reader):
//
// - LOCATION {cert, r, pk?, sig}: `sig` by cert.primary over
//   "voxel-populi location v1\0" + grantBytes(key, cert) + u32 r. `r` is the primary's
//   revision (a counter of its publications).
// - EDITS {key, i, n, v, cert, pk?, sig, entries}: part `i` of `n` of the log of region
//   `key` at state version `v`; part 0 (the head) is stored under the region key, part i
//   under SHA-256("region-edits:" + key hex + ":" + i), so a part names its region and
//   index and a rule can recompute its storage key. `sig` by cert.primary over
//   "voxel-populi edits v1\0" + grantBytes(key, cert) + u8 i + u8 n + u32 v.e + u32 v.s + entries.
//
// grantBytes (the certificate's canonical terms: region key, epoch, primary, host sets)
// binds the record to its region and certificate; the domain strings keep a record
// signature from ever passing for a grant or for the other record. `pk` (the signer's
// raw key) is left out when the certificate holds the primary's own grant (always, for a
// claimant), whose key is used instead. The certificate travels with only the grants it
// needs (a majority of each set), so a location record fits the 'chunk' cap.
//
// Version (what the DHT orders values by, record-rules.ts): certificate epoch * 2^28 +
// a revision within the epoch (LOCATION: r; EDITS: 1 + v.s when v is a stamp of the
// certificate's epoch, else 0). A newer epoch's record always wins; within an epoch the
// newer one. `locationRule`/`editsRule` are the owner rules holders and readers run;
// getLocation/getEdits check again when handed a `RecordVerifier` (a reader need not
// trust the node it reads through), and drop entries stamped after the certificate.
//
// The 'edits' value is capped at NAMESPACE_LIMITS.edits.maxValueBytes (64 KiB): a log
// larger than one value is split into parts; at most MAX_EDIT_PARTS parts (about 80k
// edited blocks); beyond that only the newest entries are published (hosts keep all).
import * as v from 'valibot';
import { bytes, defineCodec, u32 } from '../core/codec';
import { concatBytes } from '../core/concat-bytes';
import { compareDistance, ID_BYTES, idEquals, idFromSha256, idToHex, type NodeId } from '../core/node-id';
import type { Signer, Verifier } from '../core/signer';
import { KEY_ALGS, keyAlgCode, keyAlgSchema } from '../core/key-alg-code';
import type { Dht } from '../dht/dht';
import { NAMESPACE_LIMITS } from '../dht/messages';
import type { NearView } from '../dht/near-view';
import type { RecordCheck, RecordRule } from '../dht/record-rules';
import { certSchema, certShapeFault, grantBytes, hostGrantsNeeded, quorum, type EpochCert } from './epoch-cert';
import type { CertChecker } from './cert-checker';
import type { FreshRule } from './cert-anchor';
import { judgeAtHolder } from './record-holding';
import { type KeyHash } from './region-key';
import { compareStamp, decodeEntries, encodeEntries, ENTRY_BYTES, obeysWorldRules, type Entry, type Stamp } from './region-state';

export const MAX_EDIT_PARTS = 16;
/** Room an 'edits' value keeps for everything but its entries (the certificate, key, signature). */
const EDITS_ENVELOPE_BYTES = 4096;
/** Entries per 'edits' value. */
export const ENTRIES_PER_VALUE = Math.floor((NAMESPACE_LIMITS.edits.maxValueBytes - EDITS_ENVELOPE_BYTES) / ENTRY_BYTES);
/** Revisions within one epoch: version = epoch * REVISIONS + revision (epochs <= MAX_EPOCH keep it below 2^53). */
const REVISIONS = 2 ** 28;

const id = bytes(ID_BYTES, ID_BYTES);
const stamp = v.object({ e: u32, s: u32 });
const publicKey = v.object({ a: keyAlgSchema, k: bytes(65) });
const sig = bytes(72);
const recordCodec = defineCodec(
  {
    // Codes 1-3 were the unsigned records: refused as unknown now.
    LOCATION: [4, v.object({ cert: certSchema, r: u32, pk: v.optional(publicKey), sig })],
    EDITS: [
      5,
      v.object({
        key: id,
        i: v.pipe(u32, v.maxValue(MAX_EDIT_PARTS - 1)),
        n: v.pipe(u32, v.minValue(1), v.maxValue(MAX_EDIT_PARTS)),
        v: stamp,
        cert: certSchema,
        pk: v.optional(publicKey),
        sig,
        entries: bytes(NAMESPACE_LIMITS.edits.maxValueBytes),
      }),
    ],
  },
  { maxFrame: NAMESPACE_LIMITS.edits.maxValueBytes },
);

export interface LocationRecord {
  primary: NodeId;
  epoch: number;
  hosts: NodeId[];
  /** The certificate the record carries (checked when read with a RecordVerifier). */
  cert: EpochCert;
  revision: number;
}

/** What a primary signs its records with: its identity and its certificate for the region. */
export interface RecordAuth {
  signer: Signer;
  cert: EpochCert;
}

/** What checks a record: certificates, and the record's own signature. */
export interface RecordVerifier {
  certs: CertChecker;
  verify: Verifier;
  /** How part keys are hashed (region-key.ts KeyHash; WebCrypto when absent). */
  hash?: KeyHash | undefined;
}

type RecordDht = Pick<Dht, 'put' | 'get'>;

export function locationVersion(epoch: number, revision: number): number {
  return epoch * REVISIONS + Math.min(revision, REVISIONS - 1);
}

/** Version of an edit log at state version `v` under a certificate of epoch `epoch` (v.e <= epoch). */
export function editsVersion(epoch: number, v: Stamp): number {
  return epoch * REVISIONS + (v.e === epoch ? 1 + Math.min(v.s, REVISIONS - 2) : 0);
}

/** Wire seq (orders values only on nodes without the rules): a stamp's, clamped to u32. */
export function stampSeq(s: Stamp): number {
  return Math.min(0xffffffff, s.e * 2 ** 20 + Math.min(s.s, 2 ** 20 - 1));
}

const text = new TextEncoder();
const LOCATION_DOMAIN = text.encode('voxel-populi location v1\0');
const EDITS_DOMAIN = text.encode('voxel-populi edits v1\0');

function u32be(...xs: number[]): Uint8Array {
  const b = new Uint8Array(4 * xs.length);
  const dv = new DataView(b.buffer);
  xs.forEach((x, i) => dv.setUint32(4 * i, x));
  return b;
}

/** The bytes a primary signs for a location record of region `key`. */
export function locationBytes(key: NodeId, cert: EpochCert, revision: number): Uint8Array {
  return concatBytes(LOCATION_DOMAIN, grantBytes(key, cert), u32be(revision));
}

/** The bytes a primary signs for part `i` of `n` of region `key`'s edit log. */
export function editsBytes(key: NodeId, cert: EpochCert, i: number, n: number, version: Stamp, entries: Uint8Array): Uint8Array {
  return concatBytes(EDITS_DOMAIN, grantBytes(key, cert), new Uint8Array([i, n]), u32be(version.e, version.s), entries);
}

/** Storage key of part i (i >= 1) of region `key`'s edit log. */
export function editsPartKey(key: NodeId, i: number, hash: KeyHash = idFromSha256): Promise<NodeId> {
  return hash(`region-edits:${idToHex(key)}:${i}`);
}

/**
 * The certificate with only the grants it needs: the primary's own, then a majority of its
 * host set (all of it for a chain's root: epoch-cert.ts `chainRoot`) and (unless a rebase) of the previous set and of each pending set, preferring
 * grants that count for several, then those of hosts nearest `key` (a reader with no chain
 * of its own needs the grant of one of the 2 nodes it finds nearest: cert-checker.ts
 * `nearestNamed`). Falls back to the whole certificate if the trimmed one would not hold.
 */
export function compactCert(c: EpochCert, key?: NodeId): EpochCert {
  const inSet = (list: readonly NodeId[], x: NodeId) => list.some((h) => idEquals(h, x));
  const sets: (readonly NodeId[])[] = [c.hosts, ...(c.rebase ? [] : [...(c.prev ? [c.prev.hosts] : []), ...(c.pend ?? []).map((q) => q.hosts)])];
  const need = sets.map((s, i) => (i === 0 ? hostGrantsNeeded(c) : quorum(s.length)));
  const rank = (g: EpochCert['grants'][number]) => (idEquals(g.id, c.primary) ? sets.length + 1 : 0) + sets.filter((s) => inSet(s, g.id)).length;
  const kept: EpochCert['grants'] = [];
  for (const g of [...c.grants].sort((a, b) => rank(b) - rank(a) || (key ? compareDistance(a.id, b.id, key) : 0))) {
    const counts = sets.map((s, i) => inSet(s, g.id) && need[i]! > 0);
    if (!idEquals(g.id, c.primary) && !counts.some(Boolean)) continue;
    kept.push(g);
    sets.forEach((s, i) => {
      if (inSet(s, g.id)) need[i]!--;
    });
  }
  const out = { ...c, grants: kept };
  return certShapeFault(out) ? c : out;
}

/** The signer's key entry when the certificate holds no grant by it with the same key. */
function ownKey(signer: Signer, cert: EpochCert): { pk?: { a: 0 | 1; k: Uint8Array } } {
  const g = cert.grants.find((x) => idEquals(x.id, signer.id));
  if (g && g.k.length === signer.publicKey.length && g.k.every((b, i) => b === signer.publicKey[i])) return {};
  return { pk: { a: keyAlgCode(signer.alg), k: signer.publicKey } };
}

function checkSigner(auth: RecordAuth, key: NodeId): EpochCert {
  if (!idEquals(auth.signer.id, auth.cert.primary)) throw new Error('only the certified primary signs region records');
  return compactCert(auth.cert, key);
}

type Fault = { ok: false; reason: string };

/**
 * How a record's certificate is checked (cert-anchor.ts): by a holder (`holding`), against
 * its view of who is near the key and the certificate of the record it holds (`known`), by
 * chain and then by rank (record-holding.ts), else learnt; by a reader,
 * learnt as a host learns one (hosts learning the chain: the default) or anchored near the
 * key in the reader's own view (voters taking a region's set as proof of an item's carry).
 * A player believes only the certificate its primary shows it. `via`: the peer (hex) that
 * sent the record, whose derivation budget keys not met before spend (record-rules.ts).
 */
export type RecordAnchor = { view?: NearView; known?: EpochCert | undefined; fresh: FreshRule; via?: string | undefined; holding?: boolean };

/**
 * Whether `sig` is cert.primary's over `data` and the certificate is valid for `region`; for a
 * holder (`anchor.holding`, `known` the certificate of the record it holds), whether the record
 * takes the held one's place at any version (record-holding.ts).
 */
async function authentic(rv: RecordVerifier, region: NodeId, cert: EpochCert, pk: { a: 0 | 1; k: Uint8Array } | undefined, data: Uint8Array, s: Uint8Array, anchor: RecordAnchor): Promise<Fault | { replaces: boolean }> {
  if (certShapeFault(cert)) return { ok: false, reason: 'badCert' };
  const g = pk ?? cert.grants.find((x) => idEquals(x.id, cert.primary));
  if (!g) return { ok: false, reason: 'noKey' };
  if (!(await rv.verify('node', cert.primary, KEY_ALGS[g.a], g.k, data, s, anchor.via))) return { ok: false, reason: 'badSignature' };
  if (anchor.holding && anchor.view) {
    const held = await judgeAtHolder(rv.certs, region, cert, anchor.known, anchor.view, anchor.via);
    return held.ok ? { replaces: held.replaces } : held;
  }
  const fault = await rv.certs.check(region, cert, { ...(anchor.view ? { view: anchor.view } : {}), known: anchor.known, fresh: anchor.fresh, via: anchor.via });
  if (fault) return { ok: false, reason: fault === 'unanchored' ? 'unanchored' : 'badCert' };
  return { replaces: false };
}

type Decoded<T extends 'LOCATION' | 'EDITS'> = Extract<ReturnType<typeof recordCodec.decode>, { t: T }>;

function decodeAs<T extends 'LOCATION' | 'EDITS'>(t: T, value: Uint8Array): Decoded<T> | undefined {
  try {
    const m = recordCodec.decode(value);
    return m.t === t ? (m as Decoded<T>) : undefined;
  } catch {
    return undefined;
  }
}

/** Checks a location record stored under region `key`; with its version and contents when valid. */
export async function checkLocation(rv: RecordVerifier, key: NodeId, value: Uint8Array, anchor: RecordAnchor = { fresh: 'learn' }): Promise<Fault | { ok: true; version: number; rec: LocationRecord; replaces: boolean }> {
  if (value.length > NAMESPACE_LIMITS.chunk.maxValueBytes) return { ok: false, reason: 'tooLarge' };
  const m = decodeAs('LOCATION', value);
  if (!m) return { ok: false, reason: 'malformed' };
  const a = await authentic(rv, key, m.cert, m.pk, locationBytes(key, m.cert, m.r), m.sig, anchor);
  if ('ok' in a) return a;
  return { ok: true, version: locationVersion(m.cert.e, m.r), rec: toLocation(m), replaces: a.replaces };
}

/** Checks an edit-log value (head or part) stored under `storageKey`. */
export async function checkEdits(rv: RecordVerifier, storageKey: NodeId, value: Uint8Array, anchor: RecordAnchor = { fresh: 'learn' }): Promise<Fault | { ok: true; version: number; rec: Decoded<'EDITS'>; replaces: boolean }> {
  const m = decodeAs('EDITS', value);
  if (!m) return { ok: false, reason: 'malformed' };
  if (m.i >= m.n) return { ok: false, reason: 'badIndex' };
  if (compareStamp(m.v, { e: m.cert.e + 1, s: 0 }) >= 0) return { ok: false, reason: 'futureStamp' };
  if (!idEquals(storageKey, m.i === 0 ? m.key : await editsPartKey(m.key, m.i, rv.hash))) return { ok: false, reason: 'wrongKey' };
  const a = await authentic(rv, m.key, m.cert, m.pk, editsBytes(m.key, m.cert, m.i, m.n, m.v, m.entries), m.sig, anchor);
  if ('ok' in a) return a;
  return { ok: true, version: editsVersion(m.cert.e, m.v), rec: m, replaces: a.replaces };
}

const ruleOf = (check: (key: NodeId, value: Uint8Array, anchor: RecordAnchor) => Promise<Fault | { ok: true; version: number; replaces: boolean }>): RecordRule => ({
  async check(key, value, _publisher, holder, via) {
    const r = await check(key, value, holder ? { view: holder.view, known: holder.held ? heldCert(holder.held) : undefined, fresh: 'learn', via, holding: true } : { fresh: 'learn', via });
    return r.ok ? ({ ok: true, version: r.version, ...(r.replaces ? { replaces: true } : {}) } satisfies RecordCheck) : r;
  },
});

/** The certificate of a held location record or edit-log part (a new one must follow from it). */
function heldCert(held: Uint8Array): EpochCert | undefined {
  try {
    const m = recordCodec.decode(held);
    return m.cert;
  } catch {
    return undefined;
  }
}

/** The 'chunk' namespace's owner rule: a location record signed by a primary certified for the key. */
export function locationRule(certs: CertChecker, verify: Verifier): RecordRule {
  return ruleOf((key, value, anchor) => checkLocation({ certs, verify }, key, value, anchor));
}

/** The 'edits' namespace's owner rule: a log part signed by a primary certified for the region it names, under that part's key. */
export function editsRule(certs: CertChecker, verify: Verifier, hash?: KeyHash): RecordRule {
  return ruleOf((key, value, anchor) => checkEdits({ certs, verify, hash }, key, value, anchor));
}

/** Both region record rules, for a DHT node's `options.records`. */
export function regionRecordRules(certs: CertChecker, verify: Verifier, hash?: KeyHash): { chunk: RecordRule; edits: RecordRule } {
  return { chunk: locationRule(certs, verify), edits: editsRule(certs, verify, hash) };
}

function toLocation(m: Decoded<'LOCATION'>): LocationRecord {
  return { primary: m.cert.primary, epoch: m.cert.e, hosts: m.cert.hosts, cert: m.cert, revision: m.r };
}

/** Publishes the location record: `auth.signer` must be `auth.cert`'s primary. */
export async function putLocation(dht: RecordDht, key: NodeId, auth: RecordAuth, revision: number): Promise<void> {
  const cert = checkSigner(auth, key);
  const r = Math.min(revision, 0xffffffff);
  const s = await auth.signer.sign(locationBytes(key, cert, r));
  const value = recordCodec.encode({ t: 'LOCATION', cert, r, ...ownKey(auth.signer, cert), sig: s });
  await dht.put('chunk', key, value, { seq: Math.min(0xffffffff, cert.e * 1024 + Math.min(r, 1023)) });
}

/**
 * `check` run once per value: the value Dht.get returns is one its `accept` checked already
 * (the same array), so it is looked up instead of verified a second time. `via`: the peer
 * that sent it (ValueFilter), told to the first check.
 */
function checkedOnce<T>(check: (v: Uint8Array, via?: string) => T): (v: Uint8Array, via?: string) => T {
  const done = new Map<Uint8Array, T>();
  return (v, via) => {
    if (!done.has(v)) done.set(v, check(v, via));
    return done.get(v)!;
  };
}

/** `anchor`, with `via` (the peer that sent the value) when it names none. */
const sentBy = (anchor: RecordAnchor, via: string | undefined): RecordAnchor => (anchor.via === undefined && via !== undefined ? { ...anchor, via } : anchor);
/**
 * The region's location record, or undefined. The DHT node's rule has checked it already
 * (every tab and simulated node runs locationRule); with `rv` it is checked here again, on
 * the derivation budget of the peer that sent it (`via` of the record returned too: a
 * reader that checks its certificate again charges that peer). `keep` (with `rv`): records
 * the reader leaves out even when valid, judged inside the read like the check.
 */
export async function getLocation(dht: Pick<Dht, 'get'>, key: NodeId, rv?: RecordVerifier, fresh: FreshRule | RecordAnchor = 'learn', keep?: (rec: LocationRecord) => boolean): Promise<(LocationRecord & { via?: string }) | undefined> {
  const anchor = typeof fresh === 'string' ? { fresh } : fresh;
  // The reader's check runs inside the DHT read (Dht.get `accept`): a record it would refuse,
  // at a higher version, does not hide one it believes (nor one `keep` leaves out).
  const once = rv ? checkedOnce((v, via) => checkLocation(rv, key, v, sentBy(anchor, via))) : undefined;
  const accept = once
    ? async (v: Uint8Array, via?: string) => {
        const r = await once(v, via);
        return r.ok && (!keep || keep(r.rec));
      }
    : undefined;
  // A reader with no certificate of the region judges the first against its own lookup of
  // the key by disjoint paths (cert-checker.ts): this read's lookup, run to its end, is that
  // lookup (Dht.get `live`), so the check of its record and of the snapshot waits for no other.
  const got = await dht.get('chunk', key, accept, rv && anchor.fresh === 'near' && !anchor.known && !anchor.view ? { live: true } : undefined);
  if (!got) return undefined;
  const via = got.via !== undefined ? { via: got.via } : {};
  if (once) {
    const r = await once(got.value, got.via);
    return r.ok && (!keep || keep(r.rec)) ? { ...r.rec, ...via } : undefined;
  }
  const m = decodeAs('LOCATION', got.value);
  return m && !certShapeFault(m.cert) ? { ...toLocation(m), ...via } : undefined;
}

/**
 * Publishes the region's entries (newest first when capped), signed: `auth.signer` must be
 * `auth.cert`'s primary and `version` (the state's version) no later than its epoch.
 * Resolves with the number of entries left out.
 */
export async function putEdits(dht: RecordDht, key: NodeId, auth: RecordAuth, version: Stamp, entries: Entry[], hash: KeyHash = idFromSha256): Promise<number> {
  const cert = checkSigner(auth, key);
  const cap = ENTRIES_PER_VALUE * MAX_EDIT_PARTS;
  const list = entries.length > cap ? [...entries].sort((a, b) => compareStamp(b, a)).slice(0, cap) : entries;
  const n = Math.max(1, Math.ceil(list.length / ENTRIES_PER_VALUE));
  const seq = stampSeq(version);
  const pk = ownKey(auth.signer, cert);
  const value = async (i: number) => {
    const body = encodeEntries(list.slice(i * ENTRIES_PER_VALUE, (i + 1) * ENTRIES_PER_VALUE));
    const s = await auth.signer.sign(editsBytes(key, cert, i, n, version, body));
    return recordCodec.encode({ t: 'EDITS', key, i, n, v: version, cert, ...pk, sig: s, entries: body });
  };
  // Parts first, so a reader of the new head finds its parts.
  const parts: Promise<unknown>[] = [];
  for (let i = 1; i < n; i++) parts.push(Promise.all([editsPartKey(key, i, hash), value(i)]).then(([k, b]) => dht.put('edits', k, b, { seq })));
  await Promise.all(parts);
  await dht.put('edits', key, await value(0), { seq });
  return entries.length - list.length;
}

/** A log value's entries, none stamped after its certificate's epoch (no certified primary could have made them). */
/** A part's entries of its certificate's epoch or before, within the world's rules (obeysWorldRules: whoever signed the log). */
function entriesOf(m: Decoded<'EDITS'>): Entry[] {
  return decodeEntries(m.entries).filter((e) => e.e <= m.cert.e && obeysWorldRules(e));
}

/**
 * The region's published entries (whatever valid parts could be read), or undefined when
 * none. Parts must name this region and their index; with `rv` the head and every part
 * are checked again (signature, and the certificate under `anchor`: a reader that shows
 * the blocks to a player anchors it near the key, `{ fresh: 'near' }`), and with `chain`
 * too each part's certificate must be one the reader's own chain holds (cert-anchor.ts
 * `inChain`). The reader's checks run inside the DHT read (Dht.get `accept`): a forged
 * part at a higher version than the real one does not hide it.
 */
export async function getEdits(dht: Pick<Dht, 'get'>, key: NodeId, rv?: RecordVerifier, hash: KeyHash = rv?.hash ?? idFromSha256, chain?: (c: EpochCert) => boolean, anchor: RecordAnchor = { fresh: 'learn' }): Promise<Entry[] | undefined> {
  const check = async (storageKey: NodeId, i: number, value: Uint8Array, via?: string): Promise<Decoded<'EDITS'> | undefined> => {
    if (rv) {
      const r = await checkEdits(rv, storageKey, value, sentBy(anchor, via));
      return r.ok && r.rec.i === i && idEquals(r.rec.key, key) && (!chain || chain(r.rec.cert)) ? r.rec : undefined;
    }
    const m = decodeAs('EDITS', value);
    return m && m.i === i && m.i < m.n && idEquals(m.key, key) && !certShapeFault(m.cert) && (!chain || chain(m.cert)) ? m : undefined;
  };
  const read = async (storageKey: NodeId, i: number): Promise<Decoded<'EDITS'> | undefined> => {
    const once = checkedOnce((v, via) => check(storageKey, i, v, via));
    const got = await dht.get('edits', storageKey, async (v, via) => !!(await once(v, via))).catch(() => undefined);
    return got ? once(got.value, got.via) : undefined;
  };
  const head = await read(key, 0);
  if (!head) return undefined;
  try {
    const out = entriesOf(head);
    const parts = await Promise.all(
      Array.from({ length: head.n - 1 }, async (_, j) => {
        const part = await read(await editsPartKey(key, j + 1, hash), j + 1);
        try {
          return part ? entriesOf(part) : [];
        } catch {
          return [];
        }
      }),
    );
    for (const p of parts) out.push(...p);
    return out;
  } catch {
    return undefined;
  }
}
