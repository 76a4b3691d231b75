// The 'region' channel decoded once and split by direction: a node's host side hears only
// what players send, its player side only what hosts send; a frame whose side nobody here
// listens to (a hostile peer may send either kind to anyone) is dropped, counted, and
// reaches no one.
import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { ID_BYTES, type NodeId } from '../core/node-id';
import { VirtualClock } from '../core/virtual-clock';
import type { AppChannel, ChannelEvents } from '../dht/app-channels';
import { openPlayerWire, RegionWire } from './region-wire';
import { FRAME_SIDE, subscriptionCodec, subscriptionSpec, type SubscriptionMessage } from './subscription-messages';

const R = { rx: 1, rz: 2 };
const peer = new Uint8Array(ID_BYTES).fill(7) as NodeId;

/** One frame of each kind a player sends, and of each kind a host sends (the small ones). */
const TO_HOST: Exclude<SubscriptionMessage, { t: 'PART' }>[] = [
  { t: 'SUBSCRIBE', ...R, host: true },
  { t: 'UNSUBSCRIBE', ...R },
  { t: 'EDIT', ...R, r: 1, x: 40, y: 100, z: 40, id: 1, px: 40.5, py: 101, pz: 42.5 },
  { t: 'MOVE', ...R, x: 1, y: 2, z: 3, yaw: 0, pitch: 0 },
  { t: 'POSITIONS_LOST', ...R, e: 1 },
];
const TO_PLAYER: Exclude<SubscriptionMessage, { t: 'PART' }>[] = [
  { t: 'HEARTBEAT', ...R, e: 1, s: 3 },
  { t: 'NOT_PRIMARY', ...R, e: 1, primary: peer },
  { t: 'CONFIRM', ...R, r: 1, e: 1, s: 3 },
  { t: 'REJECT', ...R, r: 1, reason: 'rate' },
  { t: 'DELTA', ...R, e: 1, from: 1, to: 1, entries: new Uint8Array(0) },
];

function wire() {
  const events = new Emitter<ChannelEvents>();
  const channel: AppChannel = { name: 'region', events, send: () => true };
  const w = new RegionWire(subscriptionCodec, channel, new VirtualClock());
  const hostHeard: string[] = [];
  const playerHeard: string[] = [];
  const feed = (m: Exclude<SubscriptionMessage, { t: 'PART' }>) => events.emit('message', { from: peer, body: subscriptionCodec.encode(m) });
  return { w, hostHeard, playerHeard, feed };
}

describe('RegionWire: one decoder, each side its own direction', () => {
  it('hands what players send to the host side only, and what hosts send to the player side only', () => {
    const { w, hostHeard, playerHeard, feed } = wire();
    w.toHost.on('frame', ({ msg }) => hostHeard.push(msg.t));
    w.toPlayer.on('frame', ({ msg }) => playerHeard.push(msg.t));
    for (const m of [...TO_HOST, ...TO_PLAYER]) feed(m);
    expect(hostHeard).toEqual(TO_HOST.map((m) => m.t));
    expect(playerHeard).toEqual(TO_PLAYER.map((m) => m.t));
    expect(w.unheard).toEqual({ host: 0, player: 0 });
    expect(w.framesIn).toBe(TO_HOST.length + TO_PLAYER.length);
  });

  it('drops and counts host-bound frames at a node with only a player side, and the reverse; nothing reaches the other side', () => {
    const player = wire();
    player.w.toPlayer.on('frame', ({ msg }) => player.playerHeard.push(msg.t));
    for (const m of TO_HOST) player.feed(m);
    expect(player.playerHeard).toEqual([]);
    expect(player.w.unheard).toEqual({ host: TO_HOST.length, player: 0 });

    const host = wire();
    host.w.toHost.on('frame', ({ msg }) => host.hostHeard.push(msg.t));
    for (const m of TO_PLAYER) host.feed(m);
    expect(host.hostHeard).toEqual([]);
    expect(host.w.unheard).toEqual({ host: 0, player: TO_PLAYER.length });
  });

  it('gives every frame type a side (PART aside), and the two sides share none', () => {
    const sides = Object.entries(FRAME_SIDE);
    expect(sides.map(([t]) => t).sort()).toEqual(Object.keys(subscriptionSpec).filter((t) => t !== 'PART').sort());
    const host = sides.filter(([, s]) => s === 'host').map(([t]) => t);
    const player = sides.filter(([, s]) => s === 'player').map(([t]) => t);
    expect(host).toEqual(['SUBSCRIBE', 'UNSUBSCRIBE', 'EDIT', 'MOVE', 'POSITIONS_LOST', 'PLAYER', 'SAY']);
    expect(player.filter((t) => host.includes(t))).toEqual([]);
  });

  it('lets a beat and plain positions wait on a link for company; an edit, its answer, a delta, positions carrying one, never', () => {
    const sent: [string, boolean][] = [];
    const channel: AppChannel = { name: 'region', events: new Emitter<ChannelEvents>(), send: (_to, body, mayWait) => (sent.push([subscriptionCodec.decode(body).t, mayWait === true]), true) };
    const w = openPlayerWire({ open: () => channel }, new VirtualClock());
    const positions = { t: 'POSITIONS', ...R, e: 1, n: 4, b: new Uint8Array(8) } as const;
    for (const m of [...TO_HOST, ...TO_PLAYER, positions, { ...positions, d: [1, 1, new Uint8Array(1)] as [number, number, Uint8Array] }, { ...positions, s: 3 }]) w.send(peer, m);
    expect(sent.filter(([, wait]) => wait).map(([t]) => t)).toEqual(['HEARTBEAT', 'POSITIONS', 'POSITIONS']);
    expect(sent.filter(([t, wait]) => t === 'POSITIONS' && !wait)).toHaveLength(1);
  });
});
