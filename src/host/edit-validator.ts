// The primary's checks on an edit before it is ordered: the world's rules (world/world-rules.ts:
// a placeable block or air, inside the world's height, never at the floor), inside this
// region, within reach of where the editor stands, and within the editor's rate. Reach and
// rate are judged only here: no entry another node sends carries its editor or where it stood.
// Pure: time and positions are passed in.
import { KeyedRateLimit } from '../core/keyed-rate-limit';
import { SOLID } from '../world/blocks';
import { bodyOverlapsBlock, EYE_HEIGHT, PLAYER_REACH } from '../world/player-body';
import type { Point } from './motion-tracker';
import { blockRuleFault } from '../world/world-rules';
import type { RejectReason } from '../region/subscription-messages';
import { EDIT_RATE } from '../region/edit-rate';
import { regionAt, type RegionCoord } from '../region/region-key';

export const EDIT_RULES = {
  /**
   * Largest distance from the editor's eye to the block's centre: the crosshair's reach and
   * two blocks for the editor's last reported position lagging the one it edited from.
   */
  reach: PLAYER_REACH + 2,
  /** The eye sits this far above the position a player reports (its feet). */
  eyeHeight: EYE_HEIGHT,
  /** Sustained edits per second per player (region/edit-rate.ts: the region client paces its edits under it). */
  ratePerSec: EDIT_RATE.perSec,
  /** Burst allowance of the rate (token bucket size). */
  burst: EDIT_RATE.burst,
};

export type EditRules = typeof EDIT_RULES;

/** Editors whose rate is remembered (least recently seen forgotten): far above the players one region holds. */
const MAX_EDITORS = 1024;

export interface EditRequest {
  x: number;
  y: number;
  z: number;
  id: number;
  /** Where the editor stands (its last known position). */
  px: number;
  py: number;
  pz: number;
}

export class EditValidator {
  private readonly rates: KeyedRateLimit;

  constructor(private readonly region: RegionCoord, private readonly rules: EditRules = EDIT_RULES) {
    this.rates = new KeyedRateLimit(rules.ratePerSec, rules.burst, MAX_EDITORS);
  }

  /**
   * Undefined when the edit may go ahead (and its rate token is spent). `bodies`: where the
   * other players in the region are believed to stand (feet); no solid block goes inside one.
   * `rateAt`: when the edit arrived, the time its rate token is spent at (commit-machine.ts
   * EditJudge); never earlier than the last edit's of this editor.
   */
  check(editor: string, e: EditRequest, now: number, bodies?: Iterable<Point>, rateAt = now): RejectReason | undefined {
    const fault = blockRuleFault(e.y, e.id);
    if (fault === 'bad-block' || fault === 'not-placeable') return 'bad-block';
    const r = regionAt(e.x, e.z);
    if (r.rx !== this.region.rx || r.rz !== this.region.rz || fault === 'outside-world') return 'outside-region';
    if (fault === 'world-floor') return 'world-floor';
    if (bodies && SOLID[e.id]) for (const b of bodies) if (bodyOverlapsBlock(b.x, b.y, b.z, e.x, e.y, e.z)) return 'occupied';
    const dx = e.x + 0.5 - e.px, dy = e.y + 0.5 - (e.py + this.rules.eyeHeight), dz = e.z + 0.5 - e.pz;
    if (dx * dx + dy * dy + dz * dz > this.rules.reach * this.rules.reach) return 'out-of-reach';
    return this.rates.take(editor, rateAt) ? undefined : 'rate';
  }
}
