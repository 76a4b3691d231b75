// The node id of a key (core/key-ids.ts) through node:crypto's scrypt (OpenSSL, ~2-4x the
// plain-JS one, off the event loop): the headless peer mints its id with it
// (LevelStore.nodeIdentity), ~2^ID_WORK_BITS derivations. The same function as
// deriveNodeId, so the ids agree (native-node-id.test.ts); Node only, as level-store.ts.
import { scrypt } from 'node:crypto';
import { NODE_ID_CONTEXT, NODE_ID_SCRYPT } from '../core/key-ids';
import { ID_BYTES, type NodeId } from '../core/node-id';

const { N, r, dkLen } = NODE_ID_SCRYPT;

/** deriveNodeId(publicKey), natively. */
export function nativeNodeId(publicKey: Uint8Array): Promise<NodeId> {
  return new Promise<NodeId>((resolve, reject) => {
    scrypt(publicKey, NODE_ID_CONTEXT, dkLen, { N, r, p: 1 }, (err, key) => (err ? reject(err) : resolve(new Uint8Array(key).slice(0, ID_BYTES))));
  });
}
