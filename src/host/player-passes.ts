// Which player each editing node is, as its player pass proved (region/player-pass.ts), at
// one hosting node for all the regions it hosts. A primary takes an EDIT only from a node
// bound to a player here ('unknown-player' otherwise), and keys the edit rate by the player,
// so minting node ids (free) buys nothing; minting players costs the pass's work each.
//
// What it holds is bounded: bound nodes (least recently used forgotten: that node shows its
// pass again), passes being checked (one per node, `maxChecking` in all: each costs a
// signature check), frames held while a node's pass is checked, and the budget of new nodes
// per player (a node keeps its own believed position, motion-tracker.ts, so each node a
// player binds is one position believed as sent; two tabs of one profile are two nodes).
import type { Clock } from '../core/clock';
import { idToHex, type NodeId } from '../core/node-id';
import type { Verifier } from '../core/signer';
import { LruMap } from '../core/lru-map';
import { KeyedRateLimit } from '../core/keyed-rate-limit';
import { checkPlayerPass, PLAYER_PASS_BITS, type PassFault, type PlayerPass } from '../region/player-pass';

export const PASS_RULES = {
  /** Leading zero bits of work a pass must show. */
  bits: PLAYER_PASS_BITS,
  /** Nodes remembered with their player (least recently used forgotten). */
  maxBound: 4096,
  /** Passes checked at once; more are dropped (counted as 'busy'), the node sends its pass again. */
  maxChecking: 32,
  /** Frames held per node while its pass is checked (an EDIT right behind its PLAYER frame). */
  maxHeld: 64,
  /** New nodes one player may bind at once (tabs of one profile: the identity pool has 8 slots)... */
  nodesBurst: 8,
  /** ...and then per minute. */
  nodesPerMinute: 2,
};

export type PassRules = typeof PASS_RULES;

/** Why a pass was not taken: its work or signature failed, its player bound too many new nodes, or too many were being checked. */
export type PassRefusal = PassFault | 'budget' | 'busy';

export interface PassStats {
  passesTaken: number;
  passRefusals: Record<PassRefusal, number>;
}

export const newPassStats = (): PassStats => ({ passesTaken: 0, passRefusals: { work: 0, signature: 0, budget: 0, busy: 0 } });

export class PlayerPasses {
  /** Node (hex) -> its player (hex), the least recently used forgotten past the rules' maxBound. */
  private readonly bound: LruMap<string, string>;
  /** Nodes whose pass is being checked, with the frames that wait for the answer. */
  private readonly checking = new Map<string, (() => void)[]>();
  /** Per player (hex): its budget of new nodes. */
  private readonly budgets: KeyedRateLimit;

  constructor(
    private readonly verify: Verifier,
    private readonly clock: Clock,
    private readonly stats: PassStats,
    private readonly rules: PassRules = PASS_RULES,
  ) {
    this.budgets = new KeyedRateLimit(rules.nodesPerMinute / 60, rules.nodesBurst, rules.maxBound);
    this.bound = new LruMap(rules.maxBound);
  }

  /** The player (hex) node `hex` edits as, if its pass was taken. */
  playerOf(hex: string): string | undefined {
    return this.bound.get(hex);
  }

  /** Runs `frame` once node `hex`'s pass has been checked; false (nothing held) when no check runs or too much waits. */
  holdWhileChecking(hex: string, frame: () => void): boolean {
    const held = this.checking.get(hex);
    if (!held || held.length >= this.rules.maxHeld) return false;
    held.push(frame);
    return true;
  }

  /** A node showed its pass: checked, and bound if it holds (a refused pass changes nothing). */
  offer(from: NodeId, hex: string, pass: PlayerPass): void {
    const player = idToHex(pass.p);
    if (this.bound.peek(hex) === player) return; // shown again (each attach): nothing to check
    if (this.checking.has(hex) || this.checking.size >= this.rules.maxChecking) return void this.stats.passRefusals.busy++;
    const held: (() => void)[] = [];
    this.checking.set(hex, held);
    void checkPlayerPass(pass, from, this.rules.bits, this.verify).then((fault) => {
      this.checking.delete(hex);
      const refusal = fault ?? (this.spend(player) ? undefined : 'budget');
      if (refusal) this.stats.passRefusals[refusal]++;
      else this.bind(hex, player);
      for (const f of held) f();
    });
  }

  /** Takes one new node from the player's budget. */
  private spend(player: string): boolean {
    return this.budgets.take(player, this.clock.now());
  }

  private bind(hex: string, player: string): void {
    this.stats.passesTaken++;
    this.bound.set(hex, player);
  }
}
