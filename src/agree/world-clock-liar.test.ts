// A player's world clock follows the hosts of the region it stands in (player-items.ts
// `clockReferences`), and of those the one whose estimate is tightest (world-clock.ts `best`).
// One hostile host of the set (one live id among the 3 nearest the key, inside the model)
// answers every probe at once, saying it follows nobody (no `err`) and drawing nothing, so it
// is the tightest, and reads the world an hour ahead. Before the references outvoted it
// (world-clock.ts `agreeing`), the player followed it: an hour off.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/virtual-clock';
import { WorldClock } from './world-clock';

/** The world's time: the honest hosts' clocks agree on it. */
const WORLD = 1.7e12;
const HOUR = 3_600_000;

function run(references: string[]): { error: number; reference: string | undefined } {
  const local = new VirtualClock(0);
  const honestRtt = 4, liarRtt = 2;
  const player = new WorldClock({
    local, base: 0,
    references: () => references,
    send: (to, m) => {
      if (m.t !== 'TIME_REQ') return;
      const ahead = to === 'liar' ? HOUR : 0;
      const rtt = to === 'liar' ? liarRtt : honestRtt;
      // Each host reads its world clock half-way through the round trip.
      local.setTimeout(() => {
        const now = WORLD + local.now() + ahead;
        local.setTimeout(() => player.receive(to, { t: 'TIME_REP', n: m.n, now, ...(to === 'liar' ? {} : { err: 0.5 }) }), rtt / 2);
      }, rtt / 2);
    },
  });
  player.start();
  local.advanceSync(10_000);
  const out = { error: Math.abs(player.now() - (WORLD + local.now())), reference: player.status().reference };
  player.stop();
  return out;
}

describe('a player world clock with one hostile host among its references', () => {
  it('keeps to the time the other hosts agree on', () => {
    const r = run(['honest-a', 'honest-b', 'liar']);
    expect(r.reference).not.toBe('liar');
    expect(r.error).toBeLessThan(1000);
  });

  // Open gap (docs/TRUST.md "Open gaps", the world clock): with one other reference, or
  // none, nothing tells the liar. A host's clock follows the primaries of lower id it backs
  // up (host-items.ts), often one: a hostile primary sets its backups' world time, and so
  // that of every clock that follows them, and of a player whose region has two hosts left.
  it.fails('a clock with the liar and one other reference keeps to the honest time', () => {
    const r = run(['honest-a', 'liar']);
    expect(r.error).toBeLessThan(1000);
  });
});
