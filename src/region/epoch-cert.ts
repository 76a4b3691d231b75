// Epoch certificates: the proof that a node is the primary of a region in an epoch.
// A host's grant is a signature over the claim's terms (region key, epoch, primary, host
// set, previous epoch and its host set); a certificate is the terms plus the grants of a
// majority of the host set it names and, when the set changed, of the previous set too.
// Every host signs at most one claim per epoch (its persisted promise), so two
// certificates of one epoch would need two majorities of one set with no common member.
//
// Who checks: backups before they follow a primary, players before they accept its
// snapshot, DHT holders and readers before they believe a location record or an edit log,
// all through `CertChecker.check`: valid signatures, then the anchor rule
// (cert-anchor.ts), since signatures prove only that the named keys signed.
import * as v from 'valibot';
import { bytes, defineCodec, u32 } from '../core/codec';
import { ID_BYTES, idEquals, idToHex, type NodeId } from '../core/node-id';
import type { Signer } from '../core/signer';
import { keyAlgCode, keyAlgSchema } from '../core/key-alg-code';

/** Most hosts a certificate names (r <= 7). */
export const MAX_CERT_HOSTS = 8;
/** Fewest hosts that can certify an epoch: a node alone is no quorum (its edits stay tentative). */
export const MIN_CERT_HOSTS = 2;
/** Most a claim a host grants may move past the epochs it knows (a forged huge epoch must not end failover). */
export const MAX_EPOCH_JUMP = 64;
/**
 * Most a certificate's epoch may lie past its previous one. Failed claims use epochs up (a
 * duel, a long partition: each granted claim that forms no certificate raises its granters'
 * promises), so this is far above MAX_EPOCH_JUMP: with the two equal, 64 failed claims in a
 * row left every later claim out of range for good (promises at e72 over a certificate of
 * e8, every claim 'epoch-range'). Only a certified set's majority can sign
 * a jump this large, and such a majority is trusted with the region anyway.
 */
export const MAX_CERT_JUMP = 1 << 16;
/** Highest epoch ever certified: far below u32, so `e + 1` and the DHT versions always fit. */
export const MAX_EPOCH = 0x00ffffff;
/**
 * Most granted-but-unproven epochs a claim carries (`pend`): each is an epoch some host
 * granted above the claimant's certificate, which may have been certified without the
 * claimant hearing of it, so the claim needs a majority of its hosts too.
 */
export const MAX_PEND = 3;
/**
 * Most certificates a frame carries as the chain before the one it names (`chain`): the
 * links a reader that missed epochs checks one by one from the certificate it holds (each
 * granted by a majority of its predecessor's hosts), docs/TRUST.md rule 1.
 */
export const MAX_CHAIN = 3;

const id = bytes(ID_BYTES, ID_BYTES);
const hostList = v.pipe(v.array(id), v.minLength(1), v.maxLength(MAX_CERT_HOSTS));
export const grantSigSchema = v.object({ id, a: keyAlgSchema, k: bytes(65), s: bytes(72) });
/** An earlier epoch and its hosts; `p`, in `pend` entries, the claimant of that epoch (so its ABANDON can clear it). */
export const certPrevSchema = v.object({ e: u32, hosts: hostList, p: v.optional(id) });
export const certSchema = v.object({
  e: u32,
  primary: id,
  hosts: hostList,
  prev: v.optional(certPrevSchema),
  /** The previous set's majority is gone for good (rebaseMs of failed claims): certified by the new set alone. */
  rebase: v.optional(v.boolean()),
  /**
   * Epochs between `prev` and this one that hosts granted (so they may have been
   * certified) without the claimant holding their certificate: the grants include a
   * majority of each one's hosts as well, so no certified epoch is skipped unseen.
   */
  pend: v.optional(v.pipe(v.array(certPrevSchema), v.maxLength(MAX_PEND))),
  grants: v.pipe(v.array(grantSigSchema), v.maxLength(2 * MAX_CERT_HOSTS)),
});

/** Earlier certificates of the chain, oldest first (MAX_CHAIN). */
export const certChainSchema = v.pipe(v.array(certSchema), v.maxLength(MAX_CHAIN));

