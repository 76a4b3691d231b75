import { describe, expect, it } from 'vitest';
import { idToHex, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { QuietHosts } from './quiet-hosts';

describe('quiet hosts', () => {
  const rand = seededRandom(7);
  const [a, b] = [randomId(rand), randomId(rand)];

  it('a noted node is kept out until heard, or until its note ends', () => {
    const q = new QuietHosts(1000);
    q.note(idToHex(a), 0);
    q.note(idToHex(b), 0);
    expect(q.quiet(a, 500)).toBe(true);
    q.heard(idToHex(a));
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
});
