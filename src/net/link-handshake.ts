// The identity handshake run on every new WebRTC link, right after the data channel
// opens and before the Link is handed out. Each side sends HELLO {public key, nonce},
// then AUTH {signature over both ids, both nonces and both DTLS fingerprints}. The
// remote id is trusted only when the public key stands for the id we dialled (or the id
// the signal came from) as a node key (one scrypt, core/key-ids.ts) and the signature checks. Signing the peer's fresh nonce stops
// replays; signing the DTLS fingerprints of the offer and answer SDPs, as each side saw
// them, stops a signaling relay from sitting in the middle of the connection (each leg
// of a man-in-the-middle has different certificates, so the transcripts differ).
// A proven id must also show work (core/id-work.ts), or anyone could grind keys until
// it held ids next to any key it wanted to answer for.
// A key not met before is derived in its turn (HANDSHAKE_DERIVATIONS, below): a flood of
// handshakes with fresh keys slows the honest diallers' handshakes, never refuses them.
// Each side names its network (network-id.ts: its world) in HELLO, and a peer of another
// network is refused before anything else is checked: honest peers of two worlds never
// link, whatever relay or contact list brought them together. The network is signed too
// (the transcript ends with it), so a signature is good only in the network it was made in.
// A hostile peer can still name our network falsely: that peer is a member like any other,
// and what it may do with region state is the certificate checks' business (docs/TRUST.md).
import * as v from 'valibot';
import { fromB64 as decodeB64, toB64 } from '../core/base64';
import { concatBytes } from '../core/concat-bytes';
import { ID_WORK_BITS, idWorkOk } from '../core/id-work';
import { type Identity, verifySignature } from '../core/identity';
import { DerivationQueue } from '../core/derivation-queue';
import { queuedNodeIdOfKey } from '../core/key-ids';
import { idEquals, type NodeId } from '../core/node-id';
import { VoxelError } from '../core/errors';
import { UNNAMED_NETWORK } from './network-id';

const CONTEXT = 'voxel-populi link v1';
const NONCE_BYTES = 16;

export class HandshakeError extends VoxelError {
  readonly code = 'handshake-failed';
  override readonly name = 'HandshakeError';
}

const B64 = v.pipe(v.string(), v.maxLength(200), v.regex(/^[A-Za-z0-9+/]*={0,2}$/));
export const HelloSchema = v.object({
  t: v.literal('hello'),
  v: v.literal(1),
  alg: v.picklist(['Ed25519', 'ECDSA-P256']),
  pk: B64,
  nonce: B64,
  /** The sender reads Batch frames (frames.ts); a peer that does not say so gets none. */
  batch: v.optional(v.literal(1)),
  /** The sender reads Probe frames (frames.ts): a peer that does not say so gets none, and its link is never watched at the transport. */
  probe: v.optional(v.literal(1)),
  /** The sender's network (network-id.ts); none: the unnamed one, as a peer from before networks had names. */
  net: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/))),
});
export const AuthSchema = v.object({ t: v.literal('auth'), sig: B64 });
export const ByeSchema = v.object({ t: v.literal('bye'), reason: v.pipe(v.string(), v.maxLength(200)) });
export const ControlSchema = v.variant('t', [HelloSchema, AuthSchema, ByeSchema]);
export type ControlMsg = v.InferOutput<typeof ControlSchema>;

export { toB64 } from '../core/base64';

/** Decodes base64; a string atob refuses (bad length or padding) is a HandshakeError. */
export function fromB64(s: string): Uint8Array {
  try {
    return decodeB64(s);
  } catch {
    throw new HandshakeError('bad base64');
  }
}

/**
 * The one DTLS fingerprint of an SDP, or undefined when it has none or more than one
 * a=fingerprint line: with two, which certificate DTLS checks is up to the browser, and the
 * handshake would bind one fingerprint while the connection might be checked against the
 * other, so such an SDP is refused (webrtc-transport.ts counts it, `badSignals.fingerprint`).
 */
export function sdpFingerprint(sdp: string | undefined): string | undefined {
  const lines = (sdp ?? '').match(/^a=fingerprint:[^\r\n]*/gim) ?? [];
  if (lines.length !== 1) return undefined;
  const fp = lines[0]!.slice('a=fingerprint:'.length).trim().toLowerCase();
  return fp === '' ? undefined : fp;
}

// The unnamed network adds nothing, so its transcript is the one peers signed before networks had names.
function transcript(signer: NodeId, verifier: NodeId, signerNonce: Uint8Array, verifierNonce: Uint8Array, fps: string, network: string): Uint8Array {
  const te = new TextEncoder();
  return concatBytes(te.encode(CONTEXT), signer, verifier, signerNonce, verifierNonce, te.encode(fps), te.encode(network));
}

