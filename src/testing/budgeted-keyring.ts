// A tab's node-key checks over the simulation's keyring (sim-keyring.ts), for a peer whose
// player side should meet the derivation budget as a tab's does (core/signer.ts ProvenKeys):
// a node key not met before costs a derivation from the budget of the source its check
// names (`via`, UNATTRIBUTED when none), refused past it; a key that is not the one
// registered for its id is junk (not remembered, and its source told, DerivationBudget.junk);
// one that is, is remembered and spends nothing after. A tab derives an id from the key (a
// scrypt); simulated ids are chosen, not derived, so the keyring's directory says what the
// derivation would. Counted per source, so a test can say whose budget a flood spent. Player
// keys are checked as the keyring does: a tab's player id is a SHA-256, on no budget.
import { DerivationBudget, OWN_SOURCE, UNATTRIBUTED, type DerivationBudgetOptions } from '../core/derivation-budget';
import { idEquals, type NodeId } from '../core/node-id';
import type { Verifier } from '../core/signer';
import type { SimKeyring } from './sim-keyring';

/** What checks charged to one source cost: keys derived (proven or junk), junk among them, derivations refused. */
export interface SourceSpend {
  derived: number;
  junk: number;
  refused: number;
}

export class BudgetedKeyring {
  readonly budget: DerivationBudget;
  /** Source (a peer's hex, UNATTRIBUTED, OWN_SOURCE) -> what checks charged to it spent. */
  readonly bySource = new Map<string, SourceSpend>();
  /** Node keys proven, remembered (as ProvenKeys: by the key's bytes, with the id they stand for). */
  private readonly met = new Map<string, NodeId>();

  constructor(private readonly keyring: SimKeyring, now: () => number, budget: Partial<DerivationBudgetOptions> = {}) {
    this.budget = new DerivationBudget(budget, now);
  }

  /** What checks named `source` spent (zeros when none). */
  spent(source: string): SourceSpend {
    return this.bySource.get(source) ?? { derived: 0, junk: 0, refused: 0 };
  }

  readonly verify: Verifier = (kind, id, alg, publicKey, data, signature, via = UNATTRIBUTED) => {
    if (kind !== 'node') return this.keyring.verify(kind, id, alg, publicKey, data, signature);
    const tag = `${alg}:${String.fromCharCode.apply(null, publicKey as unknown as number[])}`;
    const known = this.met.get(tag);
    if (known) return idEquals(known, id) ? this.keyring.verify(kind, id, alg, publicKey, data, signature) : Promise.resolve(false);
    const spend = this.bySource.get(via) ?? { derived: 0, junk: 0, refused: 0 };
    this.bySource.set(via, spend);
    if (via !== OWN_SOURCE && !this.budget.take(via)) {
      spend.refused++;
      return Promise.resolve(false);
    }
    spend.derived++;
    if (!this.keyring.owns(id, publicKey)) {
      spend.junk++;
      this.budget.junk(via);
      return Promise.resolve(false);
    }
    this.met.set(tag, id);
    return this.keyring.verify(kind, id, alg, publicKey, data, signature);
  };
}
