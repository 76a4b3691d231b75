// The join alone, on the virtual clock: fake dials, lookups and refresh, recorded in order.
import { describe, expect, it } from 'vitest';
import { idEquals, idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import type { Link } from '../net/link';
import { JoinError } from './dht';
import type { DhtOptions } from './dht-options';
import { Join } from './join';
import { newStats } from './stats';

const MAINTAIN = 5000;

interface Setup {
  joinRefresh?: DhtOptions['joinRefresh'];
  /** Bootstrap peers that answer the dial. */
  reachable?: number;
  peers?: number;
  /** The link set takes the dialled links. */
  accept?: boolean;
  /** Failed queries of the first self-lookup. */
  failures?: number;
  /** Links still open when the self-lookup ends. */
  linksAfterLookup?: number;
}

function setup(o: Setup = {}) {
  const clock = new VirtualClock();
  const rand = seededRandom(9);
  const self = randomId(rand);
  const peers = Array.from({ length: o.peers ?? 2 }, () => randomId(rand));
  const reachable = new Set(peers.slice(0, o.reachable ?? 1).map(idToHex));
  const log: string[] = [];
  let contacts = 0;
  let links = 0;
  let lookups = 0;
  const stats = newStats();
  const join = new Join({
    selfId: self,
    clock,
    opts: { joinRefresh: o.joinRefresh ?? 'all', maintainMs: MAINTAIN },
    stats,
    bootstrap: peers.length > 0 ? { peers, signals: { sendSignal: () => {} } } : undefined,
    transport: {
      dial: (id: NodeId) =>
        new Promise<Link>((resolve, reject) => clock.setTimeout(() => (reachable.has(idToHex(id)) ? resolve({ remoteId: id } as Link) : reject(new Error('no answer'))), 50)),
    },
    attach: (link) => {
      log.push(`attach ${idToHex(link.remoteId).slice(0, 4)}`);
      if (o.accept === false) return false;
      contacts++;
      links++;
      return true;
    },
    contactCount: () => contacts,
    linkCount: () => links,
    lookup: (target) => {
      log.push(idEquals(target, self) ? 'self-lookup' : 'lookup');
      const failures = lookups++ === 0 ? (o.failures ?? 0) : 0;
      return new Promise((resolve) =>
        clock.setTimeout(() => {
          if (o.linksAfterLookup !== undefined) links = o.linksAfterLookup;
          resolve({ closest: [], values: [], hops: 1, queries: 3, failures });
        }, 100),
      );
    },
    refresh: {
      refresh: async (joining, onlyEmpty) => void log.push(`refresh ${joining} ${onlyEmpty}`),
      probeEmptyBuckets: async () => void log.push('probe'),
    },
    maintain: () => void log.push('maintain'),
  });
  const run = async () => {
    const p = join.start();
    p.catch(() => {});
    await clock.runUntil(() => log.includes('maintain'), 10_000);
    return p;
  };
  return { clock, self, peers, log, stats, join, run };
}

describe('Join', () => {
  it('dials the bootstrap peers, looks up its own id, refreshes the far buckets, then checks the link budget', async () => {
    const s = setup({ peers: 2, reachable: 1 });
    await s.run();
    expect(s.log).toEqual([`attach ${idToHex(s.peers[0]!).slice(0, 4)}`, 'self-lookup', 'refresh true false', 'maintain']);
    expect(s.stats.dials).toBe(2);
  });

  it.each([
    ['empty', 'refresh true true'],
    ['probe', 'probe'],
    ['none', undefined],
  ] as const)("joinRefresh '%s'", async (mode, step) => {
    const s = setup({ joinRefresh: mode });
    await s.run();
    expect(s.log.slice(1)).toEqual(['self-lookup', ...(step ? [step] : []), 'maintain']);
  });

  it('fails with JoinError when no bootstrap peer answers, or none is taken', async () => {
    for (const o of [{ reachable: 0 }, { accept: false }]) {
      const s = setup(o);
      const p = s.join.start();
      p.catch(() => {});
      await s.clock.advance(1000);
      await expect(p).rejects.toBeInstanceOf(JoinError);
      expect(s.log.filter((l) => !l.startsWith('attach'))).toEqual([]);
    }
  });

  it('fails with JoinError when the bootstrap links closed before the join finished', async () => {
    const s = setup({ linksAfterLookup: 0 });
    const p = s.join.start();
    p.catch(() => {});
    await s.clock.advance(1000);
    await expect(p).rejects.toThrow('bootstrap links closed before the join finished');
  });

  it('the first node joins alone: no lookup', async () => {
    const s = setup({ peers: 0 });
    await s.run();
    expect(s.log).toEqual(['maintain']);
  });

  it('looks its own id up again after 2 x maintainMs if some join queries failed; stop() cancels it', async () => {
    const ok = setup();
    await ok.run();
    await ok.clock.advance(3 * MAINTAIN);
    expect(ok.log.filter((l) => l === 'self-lookup').length).toBe(1);

    const failed = setup({ failures: 2 });
    await failed.run();
    await failed.clock.advance(2 * MAINTAIN);
    expect(failed.log.filter((l) => l === 'self-lookup').length).toBe(2);

    const stopped = setup({ failures: 2 });
    await stopped.run();
    stopped.join.stop();
    await stopped.clock.advance(3 * MAINTAIN);
    expect(stopped.log.filter((l) => l === 'self-lookup').length).toBe(1);
    expect(stopped.clock.pending).toBe(0);
  });
});
