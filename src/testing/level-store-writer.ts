// A child process for the Node store's crash test (src/store/level-store.test.ts): opens
// the store in argv[2], prints its node id, then saves region after region as fast as it
// can, printing "stored N" only after save() resolved, until it is killed.
import { idToHex } from '../core/node-id';
import { LevelStore } from '../store/level-store';

const store = await LevelStore.open(process.argv[2]!);
const identity = await store.nodeIdentity();
process.stdout.write(`id ${idToHex(identity.id)}\n`);
const regions = store.hostStore('crash-world', idToHex(identity.id));
for (let n = 1; ; n++) {
  const entries = new Uint8Array(64 + (n % 7) * 100).fill(n % 256);
  new DataView(entries.buffer).setUint32(0, n);
  await regions.save({ rx: n % 8, rz: -1, entries, promised: n });
  process.stdout.write(`stored ${n}\n`);
}
