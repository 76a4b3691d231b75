// Hosts that left the region unanswered when it was theirs to answer (region-claimant.ts): a
// claim of ours they sent nothing in its whole round (CLAIM_TIMEOUT_MS, resent twice) though
// they answer pings; a handoff to them that they never claimed; a drop from our set as quiet
// when they had never answered us as a host. A node whose DHT answers while it hosts nothing
// (a tab whose hosting stalled, an attacker's node near the key) can never be in a majority,
// so a set naming two of them never certifies, and handed the region such a node leaves it
// without a primary until the backups claim past it.
// Each such silence is a strike. A struck node is left out of our claims' sets, our set's
// fill and our re-check for a while that doubles with each strike in a row (UNCLAIMING_MS up
// to UNCLAIMING_MAX_MS); as long as its strikes are remembered (STRIKES_KEPT_MS) it is not
// handed the region, and a claim or re-check names at most a minority of the set of struck
// nodes (host-set-check.ts): one at a time, each shows beside hosts that answer whether it
// hosts. Hosts pass strikes on: a claimant's ABANDON names the hosts that sent its claim
// nothing, a primary's SYNC the nodes it struck (`told`: a first strike, hearsay never
// doubles one), since the next claimant or primary is often another host. Only an answer to
// us ends a node's strikes: a grant or refusal of a claim of ours, an ack of our epoch, a
// SYNC_REQ (`answered`); frames it sends of its own accord prove nothing (the 1,000-peer
// kit's rows come from such nodes). Before, one 30-second note per claimant that a frame or
// its end let go: sybil_1k seed 1's region 1,1 (2 of its 3 nearest hostile) was handed to one
// of them (3.9 s without a primary), and a primary after a failover that had not met them
// named both again (2.4 s). Bounded: UNCLAIMING_KEPT nodes per region, the oldest strike
// forgotten first; an attacker's many keys count only as live nodes near the key that a host
// named and that then said nothing, or as nodes a claimant or primary we trusted named.
import { idToHex, type NodeId } from '../core/node-id';

/** A first strike leaves a node out of our sets this long. */
export const UNCLAIMING_MS = 30_000;
/** Each strike in a row doubles it, up to this. */
export const UNCLAIMING_MAX_MS = 8 * UNCLAIMING_MS;
/** Strikes are remembered this long after the last (in a row; not handed the region meanwhile). */
export const STRIKES_KEPT_MS = 2 * UNCLAIMING_MAX_MS;
/** Nodes remembered per region, the oldest strike forgotten first. */
export const UNCLAIMING_KEPT = 16;

export class UnclaimingHosts {
  private readonly struckAt = new Map<string, { n: number; at: number; until: number }>();

  /** `hex` left the region unanswered at `now`: a strike, in a row with its last if that is remembered. */
  strike(hex: string, now: number): void {
    if (!hex) return;
    const s = this.struckAt.get(hex);
    const n = s && now - s.at < STRIKES_KEPT_MS ? s.n + 1 : 1;
    this.struckAt.delete(hex);
    this.struckAt.set(hex, { n, at: now, until: now + Math.min(UNCLAIMING_MAX_MS, UNCLAIMING_MS * 2 ** (n - 1)) });
    while (this.struckAt.size > UNCLAIMING_KEPT) this.struckAt.delete(this.struckAt.keys().next().value!);
  }

  /**
   * Another host of the region says `hex` left it unanswered (the claimant of a failed claim
   * we granted, our primary): a first strike, unless it is struck already (hearsay does not
   * double its time).
   */
  told(hex: string, now: number): void {
    if (!this.struckHex(hex, now)) this.strike(hex, now);
  }

  /** Up to `n` nodes struck at `now`, the newest strike first: what we tell our backups. */
  recent(now: number, n: number): string[] {
    return [...this.struckAt.keys()].reverse().filter((hex) => this.struckHex(hex, now)).slice(0, n);
  }

  /** `hex` answered us as a host: its strikes end. */
  answered(hex: string): void {
    if (this.struckAt.size > 0) this.struckAt.delete(hex);
  }

  /** Whether `id` is left out of our sets at `now`. */
  noted(id: NodeId, now: number): boolean {
    return this.notedHex(idToHex(id), now);
  }

  notedHex(hex: string, now: number): boolean {
    const s = this.struckAt.get(hex);
    return !!s && now < s.until;
  }

  /** Whether `id` has a strike remembered at `now` (not handed the region; named one at a time). */
  struck(id: NodeId, now: number): boolean {
    return this.struckHex(idToHex(id), now);
  }

  struckHex(hex: string, now: number): boolean {
    const s = this.struckAt.get(hex);
    if (!s) return false;
    if (now - s.at < STRIKES_KEPT_MS) return true;
    this.struckAt.delete(hex);
    return false;
  }

  /** The nodes left out at `now`. */
  all(now: number): string[] {
    return [...this.struckAt].filter(([, s]) => now < s.until).map(([hex]) => hex);
  }
}
