// The dormant list alone, on the virtual clock: what it keeps and what it dials.
import { describe, expect, it } from 'vitest';
import { idToHex, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import type { SignalChannel } from '../net/transport';
import { DORMANT, DormantContacts, REACH_BACKOFF_MS } from './dormant-contacts';

const PERIOD = 60_000;
const relay: SignalChannel = { sendSignal: () => {} };

function setup(withRelay = true) {
  const clock = new VirtualClock();
  const rand = seededRandom(6);
  const known = new Set<string>();
  const linked = new Set<string>();
  const dials: { hex: string; signals: SignalChannel }[] = [];
  const dormant = new DormantContacts({
    clock,
    opts: { dormantProbeMs: PERIOD, random: rand },
    relay: withRelay ? relay : undefined,
    known: (hex) => known.has(hex),
    linkedOrDialling: (hex) => linked.has(hex),
    dial: (_id, hex, signals) => void dials.push({ hex, signals }),
  });
  return { clock, rand, known, linked, dials, dormant };
}

describe('DormantContacts', () => {
  it(`keeps the last ${DORMANT} contacts dropped, and dials each once through the relay`, () => {
    const s = setup();
    const ids = Array.from({ length: DORMANT + 4 }, () => randomId(s.rand));
    for (const id of ids) s.dormant.remember(id);
    expect(s.dormant.size).toBe(DORMANT);
    for (let i = 0; i < DORMANT + 2; i++) s.dormant.probe();
    expect(s.dormant.size).toBe(0);
    expect(s.dials.map((d) => d.hex).sort()).toEqual(ids.slice(4).map(idToHex).sort());
    expect(s.dials.every((d) => d.signals === relay)).toBe(true);
  });

  it('does not dial a contact known again (in the table, linked or being dialled); it leaves the list all the same', () => {
    const s = setup();
    const id = randomId(s.rand);
    s.dormant.remember(id);
    s.known.add(idToHex(id));
    s.dormant.probe();
    expect(s.dials).toEqual([]);
    expect(s.dormant.size).toBe(0);
  });

  it('probes nothing without a relay', () => {
    const s = setup(false);
    s.dormant.remember(randomId(s.rand));
    s.dormant.probe();
    expect(s.dials).toEqual([]);
  });

  it('probes one contact every emptyRefreshMs while started', async () => {
    const s = setup();
    for (let i = 0; i < 4; i++) s.dormant.remember(randomId(s.rand));
    s.dormant.start();
    await s.clock.advance(PERIOD - 1);
    expect(s.dials.length).toBe(0);
    await s.clock.advance(1 + PERIOD);
    expect(s.dials.length).toBe(2);
    s.dormant.stop();
    await s.clock.advance(10 * PERIOD);
    expect(s.dials.length).toBe(2);
    expect(s.clock.pending).toBe(0);
  });

  it(`reaches a peer through the relay when it is not linked, at most once per ${REACH_BACKOFF_MS} ms per peer`, async () => {
    const s = setup();
    const a = randomId(s.rand), b = randomId(s.rand);
    // In the table but unlinked (an island's view of the other side): reached all the same.
    s.known.add(idToHex(a));
    s.dormant.reach(a);
    s.dormant.reach(a);
    s.dormant.reach(b);
    expect(s.dials.map((d) => d.hex)).toEqual([idToHex(a), idToHex(b)]);
    expect(s.dials.every((d) => d.signals === relay)).toBe(true);
    await s.clock.advance(REACH_BACKOFF_MS - 1);
    s.dormant.reach(a);
    expect(s.dials.length).toBe(2);
    await s.clock.advance(1);
    s.dormant.reach(a);
    expect(s.dials.length).toBe(3);
    // Linked (or being dialled): nothing to do.
    s.linked.add(idToHex(b));
    await s.clock.advance(REACH_BACKOFF_MS);
    s.dormant.reach(b);
    expect(s.dials.length).toBe(3);
  });

  it('reaches nobody without a relay', () => {
    const s = setup(false);
    s.dormant.reach(randomId(s.rand));
    expect(s.dials).toEqual([]);
  });
});
