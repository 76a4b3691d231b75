// Fuzz target: the relay's rules (signaling/relay-core.ts) fed a hostile socket's frames:
// registers (valid proofs, others' ids, tampered keys and signatures), signals, peer
// requests and junk, text and binary. A frame the relay answers with an error is a
// rejection, counted by its code (stats.errors); it must leave the id table as it was and
// reach no other socket. (Here, not in src/testing/: src/ may not import the relay.)
import fc from 'fast-check';
import { toB64 } from '../src/core/base64';
import { generateNodeIdentity, type Identity } from '../src/core/identity';
import { idToHex } from '../src/core/node-id';
import { registerProof, type RelayErrorCode } from '../src/net/relay-protocol';
import { FuzzFailure, grewCounters, type FuzzTarget, type FuzzVerdict } from '../src/testing/fuzz-campaign';
import { textFrameArb } from '../src/testing/fuzz-frames';
import { RELAY_DEFAULTS, RelayCore, type RelayClient, type RelaySocket } from '../signaling/relay-core';

class StandInSocket implements RelaySocket {
  open = true;
  readonly got: string[] = [];
  send(text: string): void {
    this.got.push(text);
  }
  close(): void {
    this.open = false;
  }
}

/** A text frame, a binary frame of some size, or a mutant of one of the socket's valid frames. */
type RelayFrame = { text: string } | { binary: number } | { mutant: [pick: number, key: number, mode: number, value: unknown] };

export async function relayCoreTarget(): Promise<FuzzTarget<RelayFrame>> {
  let t = 0;
  // No rate or strike limits in the way of the fuzzer (they are tested on their own); time moves 100 ms a frame.
  const core = new RelayCore({ ...RELAY_DEFAULTS, maxStrikes: Number.MAX_SAFE_INTEGER }, () => (t += 100));
  const honest: { id: Identity; socket: StandInSocket; client: RelayClient }[] = [];
  const register = async (who: Identity, c: RelayClient, id = idToHex(who.id)) =>
    JSON.stringify({ type: 'register', id, alg: who.alg, pk: toB64(who.publicKey), sig: toB64(await who.sign(registerProof(c.nonce, id))) });
  for (let i = 0; i < 3; i++) {
    const id = await generateNodeIdentity({ bits: 0 });
    const socket = new StandInSocket();
    const client = core.connect(socket, `10.0.0.${i}`);
    await core.message(client, await register(id, client), 10);
    honest.push({ id, socket, client });
  }
  const me = await generateNodeIdentity({ bits: 0 });
  let mine = new StandInSocket();
  let client = core.connect(mine, '10.0.0.9');
  // Frames valid for the socket we hold now; a new socket (new challenge) every 200 frames.
  let valid: string[] = [];
  const refresh = async () => {
    const victim = honest[0]!;
    valid = [
      await register(me, client),
      await register(me, client, idToHex(victim.id.id)), // another's id, signed with our key
      JSON.stringify({ type: 'signal', to: idToHex(victim.id.id), blob: { t: 'rtc', v: 1 } }),
      JSON.stringify({ type: 'peers', n: 3 }),
      JSON.stringify({ type: 'peers' }),
      JSON.stringify({ type: 'ping' }),
    ];
  };
  await refresh();
  let n = 0;
  const idTable = () => [...core.byId].map(([id, c]) => `${id}:${honest.findIndex((h) => h.client === c)}`).sort().join();
  const delivered = () => honest.reduce((k, h) => k + h.socket.got.length, 0);
  const other: fc.Arbitrary<RelayFrame> = fc.oneof(
    { weight: 20, arbitrary: textFrameArb(['{"type":"peers","n":2}', `{"type":"signal","to":"${idToHex(honest[1]!.id.id)}","blob":{}}`]).map((text) => ({ text })) },
    { weight: 1, arbitrary: fc.nat(40_000).map((binary) => ({ binary })) },
  );
  return {
    name: 'relay',
    // Mutations of this socket's valid frames are made per feed (the challenge changes), from a generated seed.
    frames: fc.oneof(
      { weight: 3, arbitrary: fc.tuple(fc.nat(), fc.nat(), fc.nat(3), fc.jsonValue({ maxDepth: 2 })).map((mutant) => ({ mutant })) },
      { weight: 2, arbitrary: other },
    ),
    async feed(f): Promise<FuzzVerdict> {
      if (++n % 200 === 0 || !mine.open) {
        core.disconnect(client);
        mine = new StandInSocket();
        client = core.connect(mine, '10.0.0.9');
        await refresh();
      }
      let text: string | undefined;
      let size: number;
      if ('binary' in f) size = f.binary;
      else {
        text = 'mutant' in f ? mutant(valid, ...f.mutant) : f.text;
        size = Buffer.byteLength(text);
      }
      const before = { ...core.stats.errors };
      const table = idTable();
      const out = delivered();
      const ours = core.byId.get(idToHex(me.id)) === client;
      await core.message(client, text, size);
      const grew = grewCounters(before, core.stats.errors) as RelayErrorCode[];
      if (grew.length === 0) return 'accepted';
      if (idTable() !== table || (core.byId.get(idToHex(me.id)) === client) !== ours) throw new FuzzFailure(`a frame refused as ${grew[0]} changed the id table`);
      if (delivered() !== out) throw new FuzzFailure(`a frame refused as ${grew[0]} reached another socket`);
      return { rejected: grew[0]! };
    },
  };
}

/** One of the valid frames with a field replaced, removed or added (mode 3: as it is). */
function mutant(valid: string[], pick: number, key: number, mode: number, value: unknown): string {
  const frame = valid[pick % valid.length]!;
  const o = JSON.parse(frame) as Record<string, unknown>;
  const keys = Object.keys(o);
  const k = keys[key % keys.length]!;
  if (mode === 0) o[k] = value;
  else if (mode === 1) delete o[k];
  else if (mode === 2) o[`x${key % 4}`] = value;
  else return frame;
  return JSON.stringify(o);
}
