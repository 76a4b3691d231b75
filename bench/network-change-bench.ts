// network_change_*: how fast peers whose WebRTC links all died link again. Three headless
// peers (the Node composition of `npm run peer`: real node-datachannel under simple-peer,
// the real relay, LevelDB) in this process, loopback only (`npm run bench` runs inside
// scripts/netns.sh, a namespace of its own; this bench turns its `lo` off and on).
// simple-peer destroys a connection whose ICE fails and cannot restart ICE (node-datachannel
// has no restartIce; docs/TESTING.md "Networks change"), so a link that died is dialled anew:
// the peer left with no link searches the relay's list (bootstrap/peer-finder.ts, 1 s then
// doubling) and dials its old peers at once (Dht.retryDialsIfAlone: their dial backoff
// forgotten), and the relay connection is re-opened with backoff (doorway-reopener.ts).
// - network_change_cut_relink_ms: one peer's connections closed at once, with no goodbye (as
//   when its WebRTC stack drops them): to its first link again; `_all_ms`: to as many links
//   as before; median of `rounds`.
// - network_change_silent_relink_ms: one peer's links go silent both ways with their
//   connections left open (a move to another network: nobody is told): to as many links as
//   before, the DHT's heartbeat timeout (15 s) included.
// - network_change_outage_relink_ms: the network gone for `outageMs` (`ip link set lo down`,
//   relay connections and every link lost), then back: from back to every peer linked again,
//   median of `rounds`; `network_change_outage_online_relink_ms`: the same where each peer is
//   told the network is back (Peer.networkBack, what a tab's `online` event calls; Node has
//   no such event); `_links_lost`: links of the three that died during the outage (all, if
//   the outage outlasts ICE's timeouts); `network_change_failed_rounds`: rounds that did
//   not link again within giveUpMs.
// Run alone: `npm run bench -- network_change` (~6 minutes).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../signaling/serve';
import { startHeadlessPeer, type HeadlessPeer } from '../src/app/headless-peer';
import { testNodeIdentity } from '../src/testing/node-identities';
import { median } from './stats';

export const NETWORK_CHANGE_DEFAULTS = {
  peers: 3,
  rounds: 3,
  outageMs: 30_000,
  /** A round that has not re-linked by then counts as failed. */
  giveUpMs: 90_000,
};

const WORLD = 'network-change-bench';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const links = (p: HeadlessPeer) => p.peer.dht.linkInfo().length;

async function until(ok: () => boolean, ms: number): Promise<number | null> {
  const t0 = performance.now();
  while (!ok()) {
    if (performance.now() - t0 > ms) return null;
    await sleep(20);
  }
  return performance.now() - t0;
}

/** Closes every WebRTC connection of `p` at once, no goodbye sent: what its WebRTC stack does when ICE fails. */
function cutLinks(p: HeadlessPeer): number {
  const conns = (p.peer.transport as unknown as { links: Set<{ peer: { destroy(): void } }> }).links;
  const n = conns.size;
  for (const l of [...conns]) l.peer.destroy();
  return n;
}

/**
 * Every link of `p` goes silent both ways, its connections left open: what a move to
 * another network looks like to both ends (the old paths carry nothing; neither end is
 * told). Both find out from the DHT's heartbeat (heartbeatTimeoutMs of silence).
 */
function silenceLinks(p: HeadlessPeer): { closed: boolean }[] {
  type Sp = { removeAllListeners(e: string): void; write: (f: Uint8Array) => boolean; send: (f: Uint8Array) => void };
  const conns = [...(p.peer.transport as unknown as { links: Set<{ peer: Sp; closed: boolean }> }).links];
  for (const { peer } of conns) {
    peer.removeAllListeners('data');
    peer.write = () => true;
    peer.send = () => {};
  }
  return conns;
}

function lo(state: 'up' | 'down'): void {
  execFileSync('ip', ['link', 'set', 'lo', state]);
}

