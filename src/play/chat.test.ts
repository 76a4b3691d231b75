// Chat through the region hosts (simulated): a line said reaches the players around as plain
// text with the speaker's name; a node speaking as another player, a host forging or replaying
// a line, and a flood change nothing beyond the rates, and every drop is counted.
import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { hexToId, idToHex } from '../core/node-id';
import type { WireEvents } from '../region/frame-wire';
import type { HostToPlayer } from '../region/subscription-messages';
import type { ClientEvents } from './region-client';
import type { Signer } from '../core/signer';
import { makeChatLine } from '../region/chat-line';
import { regionAt, type RegionCoord } from '../region/region-key';
import { CHAT_RULES } from '../host/chat-relay';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { ChatClient, type ChatEntry } from './chat-client';
import { NetworkChunkSource } from './network-chunk-source';

const WALL = 1_750_000_000_000;
const here = { x: 5.5, y: 80, z: 5.5, yaw: 0, pitch: 0 };

type ChatArgs = ConstructorParameters<typeof ChatClient>[0];
interface ChatPeer { source: NetworkChunkSource; chat: ChatClient; x: number }

/** A player of `p` standing `x` east of `here`, with a chunk source and a chat client (its region client and wire replaceable). */
function openChat(sim: HostSim, p: SimPeer, name: string, x: number, over: Partial<Pick<ChatArgs, 'client' | 'wire' | 'options'>> = {}): ChatPeer {
  const source = new NetworkChunkSource({ seed: 'seed-1', world: sim.world, client: p.client, dht: p.dht, clock: sim.clock, options: { name } });
  const chat = new ChatClient({
    client: p.client, wire: p.wire.players, world: sim.world, player: sim.keyring.signer(sim.playerOf(p.dht.selfId)), pass: sim.passFor(p.dht.selfId),
    verify: sim.keyring.verify, clock: sim.clock, wallClock: () => WALL + sim.clock.now(), name: () => source.name, where: () => ({ x: here.x + x, z: here.z }), ...over,
  });
  return { source, chat, x };
}

/** Runs the simulation `ms` in 100 ms steps, each player reporting where it stands at every step. */
const walker = (sim: HostSim, players: ChatPeer[]) => async (ms: number) => {
  for (let t = 0; t < ms; t += 100) {
    for (const p of players) p.source.setPosition({ ...here, x: here.x + p.x });
    await sim.run(100);
  }
};

