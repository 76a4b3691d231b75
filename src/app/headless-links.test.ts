// Headless peers (the Node composition of `npm run peer`: real node-datachannel, the real
// relay in this process, LevelDB in temp dirs), loopback only: run inside scripts/netns.sh.
// Their dashboard figures say how each link is carried, as a tab's do; one whose
// connections all dropped at once (its network changed) links again within seconds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../signaling/serve';
import { testNodeIdentity } from '../testing/node-identities';
import { startHeadlessPeer, type HeadlessPeer } from './headless-peer';

const WORLD = 'headless-links';
let server: RunningServer;
const peers: HeadlessPeer[] = [];
const dirs: string[] = [];

async function headless(): Promise<HeadlessPeer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vp-headless-links-'));
  dirs.push(dataDir);
  const p = await startHeadlessPeer({ world: WORLD, dataDir, relay: server.relayUrl, bindAddress: '127.0.0.1', identity: await testNodeIdentity() });
  peers.push(p);
  return p;
}

async function until<T>(what: string, fn: () => T, ok: (t: T) => boolean, ms: number): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  server = await startServer({ port: 0, relayOnly: true });
});
afterAll(async () => {
  for (const p of peers) await p.stop();
  await server.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('headless peers on one machine', () => {
  it("report each link's path in their figures: direct, never through NAT or TURN", async () => {
    const a = await headless();
    const b = await headless();
    for (const [p, other] of [[a, b], [b, a]] as const) {
      // Sampled every 2 s; the path is read from node-datachannel's selected candidate pair,
      // the bytes from its counters, which can lag the path by a sample (a CI run read 0).
      const f = await until(`${p.peer.id.slice(0, 8)} sees how its link to the other is carried`, () => p.figures().links, (ls) => ls.some((l) => l.hex === other.peer.id && l.path !== undefined && (l.bytes ?? 0) > 0), 8_000);
      const link = f.find((l) => l.hex === other.peer.id)!;
      // Both ends' own loopback addresses: 'host', or 'prflx' where the other's check
      // arrived before its trickled candidate (libdatachannel then keeps the learned one).
      expect(['host', 'prflx']).toContain(link.path);
      expect(link.bytes).toBeGreaterThan(0);
    }
    const paths = await a.peer.transport.linkPaths();
    expect(paths.get(b.peer.id)?.path?.local).toBe('host');
  });

  // One retry: beside other load about 1 run in 6 brings one of the two links back and not the
  // other within 8 s (a redial of the recovery fails on a libdatachannel race, 'a remote
  // candidate without ICE transport', and that peer is then in the 30 s dial backoff). Seen in
  // the fresh-clone run of 70555e6, in 1 of 4 runs beside 3 busy loops and in 1 of 6 at load
  // 60-70; untraced.
  it('a peer whose connections all dropped at once links again within seconds, not after the 30 s dial backoff', { retry: 1 }, async () => {
    // A retry starts from the first test's two peers: the failed attempt's C is stopped, or
    // A and B would hold three links each and the retry could never pass.
    while (peers.length > 2) await peers.pop()!.stop();
    const [a, b] = peers;
    const c = await headless();
    const linked = (p: HeadlessPeer) => p.peer.dht.linkInfo().length;
    await until('three peers meshed', () => peers.map(linked), (n) => n.every((x) => x === 2), 8_000);
    // Every connection of C closed at once, no goodbye: what its WebRTC stack does when ICE
    // fails on a network change. Both ends see their links close and back each other off
    // (dialBackoffMs, 30 s); C, alone, searches and dials them again at once (peer.ts search).
    // Every connection: the open links and any still connecting. Waited for: each dropped
    // link closed, not for C to be seen with no link at all: at load 60-70, 2 runs in 6 still
    // saw it with one link 3 s after the drop (a connection the drop of open links alone
    // missed, C's transport once held 3 links with 2 in its DHT; or a redial, which C makes as
    // soon as its links close, open before the last close was seen).
    const transport = c.peer.transport as unknown as { links: Set<{ closed: boolean; peer: { destroy(): void } }>; conns: Map<string, { peer: { destroy(): void } }> };
    const dropped = [...transport.links];
    const t0 = Date.now();
    for (const conn of [...transport.conns.values()]) conn.peer.destroy();
    for (const l of dropped) l.peer.destroy();
    await until("C's links closed", () => dropped.filter((l) => !l.closed).length, (n) => n === 0, 3_000);
    const closedMs = Date.now() - t0;
    // Linked again: two links in C's DHT, and two open links in its transport that are new ones.
    await until('C linked to both again', () => [linked(c), [...transport.links].filter((l) => !dropped.includes(l) && !l.closed).length] as const, ([n, fresh]) => n === 2 && fresh >= 2, 8_000);
    console.log(`links of a peer whose connections all dropped: back in ${Date.now() - t0} ms (closed in ${closedMs} ms)`);
    // A and B take C's new links into their tables when their ends of the handshakes end,
    // which may come after C's: waited for, not read at the moment C had both.
    await until('A and B linked to C again', () => [linked(a!), linked(b!)], (n) => n.every((x) => x === 2), 5_000);
  });
});
