// Fuzz target: a player's direct messages (play/direct-messages.ts) fed through its public
// side (the 'player' channel's message event) by the node the messages name and by a
// stranger: real signed messages and acknowledgements, mutated. Every frame is either taken
// (shown, acknowledged again, or an answer to one sent) or dropped and counted by reason,
// never both; a dropped one shows nothing.
import { Emitter } from '../core/emitter';
import { ID_BYTES } from '../core/node-id';
import { VirtualClock } from '../core/virtual-clock';
import type { AppChannel, ChannelEvents } from '../dht/app-channels';
import { directMessageCodec, makeDirectMessage } from '../play/direct-message';
import { DirectMessages } from '../play/direct-messages';
import { FuzzFailure, grewCounters, type FuzzTarget, type FuzzVerdict } from './fuzz-campaign';
import { frameArb } from './fuzz-frames';
import { SimKeyring } from './sim-keyring';

const id = (n: number) => new Uint8Array(ID_BYTES).fill(n);
const WALL = 1_750_000_000_000;

export async function directMessagesTarget(): Promise<FuzzTarget> {
  const clock = new VirtualClock();
  const keys = new SimKeyring('fuzz-dm');
  const self = id(2), from = id(1), stranger = id(9);
  const player = keys.signer(id(0x81));
  const channel: AppChannel = { name: 'player', events: new Emitter<ChannelEvents>(), send: () => true };
  const dms = new DirectMessages({ channel, world: 'fuzz', self, player: keys.signer(id(0x82)), verify: keys.verify, clock, wallClock: () => WALL + clock.now(), name: () => 'Bob' });
  let shown = 0;
  dms.events.on('message', (e) => void (e.dir === 'in' && shown++));
  // Signed messages stamped a second apart over the campaign's time (it moves 100 ms a frame), so valid ones keep coming.
  const valid: Uint8Array[] = [];
  for (let i = 0; i < 40; i++) valid.push(directMessageCodec.encode(await makeDirectMessage(player, 'fuzz', from, self, 'Ann', `hello ${i} <b>`, WALL + i * 1000)));
  valid.push(directMessageCodec.encode({ t: 'DM_ACK', w: WALL }));
  let n = 0;
  return {
    name: 'direct messages',
    frames: frameArb({ valid, codes: [0, 1, 2, 3] }),
    async feed(frame): Promise<FuzzVerdict> {
      clock.advanceSync(100);
      const sender = n++ % 5 === 4 ? stranger : from;
      const drops = { ...dms.stats.dropped };
      const { duplicates, strayAcks, delivered } = dms.stats;
      const before = shown;
      channel.events.emit('message', { from: sender, body: frame });
      // The signature check settles in a microtask or two (the keyring answers at once).
      for (let i = 0; i < 4; i++) await Promise.resolve();
      const grew = grewCounters(drops, dms.stats.dropped);
      const taken = shown - before + (dms.stats.duplicates - duplicates) + (dms.stats.strayAcks - strayAcks) + (dms.stats.delivered - delivered);
      if (grew.length > 0 && shown !== before) throw new FuzzFailure(`a frame dropped as ${grew[0]} was shown`);
      if (grew.length + taken !== 1) throw new FuzzFailure(`a frame was counted ${grew.length + taken} times (dropped: ${grew.join(', ') || 'no'})`);
      return grew.length ? { rejected: grew[0]! } : 'accepted';
    },
    close: () => dms.close(),
  };
}
