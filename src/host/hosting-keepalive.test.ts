// A subscriber's keepalive (a SUBSCRIBE every keepaliveMs, play/region-client.ts) says it
// holds the primary's certificate of the epoch it follows (`c`), and the primary answers it
// without one: in the crowd of 200 those answers, each mostly a certificate (~500 bytes),
// were a tenth of the primary's upload. A certificate-less SNAPSHOT is read only from the
// primary the player is attached to, in its epoch; from anyone else it is dropped.
import { describe, expect, it } from 'vitest';
import { subscriptionCodec } from '../region/subscription-messages';
import { HostSim } from '../testing/host-sim';
import { STONE } from '../world/blocks';

const R = { rx: 0, rz: 0 };

describe('keepalives answered without the certificate (simulated)', () => {
  it('a keepalive costs the primary a small SNAPSHOT; the player stays attached and gets what it missed', async () => {
    const sim = new HostSim({ seed: 5 });
    await sim.grow(6);
    const a = await sim.editedRegion(R);
    const primary = sim.primariesOf(R)[0]!;
    const snaps = () => primary.wire.outByType().get('player SNAPSHOT') ?? { frames: 0, bytes: 0 };
    const first = snaps();
    expect(first.frames).toBeGreaterThanOrEqual(1);
    const whole = first.bytes / first.frames;
    await sim.run(21_000); // four keepalives
    const later = snaps();
    const each = (later.bytes - first.bytes) / (later.frames - first.frames);
    expect(later.frames - first.frames).toBeGreaterThanOrEqual(4);
    expect(each).toBeLessThan(whole / 2);
    expect(each).toBeLessThan(200);
    expect(a.client.attachment(R)).toBeDefined();
    expect(a.client.stats.reattaches).toBe(0);
    // An edit by another player reaches a: the keepalives kept it attached.
    const b = sim.live().find((p) => p !== a && p !== primary)!;
    await sim.settle(b.client.subscribe(R));
    await sim.settle(b.client.submit(12, 71, 12, STONE, { x: 12, y: 70, z: 14 }));
    await sim.run(500);
    expect(a.client.state(R)!.all().some((e) => e.id === STONE)).toBe(true);

    // A certificate-less SNAPSHOT from a peer that is not a's primary is dropped.
    const stranger = sim.live().find((p) => p !== a && p !== primary)!;
    const stale = a.client.stats.stale;
    const e = a.client.attachment(R)!.epoch;
    stranger.wire.players.send(a.dht.selfId, { t: 'SNAPSHOT', ...R, e, v: { e, s: 99 }, full: false, hosts: [stranger.dht.selfId], entries: new Uint8Array(0) });
    await sim.run(300);
    expect(a.client.stats.stale).toBe(stale + 1);
    expect(a.client.attachment(R)!.primary).toBe(primary.hex);
    // The frame's schema: a SUBSCRIBE may say `c`, a SNAPSHOT may lack `cert`.
    expect(subscriptionCodec.decode(subscriptionCodec.encode({ t: 'SUBSCRIBE', ...R, host: false, c: true }))).toMatchObject({ c: true });
    sim.stopAll();
  });
});
