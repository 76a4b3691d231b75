import { describe, expect, it } from 'vitest';
import { idToHex, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { STRIKES_KEPT_MS, UNCLAIMING_KEPT, UNCLAIMING_MAX_MS, UNCLAIMING_MS, UnclaimingHosts } from './unclaiming-hosts';

describe('hosts that left the region unanswered', () => {
  const rand = seededRandom(11);
  const [a, b] = [randomId(rand), randomId(rand)];

  it('a strike leaves a node out for UNCLAIMING_MS, and it stays struck until it answers', () => {
    const u = new UnclaimingHosts();
    u.strike(idToHex(a), 0);
    expect(u.noted(a, UNCLAIMING_MS - 1)).toBe(true);
    expect(u.all(UNCLAIMING_MS - 1)).toEqual([idToHex(a)]);
    expect(u.noted(a, UNCLAIMING_MS), 'its time is over').toBe(false);
    expect(u.struck(a, UNCLAIMING_MS), 'not yet handed the region').toBe(true);
    expect(u.struck(b, 0)).toBe(false);
    u.answered(idToHex(a));
    expect(u.struck(a, UNCLAIMING_MS)).toBe(false);
  });

  it('strikes in a row double the time, up to UNCLAIMING_MAX_MS; remembered STRIKES_KEPT_MS after the last', () => {
    const u = new UnclaimingHosts();
    const hex = idToHex(a);
    u.strike(hex, 0);
    u.strike(hex, UNCLAIMING_MS);
    expect(u.noted(a, 3 * UNCLAIMING_MS - 1), 'the second strike: twice as long').toBe(true);
    expect(u.noted(a, 3 * UNCLAIMING_MS)).toBe(false);
    for (let i = 0; i < 10; i++) u.strike(hex, 4 * UNCLAIMING_MS);
    expect(u.noted(a, 4 * UNCLAIMING_MS + UNCLAIMING_MAX_MS - 1)).toBe(true);
    expect(u.noted(a, 4 * UNCLAIMING_MS + UNCLAIMING_MAX_MS), 'no longer than UNCLAIMING_MAX_MS').toBe(false);
    expect(u.struck(a, 4 * UNCLAIMING_MS + STRIKES_KEPT_MS - 1)).toBe(true);
    expect(u.struck(a, 4 * UNCLAIMING_MS + STRIKES_KEPT_MS), 'forgotten').toBe(false);
    u.strike(hex, 5 * UNCLAIMING_MS + STRIKES_KEPT_MS);
    expect(u.noted(a, 5 * UNCLAIMING_MS + STRIKES_KEPT_MS + UNCLAIMING_MS), 'a strike after the memory ended is a first one').toBe(false);
  });

  it('keeps UNCLAIMING_KEPT nodes, the oldest strike forgotten first', () => {
    const u = new UnclaimingHosts();
    const ids = Array.from({ length: UNCLAIMING_KEPT + 1 }, () => randomId(rand));
    ids.forEach((id, i) => u.strike(idToHex(id), i));
    expect(u.struck(ids[0]!, UNCLAIMING_KEPT)).toBe(false);
    expect(ids.slice(1).every((id) => u.struck(id, UNCLAIMING_KEPT))).toBe(true);
    expect(u.all(UNCLAIMING_KEPT)).toHaveLength(UNCLAIMING_KEPT);
  });
});
