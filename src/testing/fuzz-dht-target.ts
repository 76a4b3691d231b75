// Fuzz target: a real DhtNode (routing table, value store, RPC handlers, overlay router
// with signature checks) fed frames by a hostile peer over one link. Frames are direct
// codec frames (every RPC and reply, SIGNAL, DATA, CLOSING) and ROUTE frames, unsigned and
// signed, for us and for others, all mutated. A frame is rejected when one of the node's
// drop or refusal counters moved for it; a rejected frame must leave the routing table,
// the value store and the link set as they were.
import fc from 'fast-check';
import { Emitter } from '../core/emitter';
import { generateNodeIdentity, type Identity } from '../core/identity';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { createDhtNode, type DhtNode } from '../dht/dht-node';
import { dhtCodec, type DhtMessage } from '../dht/messages';
import { encodeRoute, ROUTE_TAG, signedRouteData, type RouteEnvelope } from '../dht/route-frame';
import { LinkClosedError, type Link, type LinkEvents } from '../net/link';
import { MemoryNetwork } from '../net/memory-network';
import { frameArb } from './fuzz-frames';
import { counterSum, FuzzFailure, grewCounters, settle, type FuzzTarget, type FuzzVerdict } from './fuzz-campaign';
import { validDhtMessages } from './fuzz-codec-targets';

/** The hostile end of a link: what it writes arrives at the node at once; what the node sends is only counted. */
export class HostileLink implements Link {
  readonly events = new Emitter<LinkEvents>();
  isOpen = true;
  sent = 0;
  constructor(readonly remoteId: NodeId) {}
  get open(): boolean {
    return this.isOpen;
  }
  get bufferedAmount(): number {
    return 0;
  }
  /** Sees each frame the node sends the peer. */
  onSend: ((frame: Uint8Array) => void) | undefined;
  send(frame: Uint8Array): void {
    if (!this.isOpen) throw new LinkClosedError();
    this.sent++;
    this.onSend?.(frame);
  }
  close(reason = 'closed'): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.events.emit('close', { reason });
  }
  /** The peer writes one frame. */
  write(frame: Uint8Array): void {
    if (this.isOpen) this.events.emit('message', frame);
  }
}

/** What a rejected frame must not change: contacts, held values, live links. */
function digest(node: DhtNode): string {
  const contacts = node.contacts().map(idToHex).sort().join();
  const values = [...node.store.values(0)].map((h) => `${h.ns}/${h.keyHex}/${h.version}/${idToHex(h.publisher)}/${h.value.length}`).sort().join();
  const links = [...node.links.map.keys()].sort().join();
  return `${contacts}|${values}|${links}`;
}

/** Counters that move when a frame is taken (answered, stored, delivered, forwarded, or a link retired). */
function acceptances(node: DhtNode) {
  const s = node.stats;
  return { s: s.storesAccepted, d: s.routedDelivered, f: s.routedForwarded, h: s.routedHandedBack, c: s.linksClosed, o: s.framesOut };
}

/** The first difference of two digests, for the failure report. */
function stateChange(a: string, b: string): string {
  const [ca, va, la] = a.split('|').map((x) => new Set(x.split(',')));
  const [cb, vb, lb] = b.split('|').map((x) => new Set(x.split(',')));
  const diff = (x: Set<string>, y: Set<string>) => [...x].filter((e) => !y.has(e)).map((e) => e.slice(0, 60));
  return JSON.stringify({ contactsGone: diff(ca!, cb!), contactsNew: diff(cb!, ca!), valuesGone: diff(va!, vb!), valuesNew: diff(vb!, va!), linksGone: diff(la!, lb!), linksNew: diff(lb!, la!) });
}

function rejections(node: DhtNode) {
  const s = node.stats;
  return { dropped: { ...s.dropped }, storeRefused: { ...s.storeRefused }, junkLinksClosed: s.junkLinksClosed, floodLinksClosed: s.floodLinksClosed };
}

