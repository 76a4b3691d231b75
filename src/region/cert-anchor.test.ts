// The anchor rule on its own (no signatures: cert-checker.ts checks those first).
import { describe, expect, it } from 'vitest';
import { randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { anchorFault, LEARN_EPOCH_CAP } from './cert-anchor';
import type { EpochCert } from './epoch-cert';

const rand = seededRandom(3);
const [A, B, C, D, E, X, Y] = Array.from({ length: 7 }, () => randomId(rand)) as NodeId[] as [NodeId, NodeId, NodeId, NodeId, NodeId, NodeId, NodeId];
const grant = (id: NodeId) => ({ id, a: 0 as const, k: new Uint8Array(32), s: new Uint8Array(64) });
const cert = (e: number, primary: NodeId, hosts: NodeId[], granters: NodeId[], prev?: { e: number; hosts: NodeId[] }): EpochCert => ({ e, primary, hosts, ...(prev ? { prev } : {}), grants: granters.map(grant) });

const held = cert(5, A, [A, B, C], [A, B]);
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
});
