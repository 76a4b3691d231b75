// An attacker floods a node with link handshakes, each HELLO with a fresh key its claimed id
// does not derive from (one scrypt each for the node), while an honest peer whose key the node
// never met dials it. The honest handshake completes within a bound: its key waits its turn
// behind the flood's handshakes open at once (link-handshake.ts HANDSHAKE_DERIVATIONS), where
// one refusing budget for all handshakes judged it unproven for as long as the flood lasted.
import { describe, expect, it, vi } from 'vitest';
import { toB64 } from '../core/base64';
import { DerivationQueue } from '../core/derivation-queue';
import { nodeIdDerivations } from '../core/key-ids';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { handshakePipe } from '../testing/handshake-pipe';
import { testNodeIdentity } from '../testing/node-identities';
import { strangerIdentity } from '../testing/stranger-identity';
import { HANDSHAKE_DERIVATIONS, runHandshake, type ControlMsg, type HandshakeIo } from './link-handshake';
import { WEBRTC_DEFAULTS } from './webrtc-transport';

const FPS = 'sha-256 aa:bb|sha-256 cc:dd';
/** The flood's handshakes open at once (the transport admits 32 inbound: the bound below scales with them). */
const IN_FLIGHT = 16;
/** Handshakes of the flood ended before the honest peer dials: past the burst of any budget the node had (64). */
const FLOOD_FIRST = 80;

/** The attacker's end of one handshake: a HELLO with a fresh random key, then nothing; closed once `open` says so. */
function junkHello(open: () => boolean): HandshakeIo {
  const hello: ControlMsg = { t: 'hello', v: 1, alg: 'Ed25519', pk: toB64(crypto.getRandomValues(new Uint8Array(32))), nonce: toB64(new Uint8Array(16)) };
  let sent = false;
  const next = (): Promise<ControlMsg> => {
    if (sent) return new Promise<ControlMsg>(() => {});
    sent = true;
    return Promise.resolve(hello);
  };
  return { send: () => {}, next, open };
}

describe('a flood of handshakes with fresh keys', () => {
  it('an honest peer the node never met still links, within the time the flood open at once takes to be served', async () => {
    const node = await testNodeIdentity();
    const r = seededRandom(28);
    let stop = false;
    let ended = 0;
    const keysBefore = nodeIdDerivations.keys;
    const t0 = performance.now();
    const lane = async () => {
      while (!stop) {
        await runHandshake(junkHello(() => !stop), node, randomId(r), FPS, 0).catch(() => undefined);
        ended++;
        // A connection each: the next comes in a later task, as from a network.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const lanes = Array.from({ length: IN_FLIGHT }, lane);
    await vi.waitFor(() => expect(ended).toBeGreaterThanOrEqual(FLOOD_FIRST), { timeout: 15_000, interval: 20 });

    const honest = await strangerIdentity();
    const [a, b] = handshakePipe();
    const t1 = performance.now();
    const outcome = await Promise.all([runHandshake(a, node, honest.id, FPS, 0), runHandshake(b, honest, node.id, FPS, 0)]).then(
      () => 'linked',
      (e: Error) => e.message,
    );
    const waited = performance.now() - t1;
    stop = true;
    await Promise.all(lanes);
    const secs = (performance.now() - t0) / 1000;
    expect(outcome, `the honest handshake after ${ended} of the flood's`).toBe('linked');
    // Behind at most the flood's handshakes open at once, one turn each, and a margin for a loaded machine.
    expect(waited).toBeLessThan(((IN_FLIGHT + 1) / HANDSHAKE_DERIVATIONS.perSec) * 1000 + 2500);
    // The flood's scrypts stay within the line's burst and rate (the honest key one more).
    const { burst, perSec } = HANDSHAKE_DERIVATIONS;
    expect(nodeIdDerivations.keys - keysBefore, `${ended} junk handshakes in ${secs.toFixed(2)} s`).toBeLessThanOrEqual(burst + 1 + Math.ceil(secs * perSec));
  }, 30_000);

  it('tells its transport when the key waits in the line and when it leaves (the wait is not counted against the connection)', async () => {
    const node = await testNodeIdentity();
    const honest = await strangerIdentity();
    const line = new DerivationQueue({ perSec: 20, burst: 1, maxWaiting: 4 });
    expect(await line.turn()).toBe(true); // the one turn at once spent: the honest key waits
    const [a, b] = handshakePipe();
    const told: boolean[] = [];
    const outcome = await Promise.all([
      runHandshake({ ...a, waiting: (w) => told.push(w) }, node, honest.id, FPS, 0, undefined, line),
      runHandshake(b, honest, node.id, FPS, 0),
    ]).then(() => 'linked', (e: Error) => e.message);
    expect([outcome, told, line.stats.waited]).toEqual(['linked', [true, false], 1]);
  });

  it("the line's longest wait, the transport's inbound connections all in it, is within the time one has to prove its id", () => {
    const worstMs = (WEBRTC_DEFAULTS.maxPendingInbound / HANDSHAKE_DERIVATIONS.perSec) * 1000;
    expect(worstMs).toBeLessThanOrEqual(WEBRTC_DEFAULTS.pendingInboundTimeoutMs / 2);
  });
});