export type GrantSig = v.InferOutput<typeof grantSigSchema>;
export type CertPrev = v.InferOutput<typeof certPrevSchema>;
export type EpochCert = v.InferOutput<typeof certSchema>;
/** What a claimant asks the hosts to sign. */
export type ClaimTerms = Omit<EpochCert, 'grants'>;

const certCodec = defineCodec({ CERT: [1, certSchema] } as const, { maxFrame: 4096 });

export function encodeCert(c: EpochCert): Uint8Array {
  return certCodec.encode({ t: 'CERT', ...c });
}

/** The certificate in `bytes`, or undefined when malformed. */
export function decodeCert(b: Uint8Array): EpochCert | undefined {
  try {
    const { t: _t, ...c } = certCodec.decode(b);
    return c;
  } catch {
    return undefined;
  }
}

const DOMAIN = new TextEncoder().encode('voxel-populi grant v1\0');

/** The exact bytes a host signs to grant `t` for the region `key` (canonical, field by field). */
export function grantBytes(key: NodeId, t: ClaimTerms): Uint8Array {
  const hosts = t.hosts.length, prev = t.prev?.hosts.length ?? 0;
  const pend = t.pend ?? [];
  const pendBytes = pend.length ? 1 + pend.reduce((n, q) => n + 5 + ID_BYTES * (q.hosts.length + 1), 0) : 0;
  const out = new Uint8Array(DOMAIN.length + ID_BYTES * (2 + hosts + prev) + 4 * 2 + 3 + pendBytes);
  const dv = new DataView(out.buffer);
  let p = 0;
  const put = (b: Uint8Array) => {
    out.set(b, p);
    p += b.length;
  };
  put(DOMAIN);
  put(key);
  dv.setUint32(p, t.e);
  p += 4;
  put(t.primary);
  out[p++] = hosts;
  for (const h of t.hosts) put(h);
  dv.setUint32(p, t.prev ? t.prev.e + 1 : 0); // 0: no previous epoch
  p += 4;
  out[p++] = prev;
  for (const h of t.prev?.hosts ?? []) put(h);
  out[p++] = t.rebase ? 1 : 0;
  // Appended only when present, so the bytes of terms without it are unchanged.
  if (pend.length) {
    out[p++] = pend.length;
    for (const q of pend) {
      dv.setUint32(p, q.e);
      p += 4;
      out[p++] = q.hosts.length;
      for (const h of q.hosts) put(h);
      put(q.p ?? new Uint8Array(ID_BYTES)); // zeros: claimant not named
    }
  }
  return out;
}

export async function signGrant(signer: Signer, key: NodeId, t: ClaimTerms): Promise<GrantSig> {
  return { id: signer.id, a: keyAlgCode(signer.alg), k: signer.publicKey, s: await signer.sign(grantBytes(key, t)) };
}

export function quorum(n: number): number {
  return Math.floor(n / 2) + 1;
}

const has = (list: readonly NodeId[], x: NodeId) => list.some((h) => idEquals(h, x));
const distinct = (list: readonly NodeId[]) => new Set(list.map(idToHex)).size === list.length;
/** The same hosts, in any order. */
export const sameSet = (a: readonly NodeId[], b: readonly NodeId[]) => a.length === b.length && a.every((x) => has(b, x));

export type CertFault =
  | 'too-few-hosts' | 'primary-not-host' | 'repeated-host' | 'epoch-range' | 'repeated-grant'
  | 'stranger-grant' | 'bad-signature' | 'no-majority' | 'no-previous-majority' | 'no-pending-majority' | 'stranger-rebase'
  | 'root-needs-every-host';

/**
 * Whether `c` starts a chain: it builds on no certificate (no `prev`). A chain's root is
 * certified by the grant of *every* host it names, not a majority (`hostGrantsNeeded`): two
 * roots of one region then both exist only if their sets share no node (a host grants one
 * claim per epoch and covers what it granted), where with majorities two claimants whose
 * lookups shared one node each won without it and the region ran two chains whose readers
 * never saw each other's confirmed edits (docs/HOSTING.md "First certificates"). Every reader
 * holds every certificate to it (`certShapeFault`), and the claimant's round waits for it.
 */