export interface HandshakeIo {
  send(msg: ControlMsg): void;
  /** Resolves with the next control message from the peer (already schema-checked). */
  next(): Promise<ControlMsg>;
  /** False once the connection under the handshake closed (a key waiting its turn then leaves the line); none: open. */
  open?(): boolean;
  /** Told when the peer's key starts (true) and stops (false) waiting in the line of derivations: the transport does not count that time against the connection. */
  waiting?(inLine: boolean): void;
}

/** The HandshakeError of a peer whose proven id shows too little work (the transport counts these). */
export const NO_ID_WORK = 'the remote id shows too little work';

/**
 * Handshakes' derivations of keys not met before (one scrypt each, core/key-ids.ts): in
 * turn, first come first served, never refused for want of budget (core/derivation-queue.ts).
 * A refusing budget of one source for all handshakes (8 a second) let an attacker that
 * completed more than 8 handshakes a second with fresh keys have every new honest dialler
 * refused while it lasted; one keyed by what the attacker sends (its ids, its keys) it
 * multiplies at will. What it cannot multiply cheaply is the connection: each caller here
 * is a WebRTC connection (ICE, DTLS) that reached its HELLO, dearer to both ends than the
 * scrypt, and the transport holds at most maxPendingInbound (32) inbound ones at once, with
 * our own dials beside them. So a handshake waits behind at most those: 32 / 16 a second =
 * 2 s, within the 8 s an inbound connection has to prove its id (link-handshake-flood.test).
 * The rate bounds what a flood costs in scrypts: 16 a second, ~1.6% of a core at 1 ms each,
 * apart from the realm's budget for frames (core/derivation-budget.ts), which a handshake
 * flood no longer spends and a frame flood no longer refuses handshakes by.
 */
export const HANDSHAKE_DERIVATIONS = { perSec: 16, burst: 64, maxWaiting: 256 } as const;

/** The realm's line of handshake derivations (HANDSHAKE_DERIVATIONS), one for all transports. */
export const handshakeDerivations = new DerivationQueue(HANDSHAKE_DERIVATIONS);

/** The HandshakeError of a key not derived: the line of derivations full, or the connection gone while it waited. */
export const KEY_NOT_DERIVED = 'the remote key was not derived (no turn)';

/** The HandshakeError of a peer of another network than ours (the transport closes it as OTHER_NETWORK and counts it). */
export const NOT_OUR_NETWORK = 'the remote peer is of another network';

/**
 * Runs both halves of the handshake; resolves once the peer proved `remoteId`, is of
 * `network` and shows `idWorkBits` of work, with whether the peer reads Batch and Probe frames.
 * `fingerprints` is "offerFingerprint|answerFingerprint" as this side saw the SDPs.
 * `derivations`: the line a key not met before waits in (default the realm's).
 */
export async function runHandshake(io: HandshakeIo, self: Identity, remoteId: NodeId, fingerprints: string, idWorkBits = ID_WORK_BITS, network = UNNAMED_NETWORK, derivations: DerivationQueue = handshakeDerivations): Promise<{ batch: boolean; probe: boolean }> {
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  io.send({ t: 'hello', v: 1, alg: self.alg, pk: toB64(self.publicKey), nonce: toB64(nonce), batch: 1, probe: 1, ...(network !== UNNAMED_NETWORK ? { net: network } : {}) });
  const hello = await io.next();
  if (hello.t !== 'hello') throw new HandshakeError(`expected hello, got ${hello.t}`);
  if ((hello.net ?? UNNAMED_NETWORK) !== network) throw new HandshakeError(NOT_OUR_NETWORK);
  const pk = fromB64(hello.pk);
  const theirNonce = fromB64(hello.nonce);
  if (theirNonce.length !== NONCE_BYTES) throw new HandshakeError('bad nonce');
  // The work first: one SHA-256 of the id, where matching the key to it is a scrypt.
  if (!idWorkOk(remoteId, idWorkBits)) throw new HandshakeError(NO_ID_WORK);
  io.waiting?.(true);
  const derived = await queuedNodeIdOfKey(pk, remoteId, derivations, () => io.open?.() ?? true).finally(() => io.waiting?.(false));
  if (derived === undefined) throw new HandshakeError(KEY_NOT_DERIVED);
  if (!idEquals(derived, remoteId)) throw new HandshakeError('public key does not match the remote id');
  const sig = await self.sign(transcript(self.id, remoteId, nonce, theirNonce, fingerprints, network));
  io.send({ t: 'auth', sig: toB64(sig) });
  const auth = await io.next();
  if (auth.t !== 'auth') throw new HandshakeError(`expected auth, got ${auth.t}`);
  const ok = await verifySignature(hello.alg, pk, transcript(remoteId, self.id, theirNonce, nonce, fingerprints, network), fromB64(auth.sig));
  if (!ok) throw new HandshakeError('bad signature');
  return { batch: hello.batch === 1, probe: hello.probe === 1 };
}