export async function dhtNodeTarget(seed = 1): Promise<FuzzTarget> {
  const clock = new VirtualClock();
  const rand = seededRandom(seed);
  const net = new MemoryNetwork({ clock, seed });
  const selfId = randomId(rand);
  const node = createDhtNode({
    selfId,
    transport: net.addNode(selfId),
    clock,
    // The link limits are tested on their own (link-set tests); here the peer is never cut off.
    // Its contacts and peer are drawn ids, showing no work (core/id-work.ts).
    options: { random: rand, idWorkBits: 0, maxJunkFrames: Number.MAX_SAFE_INTEGER, linkFramesPerSec: 1e12, linkFrameBurst: 1e12, linkBytesPerSec: 1e15, linkByteBurst: 1e15 },
  });
  await node.start();
  for (let i = 0; i < 200; i++) node.addContact(randomId(rand));
  const attacker: Identity = await generateNodeIdentity({ bits: 0, alg: 'Ed25519' });
  const attackerHex = idToHex(attacker.id);
  const other = randomId(rand);
  let randomDst = randomId(rand);
  // A destination far from us (top bit differs): its STORE is not ours to keep.
  while (((randomDst[0]! ^ selfId[0]!) & 0x80) === 0) randomDst = randomId(rand);
  let link = new HostileLink(attacker.id);
  node.links.attach(link, false, true);

  // Valid frames: every direct message (a STORE for a key near us, so it is taken), and
  // routed ones for us (unsigned, and signed by the peer's own key) and for another node.
  const direct: DhtMessage[] = validDhtMessages().map((m) => (m.t === 'STORE' ? { ...m, key: selfId.slice() } : m));
  // A STORE for a key far from us too: refused as not near.
  direct.push({ t: 'STORE', r: 9, ns: 'test', key: randomDst, rec: { v: new Uint8Array([5]), pub: attacker.id, seq: 1, ttl: 1000 } });
  const valid: Uint8Array[] = direct.map((m) => dhtCodec.encode(m));
  let seq = 1;
  for (const m of direct.slice(0, 7)) {
    const body = dhtCodec.encode(m);
    const env: RouteEnvelope = { id: seq++, ttl: 16, src: attacker.id, dst: selfId, trace: [], via: [], body };
    valid.push(encodeRoute(env).slice());
    valid.push(encodeRoute({ ...env, id: seq++, dst: other, trace: [randomId(rand)] }).slice());
    const signed = { ...env, id: seq++, ts: Math.floor(Date.now() / 1000) };
    const signature = await attacker.sign(signedRouteData('Ed25519', signed));
    valid.push(encodeRoute({ ...signed, auth: { alg: 'Ed25519', publicKey: attacker.publicKey, signature } }).slice());
  }

  return {
    name: 'dht node',
    frames: fc.oneof(
      { weight: 3, arbitrary: frameArb({ valid, codes: [...Array(14).keys()] }) },
      // Fresh routed messages (new ids get past the duplicate window) carrying mutated inner frames.
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.nat(0xffffffff), fc.integer({ min: 1, max: 64 }), fc.boolean(), frameArb({ valid: valid.slice(0, direct.length), codes: [...Array(14).keys()] }))
          .filter(([, , , body]) => body.length > 0)
          .map(([id, ttl, forUs, body]) => encodeRoute({ id, ttl, src: forUs ? attacker.id : other, dst: forUs ? selfId : randomDst, trace: [], via: [], body }).slice()),
      },
    ),
    async feed(frame): Promise<FuzzVerdict> {
      // A CLOSING (valid) retires the link, junk may close it: the peer dials again, as a real one would.
      if (node.links.get(attackerHex)?.link !== link) {
        link.close('redial');
        link = new HostileLink(attacker.id);
        node.links.attach(link, false, true);
      }
      const before = rejections(node);
      const took = acceptances(node);
      const state = digest(node);
      link.write(frame);
      // STORE answers after its (async) rule check, a signed ROUTE after its signature check
      // (WebCrypto, some turns later): wait until the node is quiet, so that nothing a frame
      // set off is counted against the next one.
      const signed = frame[0] === ROUTE_TAG && frame[48] !== 0;
      let last = counterSum(node.stats);
      for (let i = 0, quiet = 0; i < (signed ? 2000 : 50) && quiet < 2; i++) {
        await settle(1);
        const sum = counterSum(node.stats);
        const answered = !signed || grewCounters(before, rejections(node)).length > 0 || grewCounters(took, acceptances(node)).length > 0;
        quiet = sum === last && answered ? quiet + 1 : 0;
        last = sum;
      }
      const grew = grewCounters(before, rejections(node));
      // A frame taken may be followed by a drop of its own (the reply to a peer that just
      // retired its link has no route): the frame was still taken.
      // A refused STORE is answered (ok: false), so its reply does not make it taken.
      const refused = grew.some((g) => g.startsWith('storeRefused'));
      if (grew.length === 0 || (!refused && grewCounters(took, acceptances(node)).length)) return 'accepted';
      const now = digest(node);
      if (now !== state) throw new FuzzFailure(`a frame rejected for ${grew.join(', ')} changed the node's state: ${stateChange(state, now)}`);
      return { rejected: grew[0]! };
    },
    close() {
      node.stop();
    },
  };
}