export const chainRoot = (c: ClaimTerms): boolean => !c.prev;

/** How many of `c`'s own hosts must have granted it: all of them for a chain's root (`chainRoot`), else a majority. */
export const hostGrantsNeeded = (c: ClaimTerms): number => (chainRoot(c) ? c.hosts.length : quorum(c.hosts.length));

/** The structural faults (no signature checked): cheap, run first. */
export function certShapeFault(c: ClaimTerms & { grants?: readonly GrantSig[] }): CertFault | null {
  if (c.hosts.length < MIN_CERT_HOSTS) return 'too-few-hosts';
  if (!has(c.hosts, c.primary)) return 'primary-not-host';
  if (!distinct(c.hosts) || (c.prev && !distinct(c.prev.hosts))) return 'repeated-host';
  if (c.e < 1 || c.e > MAX_EPOCH) return 'epoch-range';
  if (c.prev && (c.prev.e >= c.e || c.e - c.prev.e > MAX_CERT_JUMP)) return 'epoch-range';
  // A rebase is over a previous set. One claimed from outside that set is well formed, but
  // believed only over a set far from the key (cert-anchor.ts `farSet`): a node that never
  // held the region (a second chain started in a cut-off corner of the network) must wait
  // for a set near the key to answer.
  if (c.rebase && !c.prev) return 'stranger-rebase';
  const pend = c.pend ?? [];
  for (let i = 0; i < pend.length; i++) {
    const q = pend[i]!;
    // In epoch order; one epoch may appear twice when two claims of it were granted. At or
    // below the previous epoch only another chain's head, over another set: a merge of two
    // chains of the region (cert-anchor.ts `forkOf`), which then needs its majority too.
    const below = !!c.prev && q.e <= c.prev.e && (sameSet(q.hosts, c.prev.hosts) || !!c.rebase);
    if (q.e < 1 || below || q.e >= c.e || (i > 0 && q.e < pend[i - 1]!.e) || !distinct(q.hosts)) return 'epoch-range';
  }
  if (!c.grants) return null;
  if (!distinct(c.grants.map((g) => g.id))) return 'repeated-grant';
  if (c.grants.some((g) => !has(c.hosts, g.id) && !(c.prev && has(c.prev.hosts, g.id)) && !pend.some((q) => has(q.hosts, g.id)))) return 'stranger-grant';
  const inHosts = c.grants.filter((g) => has(c.hosts, g.id)).length;
  if (inHosts < quorum(c.hosts.length)) return 'no-majority';
  if (inHosts < hostGrantsNeeded(c)) return 'root-needs-every-host';
  if (c.prev && !c.rebase && !sameSet(c.prev.hosts, c.hosts) && c.grants.filter((g) => has(c.prev!.hosts, g.id)).length < quorum(c.prev.hosts.length)) {
    return 'no-previous-majority';
  }
  if (!c.rebase && pend.some((q) => !sameSet(q.hosts, c.hosts) && c.grants!.filter((g) => has(q.hosts, g.id)).length < quorum(q.hosts.length))) {
    return 'no-pending-majority';
  }
  return null;
}

/** Whether `next` may replace `known` as a region's current certificate (epochs only go up, through the chain). */
export function succeeds(next: EpochCert, known: EpochCert | undefined): boolean {
  if (!known) return true;
  if (next.e === known.e) return idEquals(next.primary, known.primary);
  if (next.e < known.e) return false;
  // Built on `known`, or past it through an epoch it had to win a majority of: a `pend` entry,
  // or its own hosts when they are `known`'s (a claim names no pend entry for its own set,
  // grant-rules.ts `coversGranted`: two backups' claims over one set, e2 and e3 both over e1,
  // both certified, and every reader holding e2 refused e3 until the region had no primary).
  return (!!next.prev && next.prev.e >= known.e) || sameSet(next.hosts, known.hosts) || !!next.pend?.some((q) => q.e === known.e && sameSet(q.hosts, known.hosts));
}