export async function benchNetworkChange(opts: Partial<typeof NETWORK_CHANGE_DEFAULTS> = {}): Promise<Record<string, number>> {
  const o = { ...NETWORK_CHANGE_DEFAULTS, ...opts };
  if (process.env.VP_IN_NETNS !== '1') throw new Error('network_change turns lo off: run it inside scripts/netns.sh (npm run bench does)');
  const server = await startServer({ port: 0, host: '127.0.0.1', relayOnly: true });
  const dirs: string[] = [];
  const peers: HeadlessPeer[] = [];
  try {
    for (let i = 0; i < o.peers; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'vp-network-change-'));
      dirs.push(dataDir);
      peers.push(await startHeadlessPeer({ world: WORLD, dataDir, relay: server.relayUrl, bindAddress: '127.0.0.1', identity: await testNodeIdentity() }));
    }
    const meshed = () => peers.every((p) => links(p) >= o.peers - 1);
    if (await until(meshed, 30_000) === null) throw new Error(`the ${o.peers} peers did not all link: ${peers.map(links).join(', ')}`);
    await sleep(3000); // the join's lookups settle

    const cutFirst: number[] = [], cutAll: number[] = [];
    for (let r = 0; r < o.rounds; r++) {
      const a = peers[r % peers.length]!;
      const before = links(a);
      const t0 = performance.now();
      cutLinks(a);
      await until(() => links(a) === 0, 5_000);
      const first = await until(() => links(a) > 0, o.giveUpMs) === null ? null : performance.now() - t0;
      const all = await until(() => links(a) >= before, o.giveUpMs) === null ? null : performance.now() - t0;
      if (first !== null) cutFirst.push(first);
      if (all !== null) cutAll.push(all);
      console.error(`network_change cut round ${r}: ${a.peer.id.slice(0, 8)} had ${before} links; first back after ${first === null ? 'never' : Math.round(first)} ms, all after ${all === null ? 'never' : Math.round(all)} ms`);
      await until(meshed, 30_000);
      await sleep(2000);
    }

    const silent: number[] = [];
    for (let r = 0; r < o.rounds; r++) {
      const a = peers[r % peers.length]!;
      const before = links(a);
      const t0 = performance.now();
      const old = silenceLinks(a);
      await until(() => old.every((l) => l.closed), 30_000);
      const goneMs = performance.now() - t0;
      const all = await until(() => links(a) >= before, o.giveUpMs) === null ? null : performance.now() - t0;
      if (all !== null) silent.push(all);
      console.error(`network_change silent round ${r}: ${a.peer.id.slice(0, 8)}'s ${before} links silent; the silent ones closed after ${Math.round(goneMs)} ms, all back after ${all === null ? 'never' : Math.round(all)} ms`);
      await until(meshed, 30_000);
      await sleep(2000);
    }

    const outage: number[] = [], outageOnline: number[] = [], lost: number[] = [];
    for (let r = 0; r < 2 * o.rounds; r++) {
      // Every other round as a tab has it: its page's `online` event calls networkBack.
      const online = r % 2 === 1;
      const before = peers.map(links);
      lo('down');
      await sleep(o.outageMs);
      const during = peers.map(links);
      lo('up');
      if (online) for (const p of peers) p.peer.networkBack();
      const ms = await until(meshed, o.giveUpMs);
      lost.push(before.reduce((n, b, i) => n + b - during[i]!, 0));
      if (ms !== null) (online ? outageOnline : outage).push(ms);
      console.error(`network_change outage round ${r}${online ? ' (online event)' : ''}: ${o.outageMs} ms down; links before ${before.join(',')}, at the end of the outage ${during.join(',')}; all linked again ${ms === null ? 'never' : `${Math.round(ms)} ms`} after lo came back; relay re-opened ${peers.map((p) => p.peer.relayReconnects).join(',')} times so far`);
      await sleep(3000);
    }
    const out: Record<string, number> = {};
    if (cutFirst.length) out.network_change_cut_relink_ms = Math.round(median(cutFirst));
    if (cutAll.length) out.network_change_cut_relink_all_ms = Math.round(median(cutAll));
    if (silent.length) out.network_change_silent_relink_ms = Math.round(median(silent));
    if (outage.length) out.network_change_outage_relink_ms = Math.round(median(outage));
    if (outageOnline.length) out.network_change_outage_online_relink_ms = Math.round(median(outageOnline));
    out.network_change_outage_links_lost = Math.round(median(lost));
    out.network_change_failed_rounds = 4 * o.rounds - cutAll.length - silent.length - outage.length - outageOnline.length;
    return out;
  } finally {
    try { lo('up'); } catch { /* already up */ }
    for (const p of peers) await p.stop().catch(() => {});
    await server.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

