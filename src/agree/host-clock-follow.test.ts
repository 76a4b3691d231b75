import { describe, expect, it } from 'vitest';
import { seededRandom } from '../core/seeded-random';
import { mayFollowClock } from './host-items';

type Node = { id: string; busy: boolean };

/** Whether the graph of every edge mayFollowClock allows has a cycle (Kahn's algorithm). */
function hasCycle(nodes: Node[], may: (me: Node, ref: Node) => boolean = mayFollowClock): boolean {
  const into = nodes.map(() => 0);
  const out = nodes.map((u) => nodes.flatMap((v, j) => (u !== v && may(u, v) ? [j] : [])));
  for (const js of out) for (const j of js) into[j]!++;
  const ready = nodes.flatMap((_, i) => (into[i] === 0 ? [i] : []));
  let seen = 0;
  while (ready.length) {
    const i = ready.pop()!;
    seen++;
    for (const j of out[i]!) if (--into[j]! === 0) ready.push(j);
  }
  return seen < nodes.length;
}

describe('which host clocks may follow which (mayFollowClock)', () => {
  it('the graph of every allowed edge has no cycle, for any ids and any mix of drawing and idle nodes', () => {
    const rng = seededRandom(11);
    for (let trial = 0; trial < 300; trial++) {
      const n = 2 + Math.floor(rng() * 10);
      const nodes = Array.from({ length: n }, () => ({ id: Math.floor(rng() * 0xffffff).toString(16).padStart(6, '0'), busy: rng() < 0.4 }));
      expect(hasCycle(nodes)).toBe(false);
    }
  });

  it('an idle node never follows a drawing one; a drawing node follows an idle one of any id', () => {
    const idle = (id: string) => ({ id, busy: false }), busy = (id: string) => ({ id, busy: true });
    expect(mayFollowClock(idle('b'), busy('a'))).toBe(false);
    expect(mayFollowClock(idle('b'), idle('a'))).toBe(true);
    expect(mayFollowClock(idle('a'), idle('b'))).toBe(false);
    expect(mayFollowClock(busy('a'), idle('b'))).toBe(true);
    expect(mayFollowClock(busy('b'), busy('a'))).toBe(true);
    expect(mayFollowClock(busy('a'), busy('b'))).toBe(false);
  });

  it('the check bites: a rule letting a drawing node follow idle ones of any id while idle ones follow any lower id makes cycles', () => {
    const naive = (me: Node, ref: Node) => ref.id < me.id || me.busy;
    expect(hasCycle([{ id: 'a', busy: true }, { id: 'b', busy: false }], naive)).toBe(true);
    expect(hasCycle([{ id: 'a', busy: true }, { id: 'b', busy: false }])).toBe(false);
  });
});
