// Link upkeep alone, on the virtual clock: a real link set and table, a fake transport whose
// dials open in-memory links (or fail) after 50 ms.
import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { MemoryLink, type LinkMedium } from '../net/memory-link';
import { DialError, type SignalChannel, type TransportEvents } from '../net/transport';
import { randomIdInBucket } from './bucket-refresh';
import { LINK_BUDGET_DEFAULTS } from './link-budget';
import { LINK_LIMIT_DEFAULTS, LinkSet } from './link-set';
import { LinkUpkeep } from './link-upkeep';
import { RoutingTable } from './routing-table';
import { newStats } from './stats';

const OPTS = { ...LINK_BUDGET_DEFAULTS, maintainMs: 5000, dialBackoffMs: 30_000 };
const overlay: SignalChannel = { sendSignal: () => {} };
const relay: SignalChannel = { sendSignal: () => {} };

function setup() {
  const clock = new VirtualClock();
  const rand = seededRandom(22);
  const self = randomId(rand);
  const medium: LinkMedium = { clock, delay: (base) => base, reachable: () => true, count: () => {}, countDrop: () => {} };
  const pair = (remote: NodeId): [MemoryLink, MemoryLink] => {
    const [a, b] = [new MemoryLink(self, remote, medium, 20), new MemoryLink(remote, self, medium, 20)];
    a.peer = b;
    b.peer = a;
    return [a, b];
  };
  const reachable = new Set<string>();
  const dials: { hex: string; signals: SignalChannel }[] = [];
  const events = new Emitter<TransportEvents>();
  const transport = {
    events,
    dial: (id: NodeId, signals: SignalChannel) => {
      dials.push({ hex: idToHex(id), signals });
      return new Promise<MemoryLink>((resolve, reject) => clock.setTimeout(() => (reachable.has(idToHex(id)) ? resolve(pair(id)[0]) : reject(new DialError('no answer'))), 50));
    },
  };
  const table = new RoutingTable(self);
  const stats = newStats();
  const links = new LinkSet(self, clock, stats, { ...LINK_BUDGET_DEFAULTS, ...LINK_LIMIT_DEFAULTS }, { onMessage: () => {}, onRoute: () => {}, onOpen: () => {}, onClose: () => {} });
  let signals = relay;
  const upkeep = new LinkUpkeep({ selfId: self, clock, opts: { ...OPTS, random: rand }, stats, table, links, transport, dialSignals: () => signals, overlay });
  /** A contact in our bucket b. */
  const contact = (b: number, up = true) => {
    const id = randomIdInBucket(self, b, rand);
    table.add(id, 0);
    if (up) reachable.add(idToHex(id));
    return id;
  };
  return { clock, rand, self, pair, reachable, dials, events, table, stats, links, upkeep, contact, useSignals: (s: SignalChannel) => (signals = s) };
}

describe('LinkUpkeep', () => {
  it('dials a contact in each uncovered bucket every maintainMs, through the dial signals of the moment', async () => {
    const s = setup();
    const [a, b] = [s.contact(150), s.contact(159)];
    s.upkeep.start();
    await s.clock.advance(5000);
    expect(s.dials.map((d) => d.hex).sort()).toEqual([idToHex(a), idToHex(b)].sort());
    expect(s.dials.every((d) => d.signals === relay)).toBe(true);
    await s.clock.advance(100);
    expect([...s.links.map.keys()].sort()).toEqual([idToHex(a), idToHex(b)].sort());
    s.useSignals(overlay);
    const c = s.contact(140);
    await s.clock.advance(5000);
    expect(s.dials.at(-1)).toEqual({ hex: idToHex(c), signals: overlay });
    expect(s.stats.dials).toBe(3);
  });

  it('backs a peer off for dialBackoffMs after a failed dial, unless told to retry all', async () => {
    const s = setup();
    const a = s.contact(150, false);
    s.upkeep.start();
    await s.clock.advance(5100);
    expect(s.stats.dialFailures).toBe(1);
    expect(s.upkeep.busy(idToHex(a))).toBe(true);
    await s.clock.advance(30_000); // failed at 5.05 s: still backing off at the pass of 35 s
    expect(s.dials.length).toBe(1);
    await s.clock.advance(5000);
    expect(s.dials.length).toBe(2);
    // retryAll (a peer left with no link) forgets the backoff: a dial within 100 ms.
    expect(s.upkeep.busy(idToHex(a))).toBe(true);
    s.upkeep.retryAll();
    await s.clock.advance(100);
    expect(s.dials.length).toBe(3);
  });

  it('after retryAll, a redial that fails backs off one second and is tried again at once, not after dialBackoffMs', async () => {
    const s = setup();
    const [a, b] = [s.contact(150), s.contact(159, false)];
    s.upkeep.start();
    await s.clock.advance(5100);
    expect(s.links.size).toBe(1);
    // Alone again (its network changed): both peers are dialled again at once; b's redial fails.
    s.upkeep.retryAll();
    await s.clock.advance(200);
    expect(s.dials.filter((d) => d.hex === idToHex(b)).length).toBe(2);
    s.reachable.add(idToHex(b));
    // Without the recovery window b would wait 30 s; with it, a pass within about 1.1 s dials it.
    await s.clock.advance(1200);
    expect(s.dials.filter((d) => d.hex === idToHex(b)).length).toBe(3);
    await s.clock.advance(100);
    expect(s.links.get(idToHex(b))).toBeDefined();
    expect(s.links.get(idToHex(a))).toBeDefined();
    // Outside the window (20 s on), a failure backs off dialBackoffMs again.
    s.reachable.delete(idToHex(b));
    s.links.get(idToHex(b))!.link.close('test');
    await s.clock.advance(25_000);
    expect(s.upkeep.busy(idToHex(b))).toBe(true);
  });

  it('a contact arriving in a bucket with no link, or a link closing, gets a pass within 100 ms (one for a burst)', async () => {
    const s = setup();
    s.upkeep.start();
    s.upkeep.contactAdded(s.table.get(idToHex(s.contact(150)))!);
    s.upkeep.contactAdded(s.table.get(idToHex(s.contact(151)))!);
    await s.clock.advance(100);
    expect(s.dials.length).toBe(2);
  });

  it('takes inbound links while started; a link that opens after stop() is closed', async () => {
    const s = setup();
    s.upkeep.start();
    const [mine] = s.pair(randomId(s.rand));
    s.events.emit('link', mine);
    expect(s.links.size).toBe(1);
    s.upkeep.stop();
    const [late] = s.pair(randomId(s.rand));
    s.events.emit('link', late);
    expect(s.upkeep.attach(late, true)).toBe(false);
    expect(late.open).toBe(false);
    expect(s.links.size).toBe(1);
    await s.clock.advance(60_000);
    expect(s.dials).toEqual([]);
  });

  it('connect pins a held link or dials one over the overlay; unpin lets the budget close it again', async () => {
    const s = setup();
    s.upkeep.start();
    const id = randomId(s.rand);
    s.reachable.add(idToHex(id));
    const p = s.upkeep.connect(id, 'play');
    await s.clock.advance(50);
    await p;
    expect(s.dials).toEqual([{ hex: idToHex(id), signals: overlay }]);
    expect(s.links.get(idToHex(id))?.pinned).toBe(true);
    s.upkeep.unpin(id, 'play');
    expect(s.links.get(idToHex(id))?.pinned).toBe(false);
    await s.upkeep.connect(id, 'play');
    expect(s.links.get(idToHex(id))?.pinned).toBe(true);
    expect(s.dials.length).toBe(1);
  });
});
