// One claim for an epoch: the terms the claimant asked the hosts to sign, the grants that
// came back (each checked against the terms), the states merged from the answers, and the
// moment the grants make a certificate. Pure bookkeeping; region-claimant.ts sends and waits.
import { idToHex, type NodeId } from '../core/node-id';
import { certShapeFault, type CertPrev, type ClaimTerms, type EpochCert, type GrantSig } from '../region/epoch-cert';

export class ClaimRound {
  /** Checked grants by granter (hex); ours is in from the start. */
  private readonly grants = new Map<string, GrantSig>();
  /** Who answered (grant or refusal), of those asked. */
  readonly answered = new Set<string>();
  /** When the grants first made a certificate. */
  quorumAt: number | null = null;
  /** Highest promise a refusal named (bounded by the caller). */
  highestRefusal = 0;
  /** Granted epochs above our certificate that refusals said the next claim must cover (bounded by the caller). */
  learned: CertPrev[] = [];
  wake: () => void = () => {};

  constructor(
    readonly terms: ClaimTerms,
    own: GrantSig,
    /** Who was asked (hex): only their answers count. */
    readonly targets: ReadonlySet<string>,
  ) {
    this.grants.set(idToHex(own.id), own);
  }

  get e(): number {
    return this.terms.e;
  }

  get hosts(): NodeId[] {
    return this.terms.hosts;
  }

  granted(): string[] {
    return [...this.grants.keys()];
  }

  asked(hex: string): boolean {
    return this.targets.has(hex);
  }

  addGrant(hex: string, g: GrantSig): void {
    this.grants.set(hex, g);
  }

  /** The certificate the grants make, or undefined while they are too few. */
  cert(): EpochCert | undefined {
    const c: EpochCert = { ...this.terms, grants: [...this.grants.values()] };
    return certShapeFault(c) ? undefined : c;
  }

  /** Why the grants so far make no certificate (diagnostics). */
  fault(): string | null {
    return certShapeFault({ ...this.terms, grants: [...this.grants.values()] });
  }

  /** Whether every target answered, not counting those in `skip` (taken for dead). */
  allAnswered(skip: ReadonlyMap<string, unknown> = new Map()): boolean {
    for (const t of this.targets) if (!this.answered.has(t) && !skip.has(t)) return false;
    return true;
  }
}
