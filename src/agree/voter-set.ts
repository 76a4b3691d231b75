// The voters of a vote: a region's certified host set, in the certificate's order (proof
// masks index it), tagged with its epoch. The quorum sizes follow from tolerating f
// silent deaths with n = 2f + 1 (or 2f + 2): a voter waits for n - f frames of a round,
// never for all n, so a dead voter cannot stall a vote while a majority lives.
import { MAX_VOTERS, maskSize } from './vote-messages';

export class VoterSet {
  readonly n: number;
  /** Deaths tolerated: fewer than half. */
  readonly f: number;
  private readonly byId = new Map<string, number>();

  constructor(
    /** The set's tag (its epoch): frames naming another tag are refused. */
    readonly tag: number,
    /** Voter ids (hex) in the set's order. */
    readonly ids: readonly string[],
  ) {
    if (ids.length < 1 || ids.length > MAX_VOTERS) throw new RangeError(`a voter set has 1..${MAX_VOTERS} voters, not ${ids.length}`);
    ids.forEach((id, i) => this.byId.set(id, i));
    if (this.byId.size !== ids.length) throw new RangeError('a voter is named twice');
    this.n = ids.length;
    this.f = Math.floor((this.n - 1) / 2);
  }

  /** Frames of a round a voter waits for before it moves on. */
  get quorum(): number {
    return this.n - this.f;
  }

  /**
   * Proposals for one value that decide it: a majority of all n voters. Any quorum then holds
   * one of them (f + 1 would do, and is the same for odd n), and the signatures of those
   * proposals are a majority's: what a player or another host needs to take the decision
   * (decision-proof.ts).
   */
  get decides(): number {
    return Math.floor(this.n / 2) + 1;
  }

  /** Strictly more than half of all voters (not of those heard). */
  isMajority(count: number): boolean {
    return 2 * count > this.n;
  }

  indexOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  /** A proof mask names only voters of this set, at least `need` of them. */
  maskOk(mask: number, need: number): boolean {
    return mask >>> this.n === 0 && maskSize(mask) >= need;
  }
}
