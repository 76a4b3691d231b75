// A child process for the Node store's crash test (src/store/level-store.test.ts): opens
// the store in argv[2], prints its node id, then saves region after region as fast as it
// can, printing "stored N" only after the write resolved, until it is killed. With argv[3]
// = 'log': each region's numbers n are appended one by one (4 bytes, big-endian, with the
// promise n), and every 10th write of a region compacts: a base holding all its numbers.
import { idToHex } from '../core/node-id';
import { LevelStore } from '../store/level-store';

const store = await LevelStore.open(process.argv[2]!);
const identity = await store.nodeIdentity();
process.stdout.write(`id ${idToHex(identity.id)}\n`);
const regions = store.hostStore('crash-world', idToHex(identity.id));
const held = new Map<number, number[]>();
const words = (ns: number[]) => {
  const out = new Uint8Array(ns.length * 4);
  ns.forEach((n, i) => new DataView(out.buffer).setUint32(i * 4, n));
  return out;
};
for (let n = 1; process.argv[3] === 'log'; n++) {
  const rx = n % 8, ns = held.get(rx) ?? held.set(rx, []).get(rx)!;
  ns.push(n);
  if (ns.length % 10 === 0) await regions.save({ rx, rz: -1, entries: words(ns), promised: n });
  else await regions.append(rx, -1, { entries: words([n]), meta: { promised: n } });
  process.stdout.write(`stored ${n}\n`);
}
for (let n = 1; ; n++) {
  const entries = new Uint8Array(64 + (n % 7) * 100).fill(n % 256);
  new DataView(entries.buffer).setUint32(0, n);
  await regions.save({ rx: n % 8, rz: -1, entries, promised: n });
  process.stdout.write(`stored ${n}\n`);
}
