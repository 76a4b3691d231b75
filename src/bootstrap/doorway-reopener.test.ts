// The doorway reconnect on the virtual clock: the backoff of failed attempts and of
// connections that drop at once, the start-over after a stable spell, retrying without
// end until stopped. That a Peer's reconnect registers the tab's id again: app/peer-reopen.test.ts.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/virtual-clock';
import { BootstrapError } from '../net/bootstrap';
import { fakeDoorway, type FakeDoorway } from '../testing/fake-doorway';
import { DoorwayReopener, type DoorwayReopenerArgs } from './doorway-reopener';
import type { DoorwaySpec } from './doorways';

const relay: DoorwaySpec = { kind: 'relay', url: 'ws://127.0.0.1:1/relay' };

/** A reopener whose attempts are recorded; `up()` says whether an attempt at that moment succeeds. */
function harness(up: (at: number) => boolean, extra: Partial<DoorwayReopenerArgs> = {}) {
  const clock = new VirtualClock();
  const attempts: number[] = [];
  const reopenedAt: number[] = [];
  const failures: string[] = [];
  const conns: FakeDoorway[] = [];
  const reopener = new DoorwayReopener({
    clock,
    jitter: () => 1,
    open: async () => {
      attempts.push(clock.now());
      if (!up(clock.now())) throw new BootstrapError('cannot reach the relay');
      const c = fakeDoorway(new Uint8Array(20));
      conns.push(c);
      return c;
    },
    reopened: (spec) => { reopenedAt.push(clock.now()); reopener.opened(spec); },
    failed: (_spec, err) => failures.push(err.message),
    ...extra,
  });
  return { clock, reopener, attempts, reopenedAt, failures, conns };
}

describe('DoorwayReopener (a dropped doorway is opened again)', () => {
  it('an unreachable doorway is tried at 1 s, doubling to 30 s, without end, until stopped', async () => {
    const h = harness(() => false);
    h.reopener.retry(relay);
    await h.clock.advance(200_000);
    // Waits 1, 2, 4, 8, 16, then 30 s each.
    expect(h.attempts).toEqual([1000, 3000, 7000, 15000, 31000, 61000, 91000, 121000, 151000, 181000]);
    expect(h.failures).toHaveLength(10);
    expect(h.failures[0]).toBe('cannot reach the relay');
    expect(h.reopener.reopens).toBe(0);
    h.reopener.stop();
    await h.clock.advance(200_000);
    expect(h.attempts).toHaveLength(10);
    expect(h.clock.pending).toBe(0);
  });

  it('an attempt that succeeds hands the connection over and counts a reopen; no attempt follows while it is up', async () => {
    const h = harness((at) => at >= 7000);
    h.reopener.retry(relay);
    await h.clock.advance(60_000);
    expect(h.attempts).toEqual([1000, 3000, 7000]);
    expect(h.reopenedAt).toEqual([7000]);
    expect(h.reopener.reopens).toBe(1);
    expect(h.clock.pending).toBe(0);
  });

  it('a connection that drops at once backs off; one that stayed up 10 s starts over at 1 s', async () => {
    const h = harness(() => true);
    h.reopener.opened(relay); // the first connection, at 0
    await h.clock.advance(500);
    h.reopener.dropped(relay); // lived 0.5 s: the wait doubles
    expect(h.reopener.nextWaitMs(relay)).toBe(2000);
    await h.clock.advance(2000);
    expect(h.reopenedAt).toEqual([2500]);
    h.reopener.dropped(relay); // lived 0 s
    await h.clock.advance(4000);
    expect(h.reopenedAt).toEqual([2500, 6500]);
    await h.clock.advance(10_000); // stable now
    h.reopener.dropped(relay);
    expect(h.reopener.nextWaitMs(relay)).toBe(1000);
    await h.clock.advance(1000);
    expect(h.reopenedAt).toEqual([2500, 6500, 17500]);
    expect(h.reopener.reopens).toBe(3);
  });

  it('the backoff of drops stops at 30 s; retryNow (the network is back) tries at once and starts over', async () => {
    const h = harness(() => true);
    for (let i = 0; i < 8; i++) h.reopener.dropped(relay);
    expect(h.reopener.nextWaitMs(relay)).toBe(30_000);
    await h.clock.advance(29_999);
    expect(h.attempts).toEqual([]); // each drop replaced the attempt before it
    await h.clock.advance(1);
    expect(h.attempts).toEqual([30_000]);
    for (let i = 0; i < 8; i++) h.reopener.dropped(relay);
    await h.clock.advance(5000);
    h.reopener.retryNow();
    await h.clock.advance(0);
    expect(h.attempts).toEqual([30_000, 35_000]);
    expect(h.reopener.nextWaitMs(relay)).toBe(1000);
    h.reopener.retryNow(); // open now: nothing to try
    await h.clock.advance(60_000);
    expect(h.attempts).toEqual([30_000, 35_000]);
  });

  it('applies the jitter factor to each wait', async () => {
    const h = harness((at) => at > 2000, { jitter: () => 0.75 });
    h.reopener.retry(relay);
    await h.clock.advance(749);
    expect(h.attempts).toEqual([]);
    await h.clock.advance(1);
    expect(h.attempts).toEqual([750]);
    await h.clock.advance(1500); // 2 s x 0.75
    expect(h.attempts).toEqual([750, 2250]);
    expect(h.reopenedAt).toEqual([2250]);
  });

  it('a connection that opens after stop() is closed, not handed over', async () => {
    const h = harness(() => true);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const late = fakeDoorway(new Uint8Array(20));
    const r = new DoorwayReopener({ clock: h.clock, jitter: () => 1, open: async () => { await gate; return late; }, reopened: () => { throw new Error('handed over after stop'); } });
    r.retry(relay);
    await h.clock.advance(1000); // the attempt is under way
    r.stop();
    release();
    await h.clock.advance(0);
    expect(late.closed).toBe(true);
    expect(r.reopens).toBe(0);
  });
});
