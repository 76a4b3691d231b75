// A subscriber's checks of what the hosts of a region send it, each on the derivation budget
// of the host whose frame caused it (core/derivation-budget.ts): a decision on items on the
// voter's whose message completed it (agree/item-client.ts `check.via`, as
// play/player-items.ts checks it), a DELTA a backup relays on that backup's (relay-proofs.ts,
// the RegionClient's own RelayCheck). A hostile host of the set sends decisions signed under
// keys never met (each a derivation before it is found junk) until its budget is spent; an
// honest backup then relays a DELTA whose primary's key the subscriber never met: taken.
// Before, both were charged to the one unattributed source, which the hostile host's frames
// kept spent, and the honest relay was refused (relayUnproven).
import { describe, expect, it } from 'vitest';
import { ItemClient } from '../agree/item-client';
import { ProofChecker } from '../agree/decision-proof';
import type { SpawnCandidate } from '../agree/item-ledger';
import type { ItemVoteMessage } from '../agree/item-votes';
import { VoterSet } from '../agree/voter-set';
import { DerivationBudget } from '../core/derivation-budget';
import { Emitter } from '../core/emitter';
import { idToHex, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { cachingWebCryptoVerifier, ProvenKeys } from '../core/signer';
import { VirtualClock } from '../core/virtual-clock';
import { CertChecker } from '../region/cert-checker';
import { proofBytes } from '../region/entry-proofs';
import { signGrant, type ClaimTerms, type EpochCert } from '../region/epoch-cert';
import type { PlayerWire } from '../region/region-wire';
import { encodeEntries } from '../region/region-state';
import { fixedNearView } from '../testing/near-views';
import { strangerIdentity } from '../testing/stranger-identity';
import { RegionClient, type RegionClientArgs } from './region-client';

const AREA = { ax: 0, az: 0, x0: 0, z0: 0, size: 64 };
const VOTE = 'spawn:0,0:0';
const HOSTILE_DECISIONS = 100;

describe("a subscriber's checks on the budget of the host whose frame caused them", () => {
  it("a hostile voter's decisions under junk keys spend its own budget; an honest backup's relayed DELTA, its primary's key never met, is still taken", async () => {
    const budget = new DerivationBudget({}, () => 0); // no refill: what the flood spends stays spent
    const verify = cachingWebCryptoVerifier(new ProvenKeys(64, 0, budget));
    const rand = seededRandom(28);
    const key = randomId(rand);
    const [p, b, h] = [await strangerIdentity(), await strangerIdentity(), await strangerIdentity()];
    const [pHex, bHex, hHex] = [p, b, h].map((x) => idToHex(x.id)) as [string, string, string];
    const certs = new CertChecker(verify, fixedNearView([p.id, b.id, h.id]), { idWorkBits: 0 });
    const terms: ClaimTerms = { e: 1, primary: p.id, hosts: [p.id, b.id, h.id] };
    const cert: EpochCert = { ...terms, grants: [await signGrant(p, key, terms), await signGrant(b, key, terms)] };

    // The hostile host's decisions: well formed, from a voter of the set, signed "by" the two
    // honest voters under fresh keys, each a derivation before it is found junk.
    const voters = new VoterSet(1, [pHex, bHex, hHex]);
    const items = new ItemClient({ self: 'me', seed: 'w', area: AREA, voters });
    const checker = new ProofChecker(verify);
    const spawn: SpawnCandidate = { t: 's', slot: 0, kind: 'apple', x: 5.5, y: 20, z: 5.5, at: 1000, by: pHex };
    const junkSig = (id: Uint8Array) => ({ id, a: 0 as const, k: crypto.getRandomValues(new Uint8Array(32)), s: crypto.getRandomValues(new Uint8Array(64)) });
    let checked = 0;
    for (let i = 0; i < HOSTILE_DECISIONS; i++) {
      const m: ItemVoteMessage = { t: 'DECIDED', vote: VOTE, set: 1, round: 1, c: spawn, proof: 0b011, sigs: [junkSig(p.id), junkSig(b.id)] };
      for (const e of items.receive(hHex, m)) {
        if (!('check' in e)) continue;
        checked++;
        expect(await checker.check(AREA, e.check.rec, e.check.proof, voters, e.check.via)).toBe('bad-signature');
      }
    }
    expect(checked, 'every hostile decision reached the checker').toBe(HOSTILE_DECISIONS);
    expect(budget.refused, "the hostile host's frames met the budget").toBeGreaterThan(HOSTILE_DECISIONS);
    expect(items.ledger.items).toEqual([]);

    // The subscriber's own RelayCheck: an honest backup relays a DELTA the primary signed.
    const clock = new VirtualClock(0);
    const wire = { toPlayer: new Emitter(), send: () => {} } as unknown as PlayerWire;
    const dht = { selfId: randomId(rand), findNode: () => Promise.reject(new Error('offline')), get: () => Promise.resolve(undefined), connect: () => Promise.resolve(), unpin: () => {} } as unknown as RegionClientArgs['dht'];
    const client = new RegionClient({ dht, wire, clock, world: 'w', certs, verify });
    const entries = encodeEntries([{ key: 7, id: 1, e: 1, s: 5 }]);
    const pf: [number, number, Uint8Array][] = [[5, 5, await p.sign(proofBytes(key, { e: 1, f: 5, t: 5, b: entries }))]];
    const refused = budget.refused;
    expect(await client.relays.covers(key, cert, { e: 1, from: 5, to: 5, entries }, pf, bHex), `the honest relay (${budget.refused - refused} derivations refused)`).toBe(true);
    // Another backup's relay with the primary's signature over other entries: still refused.
    const other = encodeEntries([{ key: 8, id: 1, e: 1, s: 6 }]);
    expect(await client.relays.covers(key, cert, { e: 1, from: 6, to: 6, entries: other }, [[6, 6, pf[0]![2]]], bHex)).toBe(false);
    client.close();
  });
});
