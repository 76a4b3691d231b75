import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/virtual-clock';
import { PeerFinder } from './peer-finder';

/** A finder on a virtual clock without jitter; `alone` says whether the peer is lonely, `at` when it searched. */
function lonePeer() {
  const clock = new VirtualClock();
  const state = { alone: true, at: [] as number[] };
  const f = new PeerFinder({ clock, lonely: () => state.alone, jitter: () => 1, search: () => void state.at.push(clock.now()) });
  return { clock, state, at: state.at, f };
}

describe('PeerFinder (a lone peer keeps looking)', () => {
  it('searches while alone at 1 s, doubling to 30 s, and stops once it found someone', async () => {
    const { clock, state, at, f } = lonePeer();
    f.poke();
    await clock.advance(100_000);
    // Waits 1, 2, 4, 8, 16, then 30 s each.
    expect(at).toEqual([1000, 3000, 7000, 15000, 31000, 61000, 91000]);
    state.alone = false;
    await clock.advance(100_000);
    expect(at.length).toBe(7); // someone found us: the wait due at 121 s searches no more
    expect(f.nextWaitMs).toBe(1000);
    f.stop();
  });

  it('starts over from the first wait when poked (alone again, relay back)', async () => {
    const { clock, state, at, f } = lonePeer();
    f.poke();
    await clock.advance(20_000); // searches at 1, 3, 7, 15 s; next wait 16 s
    expect(at).toEqual([1000, 3000, 7000, 15000]);
    f.poke(); // e.g. the relay came back
    await clock.advance(1500);
    expect(at.at(-1)).toBe(21_000);
    state.alone = false;
    await clock.advance(60_000);
    expect(at.length).toBe(5);
    // Linked for a while, then the last link closes: searching again after 1 s.
    state.alone = true;
    const before = at.length;
    f.poke();
    await clock.advance(1000);
    expect(at.length).toBe(before + 1);
    f.stop();
    await clock.advance(100_000);
    expect(at.length).toBe(before + 1);
  });

  it('does nothing while not alone, applies the jitter, counts failed searches', async () => {
    const clock = new VirtualClock();
    let alone = false;
    let n = 0;
    const f = new PeerFinder({ clock, lonely: () => alone, jitter: () => 0.5, search: () => { n++; throw new Error('relay down'); } });
    f.poke();
    await clock.advance(10_000);
    expect(n).toBe(0);
    alone = true;
    f.poke();
    await clock.advance(499);
    expect(n).toBe(0);
    await clock.advance(1);
    expect(n).toBe(1);
    await clock.advance(1000); // the second wait: 2 s x 0.5
    expect(n).toBe(2);
    expect(f.failures).toBe(2);
    expect(f.searches).toBe(2);
    f.stop();
  });

  it('runs one search at a time, backing off only after a slow search ends', async () => {
    const clock = new VirtualClock();
    const starts: number[] = [];
    const f = new PeerFinder({
      clock, lonely: () => true, jitter: () => 1,
      search: () => new Promise<void>((resolve) => { starts.push(clock.now()); clock.setTimeout(resolve, 5000); }),
    });
    f.poke();
    await clock.advance(1000);
    f.poke(); // while the first search runs: it is not doubled up
    await clock.advance(1000);
    await clock.advance(10_000);
    expect(starts).toEqual([1000, 8000]);
    f.stop();
  });
});
