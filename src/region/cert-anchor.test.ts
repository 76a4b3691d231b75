// The anchor rule on its own (no signatures: cert-checker.ts checks those first).
import { describe, expect, it } from 'vitest';
import { randomId, sortByDistance, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { ANCHOR_RANK, anchorHold, farSet, inChain, LEARN_EPOCH_CAP, type AnchorFault } from './cert-anchor';
import { MAX_EPOCH } from './epoch-cert';
import type { EpochCert } from './epoch-cert';

const rand = seededRandom(3);
const [A, B, C, D, E, X, Y] = Array.from({ length: 7 }, () => randomId(rand)) as NodeId[] as [NodeId, NodeId, NodeId, NodeId, NodeId, NodeId, NodeId];
const grant = (id: NodeId) => ({ id, a: 0 as const, k: new Uint8Array(32), s: new Uint8Array(64) });
const cert = (e: number, primary: NodeId, hosts: NodeId[], granters: NodeId[], prev?: { e: number; hosts: NodeId[] }): EpochCert => ({ e, primary, hosts, ...(prev ? { prev } : {}), grants: granters.map(grant) });

const held = cert(5, A, [A, B, C], [A, B]);
/** The anchor rule's verdict alone: null when the reader may believe `c`, however it then holds it. */
const anchorFault = (...args: Parameters<typeof anchorHold>): AnchorFault | null => {
  const r = anchorHold(...args);
  return r === 'anchored' || r === 'learnt' ? null : r;
};
const near = [A, B, C, D, E];

describe('the anchor rule', () => {
  it('a reader holding a certificate takes a later one granted by a majority of the hosts it knows, wherever they stand', () => {
    expect(anchorFault(cert(6, B, [B, C, X], [B, C]), held, [], 'near')).toBeNull();
    // Granted by the attacker's keys alone, even naming our hosts as the previous set.
    expect(anchorFault(cert(6, X, [X, Y], [X, Y], { e: 5, hosts: [X, Y] }), held, near, 'near')).toBe('unanchored');
    expect(anchorFault(cert(6, X, [X, Y, A], [X, Y], { e: 5, hosts: [A, B, C] }), held, near, 'learn')).toBe('unanchored');
  });

  it('the same epoch again must be the same certificate', () => {
    expect(anchorFault(cert(5, A, [C, B, A], [A, C]), held, near, 'near')).toBeNull();
    expect(anchorFault(cert(5, A, [A, X, Y], [X, Y]), held, near, 'near')).toBe('fork');
    expect(anchorFault(cert(5, B, [A, B, C], [B, C]), held, near, 'near')).toBe('fork');
  });

  it('an unchained later certificate is re-anchored near the key only within a bounded step', () => {
    expect(anchorFault(cert(9, D, [D, E, X], [D, E]), held, near, 'near')).toBeNull();
    expect(anchorFault(cert(5 + 70_000, D, [D, E, X], [D, E]), held, near, 'near')).toBe('epoch-range');
  });

  it('a reader with none needs a majority of granters among the nodes it finds nearest, of the hosts or of the previous set', () => {
    expect(anchorFault(cert(3, A, [A, B, X], [A, B]), undefined, near, 'near')).toBeNull();
    expect(anchorFault(cert(3, A, [A, X, Y], [A, X]), undefined, near, 'near')).toBe('unanchored');
    // Hosts chosen while a lookup was slow: the previous set's majority handed it on.
    expect(anchorFault(cert(3, A, [A, X, Y], [A, B, X], { e: 2, hosts: [A, B, C] }), undefined, near, 'near')).toBeNull();
    expect(anchorFault({ ...cert(3, A, [A, X, Y], [A, B, X], { e: 2, hosts: [A, B, C] }), rebase: true }, undefined, near, 'near')).toBe('unanchored');
  });

  it('a host with none learns a signed certificate it cannot anchor, below the cap only', () => {
    expect(anchorFault(cert(40, X, [X, Y], [X, Y]), undefined, near, 'learn')).toBeNull();
    expect(anchorFault(cert(LEARN_EPOCH_CAP + 1, X, [X, Y], [X, Y]), undefined, near, 'learn')).toBe('epoch-range');
    // Holding one, a host never learns past it this way.
    expect(anchorFault(cert(40, X, [X, Y], [X, Y]), held, near, 'learn')).toBe('unanchored');
  });

  it('a learnt certificate anchors nothing: what follows it is learnt below the cap, and one anchored near the key replaces it', () => {
    // Learnt: signed by keys nobody finds near the key (the attacker's own).
    const learnt = cert(6, X, [X, Y], [X, Y]);
    expect(anchorHold(learnt, undefined, near, 'learn')).toBe('learnt');
    // Its hosts grant a certificate at the top of the range: chained from the learnt one
    // (rule 1 took it before), it is judged as for a reader holding nothing.
    const top = cert(MAX_EPOCH, X, [X, Y], [X, Y], { e: MAX_EPOCH - 1, hosts: [X, Y] });
    expect(anchorHold(top, learnt, near, 'learn', undefined, true)).toBe('epoch-range');
    expect(anchorHold(cert(LEARN_EPOCH_CAP + 1, X, [X, Y], [X, Y]), learnt, near, 'learn', undefined, true)).toBe('epoch-range');
    expect(anchorHold(cert(7, X, [X, Y], [X, Y], { e: 6, hosts: [X, Y] }), learnt, near, 'learn', undefined, true)).toBe('learnt');
    // The same chain held as anchored still chains (rule 1), past the cap too.
    expect(anchorHold(top, learnt, near, 'learn')).toBe('anchored');
    // The region's real certificate, anchored near the key, at a lower epoch or the same one.
    expect(anchorHold(held, learnt, near, 'learn', undefined, true)).toBe('anchored');
    expect(anchorHold(cert(6, A, [A, B, C], [A, B]), learnt, near, 'learn', undefined, true)).toBe('anchored');
    expect(anchorHold(cert(6, A, [A, B, C], [A, B]), learnt, near, 'learn'), 'a fork of an anchored certificate').toBe('fork');
    // Another certificate of the learnt one's epoch that nothing anchors is a fork.
    expect(anchorHold(cert(6, Y, [Y, X], [X, Y]), learnt, near, 'learn', undefined, true)).toBe('fork');
    expect(anchorHold(learnt, learnt, near, 'learn', undefined, true)).toBe('learnt');
    // A subscriber never learns.
    expect(anchorHold(cert(7, X, [X, Y], [X, Y], { e: 6, hosts: [X, Y] }), learnt, near, 'near', undefined, true)).toBe('unanchored');
  });

  it('a rebase from outside the set it rebases over counts only over a set far from the key: nearer than the reader\'s 8th nearest node is near, alive or not', () => {
    const key = randomId(rand);
    const nodes = sortByDistance(Array.from({ length: 40 }, () => randomId(rand)), (x) => x, key);
    const view = nodes.slice(0, ANCHOR_RANK);
    const [n0, n1, n2, n3] = nodes as [NodeId, NodeId, NodeId, NodeId];
    const [f0, f1, f2] = nodes.slice(30) as [NodeId, NodeId, NodeId];
    // An honest set cut off or dead: its ids are still near, though no view lists them.
    expect(farSet([n1, n2, n3], key, view.filter((x) => ![n1, n2, n3].includes(x)))).toBe(false);
    expect(farSet([f0, f1, f2], key, view)).toBe(true);
    expect(farSet([n1, f1, f2], key, view)).toBe(true);
    expect(farSet([n1, n2, f2], key, view)).toBe(false);
    expect(farSet([f0, f1, f2], key, view.slice(0, ANCHOR_RANK - 1)), 'a reader knowing fewer than 8 nodes calls nothing far').toBe(false);
    const forged = cert(4, f0, [f0, f1, f2], [f0, f1]);
    const over = (prev: EpochCert, primary: NodeId, hosts: NodeId[]) => ({ ...cert(prev.e + 1, primary, hosts, hosts.slice(0, 2), { e: prev.e, hosts: prev.hosts }), rebase: true });
    expect(anchorFault(over(forged, n0, [n0, n1, n2]), forged, view, 'near', key)).toBeNull();
    const honest = cert(4, n1, [n1, n2, n3], [n1, n2]);
    expect(anchorFault(over(honest, n0, [n0, view[4]!, view[5]!]), honest, view, 'near', key)).toBe('unanchored');
    expect(anchorFault(over(forged, n0, [n0, n1, n2]), forged, view, 'near'), 'no key: no distance to judge by').toBe('unanchored');
    // A rebase from inside the set is judged as before.
    expect(anchorFault(over(honest, n1, [n1, n0, view[4]!]), honest, view, 'near', key)).toBeNull();
  });

  it('the chain a reader holds is its certificate and the previous epoch it names, nothing merely near', () => {
    const mine = cert(6, B, [B, C, D], [B, C, D], { e: 5, hosts: [A, B, C] });
    expect(inChain(mine, mine)).toBe(true);
    expect(inChain(held, mine), 'the previous epoch, its set as our certificate names it').toBe(true);
    expect(inChain(cert(5, X, [C, A, B], [A, B]), mine), 'any primary of that epoch and set: the set grants one claim per epoch').toBe(true);
    // Granted by two ids near the key (rule 2 anchors it), but in no link of ours.
    const nearForged = cert(6, X, [X, D, E], [D, E]);
    expect(anchorFault(nearForged, undefined, near, 'near')).toBeNull();
    expect(inChain(nearForged, mine)).toBe(false);
    expect(inChain(cert(5, X, [X, D, E], [D, E]), mine), 'the previous epoch, another set').toBe(false);
    expect(inChain(cert(7, B, [B, C, D], [B, C]), mine), 'a later epoch').toBe(false);
    expect(inChain(cert(4, A, [A, B, C], [A, B]), mine), 'older than the link we hold').toBe(false);
    expect(inChain(cert(6, C, [B, C, D], [B, C]), mine), 'our epoch, another primary').toBe(false);
  });
});