describe('chat (simulated)', () => {
  it('lines reach the players around; forged, replayed, hostile and flooding lines change nothing and are counted', async () => {
    const sim = new HostSim({ seed: 21 });
    await sim.grow(8);
    const [pa, pb, pc] = sim.live() as [SimPeer, SimPeer, SimPeer];
    const wall = () => WALL + sim.clock.now();
    const a = openChat(sim, pa, 'Ann', 0), b = openChat(sim, pb, 'Bob', 2), c = openChat(sim, pc, 'Mallory', 4, { options: { sayBurst: 100 } });
    const walk = walker(sim, [a, b, c]);
    const seen: ChatEntry[] = [];
    b.chat.events.on('line', (l) => seen.push(l));
    await sim.settle(b.source.load(0, 0));
    await walk(2000);

    // Said, and shown as the text it is (markup stays text: the page puts it in a text node).
    const said = await sim.settle(a.chat.say('  hello <b>Bob</b>  '));
    expect(said).toMatchObject({ name: 'Ann', text: 'hello <b>Bob</b>', own: true });
    await walk(300);
    expect(seen.map((l) => [l.name, l.text, l.player])).toEqual([['Ann', 'hello <b>Bob</b>', idToHex(sim.playerOf(pa.dht.selfId))]]);
    expect(a.chat.stats.echoes).toBe(1);
    const stats = () => sim.live().reduce((s, p) => ({ relayed: s.relayed + p.host.stats.chatRelayed, wrong: s.wrong + p.host.stats.chatRefused['wrong-player'], rate: s.rate + p.host.stats.chatRefused['player-rate'], invalid: s.invalid + p.wire.players.drops.invalid }), { relayed: 0, wrong: 0, rate: 0, invalid: 0 });

    // Mallory's node speaks as Ann: her key signs, Ann's id is named. Its primary refuses it.
    const primaryHex = pb.client.attachment(regionAt(here.x, here.z))!.primary;
    const primary = sim.live().find((p) => p.hex === primaryHex)!;
    const mallory = sim.keyring.signer(sim.playerOf(pc.dht.selfId));
    const asAnn: Signer = { ...mallory, id: sim.playerOf(pa.dht.selfId) };
    const forged = await makeChatLine(asAnn, sim.world, 'Ann', 'send me your items', wall());
    const before = stats();
    pc.wire.players.send(primary.dht.selfId, { t: 'PLAYER', ...(await sim.settle(sim.passFor(pc.dht.selfId))) });
    pc.wire.players.send(primary.dht.selfId, { t: 'SAY', rx: 0, rz: 0, ...forged });
    // A line with a right-to-left override never gets past the schema.
    const hidden = await makeChatLine(mallory, sim.world, 'Mallory', 'ok', wall());
    pc.wire.players.send(primary.dht.selfId, { t: 'SAY', rx: 0, rz: 0, ...hidden, x: 'ok\u202etxt.exe' });
    await walk(300);
    expect(stats().wrong - before.wrong).toBe(1);
    expect(stats().invalid - before.invalid).toBe(1);

    // The primary itself, hostile: forges a CHAT as Ann, replays a genuine line of hers older
    // than the last Bob was shown, and sends that last one again (a duplicate: shown once).
    primary.wire.players.send(pb.dht.selfId, { t: 'CHAT', rx: 0, rz: 0, ...forged });
    const ann = sim.keyring.signer(sim.playerOf(pa.dht.selfId));
    const older = await makeChatLine(ann, sim.world, 'Ann', 'an older line', said.at - 1000);
    primary.wire.players.send(pb.dht.selfId, { t: 'CHAT', rx: 0, rz: 0, ...older });
    const genuine = await makeChatLine(ann, sim.world, 'Ann', 'hello <b>Bob</b>', said.at);
    primary.wire.players.send(pb.dht.selfId, { t: 'CHAT', rx: 0, rz: 0, ...genuine });
    // ...and a node that is not Bob's primary here sends one straight to him.
    const other = sim.live().find((p) => p.hex !== primaryHex && p !== pb)!;
    other.wire.players.send(pb.dht.selfId, { t: 'CHAT', rx: 0, rz: 0, ...hidden });
    await walk(300);
    expect(b.chat.stats.dropped).toMatchObject({ signature: 1, replay: 1, 'not-host': 1 });
    expect(b.chat.stats.duplicates).toBe(1);
    expect(seen).toHaveLength(1);

    // Mallory floods (a client without the rate): her primary passes on the burst, then its rate.
    for (let i = 0; i < 30; i++) void c.chat.say(`spam ${i}`).catch(() => undefined);
    await walk(1000);
    const spam = seen.filter((l) => l.name === 'Mallory');
    expect(spam.length).toBeGreaterThanOrEqual(CHAT_RULES.playerBurst);
    expect(spam.length).toBeLessThanOrEqual(CHAT_RULES.playerBurst + 2);
    expect(stats().rate - before.rate).toBeGreaterThanOrEqual(30 - spam.length);
    // Ann still gets through.
    await sim.settle(a.chat.say('still here'));
    await walk(300);
    expect(seen.at(-1)).toMatchObject({ name: 'Ann', text: 'still here' });
    expect(b.chat.lines()).toHaveLength(seen.length);
    for (const p of [a, b, c]) {
      p.chat.close();
      p.source.close();
    }
    sim.stopAll();
  });

  it('a line the primary never passed on is sent again until it is echoed, waits out a re-attach, and is marked unheard if never echoed', async () => {
    const sim = new HostSim({ seed: 21 });
    await sim.grow(6);
    const [pa, pb] = sim.live() as [SimPeer, SimPeer];
    let lose = 1, detached = false;
    // A's SAYs go through a wire that loses the first `lose` of them (a refused or lost frame).
    const wire = Object.create(pa.wire.players) as typeof pa.wire.players;
    wire.send = (to, msg) => (msg.t === 'SAY' && lose-- > 0 ? false : pa.wire.players.send(to, msg));
    // A's subscription can be made to look detached (a failover's re-attach under way).
    const client = { attachment: (r: RegionCoord) => (detached ? undefined : pa.client.attachment(r)) };
    const a = openChat(sim, pa, 'Ann', 0, { wire, client }), b = openChat(sim, pb, 'Bob', 2);
    const walk = walker(sim, [a, b]);
    const seen: ChatEntry[] = [];
    b.chat.events.on('line', (l) => seen.push(l));
    await sim.settle(b.source.load(0, 0));
    await walk(2000);
    await sim.settle(a.chat.say('are you there'));
    await walk(2500);
    expect(seen.map((l) => l.text)).toEqual(['are you there']);
    expect(a.chat.stats).toMatchObject({ echoes: 1, resent: 1, unheard: 0 });
    // The first send lost, then A re-attaching for 2.5 s (both resends of old found no primary
    // and the line was given up): it waits for the primary and goes once there is one.
    lose = 1;
    await sim.settle(a.chat.say('back again'));
    detached = true;
    await walk(2500);
    detached = false;
    await walk(1500);
    expect(seen.map((l) => l.text)).toEqual(['are you there', 'back again']);
    expect(a.chat.stats).toMatchObject({ echoes: 2, resent: 2, unheard: 0 });
    // Every send lost: sent MAX_SENDS times, then given up and marked unheard (the box shows it
    // "not sent"); shown once at most anywhere.
    const marked: ChatEntry[] = [];
    a.chat.events.on('heard', (l) => marked.push({ ...l }));
    lose = 100;
    await sim.settle(a.chat.say('anyone'));
    await walk(5000);
    expect(seen).toHaveLength(2);
    expect(a.chat.stats).toMatchObject({ echoes: 2, resent: 4, unheard: 1 });
    expect(marked).toMatchObject([{ text: 'anyone', unheard: true }]);
    expect(a.chat.lines().map((l) => [l.text, !!l.unheard])).toEqual([['are you there', false], ['back again', false], ['anyone', true]]);
    for (const p of [a, b]) {
      p.chat.close();
      p.source.close();
    }
    sim.stopAll();
  });

  it('a line the primary passed on reaches a listener that lost it once that one re-attaches, or that was attaching', async () => {
    const sim = new HostSim({ seed: 21 });
    await sim.grow(6);
    const [pa, pb] = sim.live() as [SimPeer, SimPeer];
    // B's link loses the next `lose` CHATs to it; B's subscription can be made to look
    // detached (a re-attach under way), its 'attached' event told by the test.
    let lose = 0, detached = false;
    const attachedB = new Emitter<ClientEvents>();
    const wire = Object.create(pb.wire.players) as typeof pb.wire.players;
    const toPlayer = new Emitter<WireEvents<HostToPlayer>>();
    pb.wire.players.toPlayer.on('frame', (f) => (f.msg.t === 'CHAT' && lose-- > 0 ? undefined : toPlayer.emit('frame', f)));
    Object.defineProperty(wire, 'toPlayer', { value: toPlayer });
    const client = { attachment: (r: RegionCoord) => (detached ? undefined : pb.client.attachment(r)), events: attachedB };
    const a = openChat(sim, pa, 'Ann', 0), b = openChat(sim, pb, 'Bob', 2, { wire, client });
    const walk = walker(sim, [a, b]);
    const seen: string[] = [];
    b.chat.events.on('line', (l) => seen.push(l.text));
    await sim.settle(b.source.load(0, 0));
    await walk(2000);
    const region = regionAt(here.x, here.z);
    const primary = pb.client.attachment(region)!.primary;
    await sim.settle(a.chat.say('first'));
    await walk(500);
    expect(seen).toEqual(['first']);
    // Lost on B's link after the primary passed it on (A has its echo: A sends it no more).
    lose = 1;
    await sim.settle(a.chat.say('lost on the way'));
    await walk(1500);
    expect(seen).toEqual(['first']);
    expect(a.chat.stats).toMatchObject({ echoes: 2, resent: 0 });
    // B subscribes again having missed frames (as after a gap or a silence): the primary's last
    // lines come again; the one B lost is shown, the one it had is a duplicate.
    pb.wire.players.send(hexToId(primary), { t: 'SUBSCRIBE', rx: region.rx, rz: region.rz, host: false, missed: true });
    await walk(500);
    expect(seen).toEqual(['first', 'lost on the way']);
    expect(b.chat.stats.duplicates).toBe(1);
    // Said while B is between primaries: held, and taken once B is attached to its sender.
    detached = true;
    await sim.settle(a.chat.say('while you attach'));
    await walk(500);
    expect(seen).toHaveLength(2);
    detached = false;
    attachedB.emit('attached', { region, primary, epoch: pb.client.attachment(region)!.epoch });
    await walk(200);
    expect(seen).toEqual(['first', 'lost on the way', 'while you attach']);
    // Between primaries again: a line from the primary B followed last is taken at once, and
    // a line B says waits for a primary instead of being refused, then goes.
    const heardByA: string[] = [];
    a.chat.events.on('line', (l) => heardByA.push(l.text));
    detached = true;
    await sim.settle(a.chat.say('from the one you followed'));
    await walk(500);
    expect(seen.at(-1)).toBe('from the one you followed');
    const waiting = await sim.settle(b.chat.say('wait for me'));
    expect(waiting).toMatchObject({ text: 'wait for me', own: true });
    await walk(1500);
    expect(heardByA).not.toContain('wait for me');
    detached = false;
    await walk(1500);
    expect(heardByA).toContain('wait for me');
    expect(b.chat.stats).toMatchObject({ echoes: 1, unheard: 0 });
    expect(b.chat.stats.dropped).toMatchObject({ 'not-host': 0, replay: 0, signature: 0 });
    expect(b.chat.stats.held).toBe(1);
    for (const p of [a, b]) {
      p.chat.close();
      p.source.close();
    }
    sim.stopAll();
  });

  it('a line that cannot be said says why', async () => {
    const sim = new HostSim({ seed: 5 });
    await sim.grow(3);
    const [p] = sim.live() as [SimPeer];
    const chat = new ChatClient({ client: p.client, wire: p.wire.players, world: sim.world, player: sim.keyring.signer(sim.playerOf(p.dht.selfId)), verify: sim.keyring.verify, clock: sim.clock, name: () => 'Ann', where: () => ({ x: 1, z: 1 }) });
    await expect(chat.say('   ')).rejects.toMatchObject({ name: 'ChatError', code: 'empty' });
    await expect(chat.say('x'.repeat(201))).rejects.toMatchObject({ code: 'too-long' });
    await expect(chat.say('a\u0000b')).rejects.toMatchObject({ code: 'too-long' });
    await expect(chat.say('hello')).rejects.toMatchObject({ code: 'nowhere' });
    chat.close();
    sim.stopAll();
  });
});
