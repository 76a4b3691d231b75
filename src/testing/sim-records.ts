// Signed records for the simulator: a stand-in for the player record (src/play/player-record.ts)
// the adversarial simulation can afford by the thousand. Like a player record, a record is
// stored under its owner's id and is valid only if the owner's key signed it; its version
// orders it. Keys come from the simulation's keyring (sim-keyring.ts: synchronous Ed25519,
// so runs replay on the virtual clock).
//
// Layout: version (u32) | payload | Ed25519 signature (64) over CONTEXT | key | version | payload.
import { ID_BYTES, type NodeId } from '../core/node-id';
import type { RecordRule } from '../dht/record-rules';
import type { SimKeyring } from './sim-keyring';

const CONTEXT = new TextEncoder().encode('sim record v1\0');
const SIG = 64;

function signedBytes(key: NodeId, version: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(CONTEXT.length + ID_BYTES + 4 + payload.length);
  out.set(CONTEXT, 0);
  out.set(key, CONTEXT.length);
  new DataView(out.buffer).setUint32(CONTEXT.length + ID_BYTES, version >>> 0);
  out.set(payload, CONTEXT.length + ID_BYTES + 4);
  return out;
}

/** A record for `key` signed by `signerId`'s key (the owner's, or, forged, anyone else's). */
export async function signSimRecord(keyring: SimKeyring, key: NodeId, version: number, payload: Uint8Array, signerId: NodeId = key): Promise<Uint8Array> {
  const sig = await keyring.signer(signerId).sign(signedBytes(key, version, payload));
  const out = new Uint8Array(4 + payload.length + SIG);
  new DataView(out.buffer).setUint32(0, version >>> 0);
  out.set(payload, 4);
  out.set(sig, 4 + payload.length);
  return out;
}

/** The version a record claims (unchecked), or undefined if it is too short to hold one. */
export function claimedVersion(value: Uint8Array): number | undefined {
  return value.length >= 4 + SIG ? new DataView(value.buffer, value.byteOffset).getUint32(0) : undefined;
}

/** The owner rule: signed by the key's own id's key; version as signed. */
export function simRecordRule(keyring: SimKeyring): RecordRule {
  return {
    async check(key, value) {
      const version = claimedVersion(value);
      if (version === undefined) return { ok: false, reason: 'malformed' };
      const payload = value.subarray(4, value.length - SIG);
      const owner = keyring.signer(key);
      const ok = await keyring.verify('node', key, 'Ed25519', owner.publicKey, signedBytes(key, version, payload), value.subarray(value.length - SIG));
      return ok ? { ok: true, version } : { ok: false, reason: 'badSignature' };
    },
  };
}

/** What a hostile node runs instead: anything well-formed is taken at the version it claims. */
export const acceptAnyRecord: RecordRule = {
  check(_key, value) {
    const version = claimedVersion(value);
    return Promise.resolve(version === undefined ? { ok: false, reason: 'malformed' } : { ok: true, version });
  },
};
