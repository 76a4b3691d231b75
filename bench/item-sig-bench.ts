// `npm run bench -- item_sigs`: what signed item decisions cost (agree/decision-proof.ts),
// with the tabs' WebCrypto (Node's, same API), Ed25519. A decision among 3 hosts costs each
// voter that proposes the winner one signature; the deciding voter checks the proof it
// assembled (2 signatures, the majority) and every player and host that takes the decision
// checks it once (a record's proof is checked once, then the verdict is cached). A drop or
// carry adds the owner's signature on its request (agree/owner-request.ts): the owner signs
// once, and each host of the region (primary and backups) checks it once before it signs.
import { generateNodeIdentity } from '../src/core/identity';
import { idToHex } from '../src/core/node-id';
import { percentile } from '../src/core/percentile';
import { webCryptoVerifier } from '../src/core/signer';
import { ProofChecker, ProofSigner, type DecisionProof } from '../src/agree/decision-proof';
import { encodeLedger, itemWireCodec } from '../src/agree/item-wire';
import { OwnerRequestChecker, signOwnerRequest, type OwnerAsk } from '../src/agree/owner-request';
import type { Item } from '../src/agree/item-ledger';
import { VoterSet } from '../src/agree/voter-set';

const RUNS = 300;
const AREA = { ax: 3, az: -2 };

export async function benchItemSigs(): Promise<Record<string, number>> {
  const ids = await Promise.all([0, 1, 2].map(() => generateNodeIdentity({ alg: 'Ed25519' })));
  const set = new VoterSet(7, ids.map((x) => idToHex(x.id)));
  const signers = ids.map((x) => new ProofSigner(x));
  const sign: number[] = [], check: number[] = [], cached: number[] = [], decision: number[] = [];
  const item = (i: number): Item => ({ id: `3,-2/${i}`, kind: 'gem', x: 200.5, y: 71, z: -100.5, at: 1.7e12 + i, owner: idToHex(ids[0]!.id), gen: 0 });
  const proofs: Item[] = [];
  for (let i = 0; i < RUNS; i++) {
    const rec = item(i);
    const vote = `take:${rec.id}:0`;
    let t = performance.now();
    const s0 = await signers[0]!.sign(AREA, set.tag, vote, 1, rec);
    sign.push(performance.now() - t);
    const s1 = await signers[1]!.sign(AREA, set.tag, vote, 1, rec);
    const proof: DecisionProof = { e: set.tag, vote, round: 1, sigs: [s0, s1] };
    const checker = new ProofChecker(webCryptoVerifier);
    t = performance.now();
    const fault = await checker.check(AREA, rec, proof, set);
    check.push(performance.now() - t);
    if (fault) throw new Error(`benchmark proof refused: ${fault}`);
    t = performance.now();
    await checker.check(AREA, rec, proof, set);
    cached.push(performance.now() - t);
    // What one deciding voter adds to a decision: its own signature, then the assembled proof checked.
    const fresh = new ProofChecker(webCryptoVerifier);
    t = performance.now();
    const mine = await signers[2]!.sign(AREA, set.tag, vote, 1, rec);
    await fresh.check(AREA, rec, { ...proof, sigs: [s0, mine] }, set);
    decision.push(performance.now() - t);
    if (proofs.length < 128) proofs.push({ ...rec, proof });
  }
  const bare = proofs.map(({ proof: _p, ...r }) => r);
  // The owner's request: signed by the owner, checked by a host (a fresh checker each: no cache).
  const reqSign: number[] = [], reqCheck: number[] = [];
  let dropBytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const ask: OwnerAsk = { kind: 'drop', item: `3,-2/${i}`, gen: 1, p: { x: 200.5, y: 71, z: -100.5 } };
    let t = performance.now();
    const req = await signOwnerRequest(ids[0]!, AREA, ask, i + 1, 1.7e12);
    reqSign.push(performance.now() - t);
    const host = new OwnerRequestChecker(webCryptoVerifier);
    t = performance.now();
    const fault = await host.check(AREA, ask, idToHex(ids[0]!.id), req, 1.7e12 + 50);
    reqCheck.push(performance.now() - t);
    if (fault) throw new Error(`benchmark request refused: ${fault}`);
    dropBytes = itemWireCodec.encode({ t: 'ITEM_DROP', rx: 3, rz: -2, ...req, item: ask.item, ...ask.p }).length;
  }
  const state = (items: Item[]) => encodeLedger({ rx: 3, rz: -2 }, 7, { area: { ax: 3, az: -2, x0: 192, z0: -128, size: 64 }, slot: 128, stars: 0, items }).length;
  return {
    item_sig_sign_ms_p50: percentile(sign, 0.5),
    item_sig_sign_ms_p99: percentile(sign, 0.99),
    item_sig_check_ms_p50: percentile(check, 0.5),
    item_sig_check_ms_p99: percentile(check, 0.99),
    item_sig_check_cached_ms_p50: percentile(cached, 0.5),
    item_sig_decision_voter_ms_p50: percentile(decision, 0.5),
    item_sig_decision_voter_ms_p99: percentile(decision, 0.99),
    item_state_bytes_128_signed: state(proofs),
    item_state_bytes_128_unsigned: state(bare),
    item_request_sign_ms_p50: percentile(reqSign, 0.5),
    item_request_sign_ms_p99: percentile(reqSign, 0.99),
    item_request_check_ms_p50: percentile(reqCheck, 0.5),
    item_request_check_ms_p99: percentile(reqCheck, 0.99),
    item_request_drop_frame_bytes: dropBytes,
  };
}
