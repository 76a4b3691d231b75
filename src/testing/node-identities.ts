// Node identities for tests, minted ahead of time. A test that links real identities (a
// WebRTC handshake, signed DHT routes) needs ids showing ID_WORK_BITS of work (core/
// id-work.ts), and minting one takes ~1 s of keys and scrypts in Node (core/key-ids.ts):
// a file making ten would spend ten seconds on it. node-identities.json keeps a few of each
// algorithm; `testNodeIdentity` hands out the next one unused in this process, and mints a
// fresh one past the end, or when the kept ones show less work than asked now (ID_WORK_BITS
// raised or the node id's derivation changed: regenerate them with
// `npx tsx src/testing/node-identities.ts [ed25519] [p256]`).
// Test-only keys: they are public.
import { readFileSync, writeFileSync } from 'node:fs';
import { ID_WORK_BITS, idWorkOk } from '../core/id-work';
import { nativeNodeId } from '../store/native-node-id';
import { generateNodeIdentity, identityFromJson, type Identity, type IdentityAlg, type IdentityJson } from '../core/identity';

const FILE = new URL('./node-identities.json', import.meta.url);

interface Kept {
  bits: number;
  identities: IdentityJson[];
}

let kept: Kept | undefined;
const used = new Set<number>();

/** A node identity of `alg` showing ID_WORK_BITS of work, one not handed out before in this process. */
export async function testNodeIdentity(alg: IdentityAlg = 'Ed25519'): Promise<Identity> {
  kept ??= JSON.parse(readFileSync(FILE, 'utf8')) as Kept;
  if (kept.bits >= ID_WORK_BITS) {
    const i = kept.identities.findIndex((j, n) => j.alg === alg && !used.has(n));
    if (i >= 0) {
      used.add(i);
      const id = await identityFromJson(kept.identities[i]!, 'node');
      if (idWorkOk(id.id)) return id;
    }
  }
  return generateNodeIdentity({ alg, derive: nativeNodeId });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [ed, p256] = [Number(process.argv[2] ?? 32), Number(process.argv[3] ?? 12)];
  const identities: IdentityJson[] = [];
  for (const [alg, n] of [['Ed25519', ed], ['ECDSA-P256', p256]] as const) {
    for (let i = 0; i < n; i++) identities.push(await (await generateNodeIdentity({ alg, derive: nativeNodeId })).toJson());
  }
  // One identity a line, so a regenerated file diffs line by line.
  writeFileSync(FILE, `{"bits":${ID_WORK_BITS},"identities":[\n${identities.map((j) => JSON.stringify(j)).join(',\n')}\n]}\n`);
  console.log(`${identities.length} identities at ${ID_WORK_BITS} bits in ${FILE.pathname}`);
}
