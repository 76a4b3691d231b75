// Fuzz target: the items handlers (agree/host-items.ts and its regions' votes and ledgers at
// the hosts, play/player-items.ts at the players) under a hostile peer's frames, the way
// fuzz-host-targets.ts drives hosting: a simulated world (item-host-sim.ts) where items
// spawn in region 0,0 and two players stand in it, and a hostile peer that sends random
// and mutated item-channel frames over the real network to the region's hosts and to the
// players. The valid frames mutated are the world's own: every item-channel frame the
// honest peers sent while it formed (spawn votes, ledger states, clock probes), replayed
// from the hostile's node, and a drop of an item it does not hold.
// Checked per frame: no throw escapes, no unhandled rejection, and no item gets an owner or
// a new generation (a pickup or a drop) at any honest host or player; new spawns (unowned,
// generation 0) go on as before. Refusals are counted by the hosts' and players' counters.
import { CHANNELS } from '../dht/app-channels';
import type { NodeId } from '../core/node-id';
import { itemWireCodec } from '../agree/item-wire';
import { OWNER_REQUEST_FAULTS, signOwnerRequest } from '../agree/owner-request';
import type { FuzzTarget } from './fuzz-campaign';
import { hostileFrames, hostileTarget, type HostileFrame } from './fuzz-host-targets';
import { ItemHostSim, type ItemPeer } from './item-host-sim';

const REGION = { rx: 0, rz: 0 };
const NAME = '0,0';
/** Item-channel frames kept from the forming world (the mutants' seeds). */
const MAX_SEEDS = 200;

/** Items with an owner or dropped at least once, per honest host and player: nothing the hostile may change. */
function taken(peers: ItemPeer[]): string {
  const out: string[] = [];
  const show = (items: readonly { id: string; owner: string | null; gen: number }[]) =>
    items.filter((i) => i.owner !== null || i.gen > 0).map((i) => `${i.id}=${i.owner}/${i.gen}`).sort().join(',');
  for (const p of peers) {
    const ledger = p.host.region(NAME)?.ledger;
    out.push(`${p.peer.hex.slice(0, 6)}:${ledger ? show(ledger.items) : '-'}:${show(p.player.items())}`);
  }
  return out.join('|');
}

/** The vote counters that count refusals (the others count progress: rounds resent, splits, decisions). */
const VOTE_REFUSALS = ['nonVoter', 'wrongVote', 'wrongSet', 'oldRound', 'farRound', 'duplicate', 'equivocation', 'badCandidate', 'tooManyCandidates', 'forgedDecision', 'replayedDecision', 'conflictingDecision', 'afterHandover'] as const;

function counters(peers: ItemPeer[]): unknown {
  const out: Record<string, unknown> = {};
  for (const p of peers) out[p.peer.hex.slice(0, 6)] = { host: p.host.stats, request: Object.fromEntries(OWNER_REQUEST_FAULTS.map((k) => [k, p.host.requests.stats[k]])), vote: Object.fromEntries(VOTE_REFUSALS.map((k) => [k, p.host.voteStats[k]])), wire: p.wire.drops, player: { notFromHost: p.player.stats.notFromHost, stray: p.player.stats.stray } };
  return structuredClone(out);
}

export async function itemHandlersTarget(seed = 1): Promise<FuzzTarget<HostileFrame>> {
  const sim = new ItemHostSim({ seed, spawnMeanMs: 1500 });
  await sim.grow(8);
  // Every item-channel frame the honest peers send while the world forms is a seed.
  const seeds: Uint8Array[] = [];
  for (const p of sim.live()) {
    const send = p.dht.send.bind(p.dht);
    p.dht.send = (to: NodeId, body: Uint8Array) => {
      if (body[0] === CHANNELS.items && seeds.length < MAX_SEEDS) seeds.push(body.slice(1));
      return send(to, body);
    };
  }
  const { a, b, item } = await sim.twoPlayersAndAnItem();
  const hosts = sim.hostLedgers(NAME).map((h) => sim.items.get(h.hex)!);
  const players = [a, b];
  const hostile = sim.live().find((p) => ![...hosts, ...players].some((x) => x.peer === p))!;
  for (const p of [...hosts, ...players]) await sim.settle(hostile.dht.connect(p.peer.dht.selfId).catch(() => undefined));
  const honest = [...sim.items.values()].filter((p) => p.peer !== hostile);
  // A drop signed by the hostile itself (owner-request.ts): of an item it does not hold.
  const own = sim.items.get(hostile.hex)!;
  const req = await signOwnerRequest(own.signer, { ax: REGION.rx, az: REGION.rz }, { kind: 'drop', item: item.id, gen: item.gen, p: item }, 1, own.clock.now());
  const valid: HostileFrame[] = [
    ...seeds.map((body): HostileFrame => ({ to: 0, channel: 'items', body })),
    { to: 0, channel: 'items', body: itemWireCodec.encode({ t: 'ITEM_DROP', ...REGION, ...req, item: item.id, x: item.x, y: item.y, z: item.z }) },
  ];
  const receivers = [...hosts, ...players].map((p) => p.peer);
  return hostileTarget('items handlers', { sim, hostile, receivers, frames: hostileFrames(valid, receivers.length), held: () => taken(honest), refusals: () => counters(honest) });
}
