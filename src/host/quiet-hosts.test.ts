import { describe, expect, it } from 'vitest';
import { idToHex, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { QUIET_HOLD_MAX_MS, QUIET_HOLD_MS, QUIET_HOST_MS, QuietHosts } from './quiet-hosts';

describe('quiet hosts', () => {
  const rand = seededRandom(7);
  const [a, b] = [randomId(rand), randomId(rand)];

  it('a noted node is kept out until heard, or until its note ends', () => {
    const q = new QuietHosts(1000);
    q.note(idToHex(a), 0);
    q.note(idToHex(b), 0);
    expect(q.quiet(a, 500)).toBe(true);
    q.heard(idToHex(a), 500);
    expect(q.quiet(a, 500)).toBe(false);
    expect(q.quiet(b, 999)).toBe(true);
    expect(q.quiet(b, 1000)).toBe(false);
  });

  it('noted again while silent, its note starts over', () => {
    const q = new QuietHosts(1000);
    q.note(idToHex(a), 0);
    q.note(idToHex(a), 900);
    expect(q.quiet(a, 1500)).toBe(true);
  });

  it('dropped again without acking since, its frames do not bring it back for a hold that doubles', () => {
    const q = new QuietHosts(1000);
    const hex = idToHex(a);
    q.dropped(hex, 0);
    q.heard(hex, 100);
    expect(q.quiet(a, 100), 'the first comeback is on trust').toBe(false);
    q.dropped(hex, 2000);
    q.heard(hex, 2100);
    expect(q.quiet(a, 2100), 'its frames came to nothing: held').toBe(true);
    expect(q.quiet(a, 2000 + QUIET_HOLD_MS - 1)).toBe(true);
    q.heard(hex, 2000 + QUIET_HOLD_MS);
    expect(q.quiet(a, 2000 + QUIET_HOLD_MS)).toBe(false);
    const t = 2000 + QUIET_HOLD_MS + 2000;
    q.dropped(hex, t);
    q.heard(hex, t + 2 * QUIET_HOLD_MS - 1);
    expect(q.quiet(a, t + 2 * QUIET_HOLD_MS - 1), 'the hold doubled').toBe(true);
    for (let i = 0; i < 8; i++) q.dropped(hex, t + i);
    expect(q.quiet(a, t + 7 + QUIET_HOLD_MAX_MS - 1)).toBe(true);
    expect(q.quiet(a, t + 7 + QUIET_HOLD_MAX_MS), 'no longer than QUIET_HOLD_MAX_MS').toBe(false);
  });

  it('a node dropped lately is not to be handed the region, whatever frames came from it, until it acks', () => {
    const q = new QuietHosts(1000);
    const hex = idToHex(a);
    expect(q.droppedLately(a, 0)).toBe(false);
    q.note(hex, 0);
    expect(q.droppedLately(a, 0), 'noted, not dropped').toBe(false);
    q.dropped(hex, 100);
    q.heard(hex, 200);
    expect(q.quiet(a, 200), 'back in the set on its frame').toBe(false);
    expect(q.droppedLately(a, 200), 'but not handed the region').toBe(true);
    expect(q.droppedLately(a, 100 + QUIET_HOST_MS)).toBe(false);
    q.dropped(hex, 300);
    q.hosts(hex);
    expect(q.droppedLately(a, 300), 'it acked: it hosts').toBe(false);
  });

  it('an ack (or SYNC_REQ) shows it hosts: its note and its drops end', () => {
    const q = new QuietHosts(1000);
    const hex = idToHex(b);
    q.dropped(hex, 0);
    q.dropped(hex, 10);
    expect(q.quiet(b, 20)).toBe(true);
    q.hosts(hex);
    expect(q.quiet(b, 20)).toBe(false);
    q.dropped(hex, 30);
    q.heard(hex, 40);
    expect(q.quiet(b, 40), 'counted from the ack on: a first drop again').toBe(false);
  });
});
