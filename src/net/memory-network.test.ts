import { describe, expect, it } from 'vitest';
import { realClock } from '../core/clock';
import { idEquals, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import type { Link } from './link';
import { linkComplianceSuite } from '../testing/link-compliance';
import { MemoryNetwork } from './memory-network';
import { DialError } from './transport';

// The compliance suite waits on real time, so these links run on the real clock.
const rand = seededRandom(5);
const live = new MemoryNetwork({ clock: realClock, latencyMs: 2, jitterMs: 1 });
linkComplianceSuite('memory', async () => {
  const a = live.addNode(randomId(rand));
  const b = live.addNode(randomId(rand));
  const inbound = new Promise<Link>((r) => b.events.once('link', r));
  const out = await a.dial(b.selfId, live.relay(a.selfId));
  return [out, await inbound];
});

describe('MemoryNetwork', () => {
  const setup = (opts = {}) => {
    const clock = new VirtualClock();
    const net = new MemoryNetwork({ clock, seed: 3, ...opts });
    const r = seededRandom(9);
    const a = net.addNode(randomId(r));
    const b = net.addNode(randomId(r));
    return { clock, net, a, b };
  };

  it('dials through the given signal channel and counts dials', async () => {
    const { clock, net, a, b } = setup();
    let inbound: Link | undefined;
    b.events.on('link', (l) => (inbound = l));
    const p = a.dial(b.selfId, net.relay(a.selfId));
    let out: Link | undefined;
    void p.then((l) => (out = l));
    await clock.advance(1000);
    expect(out && inbound).toBeTruthy();
    expect(idEquals(out!.remoteId, b.selfId) && idEquals(inbound!.remoteId, a.selfId)).toBe(true);
    expect(a.dials).toBe(1);
    expect(net.stats.dials).toBe(1);
    expect(net.stats.signals).toBe(2);
  });

  it('latency is seeded and ordered; loss shows as delay, never as a gap', async () => {
    const { clock, net, a, b } = setup({ loss: 0.3, latencyMs: 10 });
    const inbound = new Promise<Link>((r) => b.events.once('link', r));
    const outP = a.dial(b.selfId, net.relay(a.selfId));
    await clock.advance(500);
    const out = await outP;
    const inb = await inbound;
    const got: number[] = [];
    inb.events.on('message', (m) => got.push(m[0]!));
    const t0 = clock.now();
    for (let i = 0; i < 100; i++) out.send(new Uint8Array([i]));
    await clock.advance(5000);
    expect(got).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(clock.now() - t0).toBeGreaterThan(0);
  });

  it('a dial to a dead node fails; a kill closes the remote ends (or not, when silent)', async () => {
    const { clock, net, a, b } = setup();
    const r = seededRandom(77);
    const c = net.addNode(randomId(r));
    const outP = a.dial(b.selfId, net.relay(a.selfId));
    const out2P = a.dial(c.selfId, net.relay(a.selfId));
    await clock.advance(500);
    const [ab, ac] = [await outP, await out2P];
    let abClosed = false;
    ab.events.on('close', () => (abClosed = true));
    net.kill(b.selfId);
    net.kill(c.selfId, { silent: true });
    await clock.advance(500);
    expect(abClosed).toBe(true);
    expect(ac.open).toBe(true); // silent: only heartbeats would notice
    const dead = a.dial(b.selfId, net.relay(a.selfId));
    const err = dead.catch((e) => e);
    await clock.advance(20_000);
    expect(await err).toBeInstanceOf(DialError);
  });

  it('partitions black-hole traffic, close links across after a while, and heal', async () => {
    const { clock, net, a, b } = setup({ partitionCloseMs: 1000 });
    const inbound = new Promise<Link>((r) => b.events.once('link', r));
    const outP = a.dial(b.selfId, net.relay(a.selfId));
    await clock.advance(500);
    const out = await outP;
    const inb = await inbound;
    let got = 0;
    inb.events.on('message', () => got++);
    net.partition([[a.selfId], [b.selfId]]);
    out.send(new Uint8Array([1]));
    await clock.advance(2000);
    expect(got).toBe(0);
    expect(out.open).toBe(false);
    const blocked = a.dial(b.selfId, net.relay(a.selfId)).catch((e) => e);
    await clock.advance(20_000);
    expect(await blocked).toBeInstanceOf(DialError);
    net.heal();
    const again = a.dial(b.selfId, net.relay(a.selfId));
    await clock.advance(500);
    expect((await again).open).toBe(true);
  });

  it("draws each link's base latency within latencySpread of latencyMs: [l/2, 3l/2) by default, l exactly at 0", () => {
    const draws = (opts: { latencySpread?: number }) => {
      const net = new MemoryNetwork({ clock: new VirtualClock(), seed: 3, latencyMs: 50, ...opts });
      return Array.from({ length: 2000 }, () => net.linkLatency());
    };
    const spread = draws({});
    expect(Math.min(...spread)).toBeGreaterThanOrEqual(25);
    expect(Math.max(...spread)).toBeLessThanOrEqual(75);
    expect(Math.max(...spread) - Math.min(...spread)).toBeGreaterThan(45);
    expect(draws({ latencySpread: 0.5 })).toEqual(spread); // the default is 0.5, draw for draw
    expect(new Set(draws({ latencySpread: 0 }))).toEqual(new Set([50]));
    const narrow = draws({ latencySpread: 0.1 });
    expect(Math.min(...narrow)).toBeGreaterThanOrEqual(45);
    expect(Math.max(...narrow)).toBeLessThanOrEqual(55);
  });
});
