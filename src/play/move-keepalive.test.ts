import { describe, expect, it } from 'vitest';
import type { PlayerLook } from '../region/player-look';
import { MoveKeepAlive } from './move-keepalive';

const here = { x: 5.5, y: 80, z: 5.5, yaw: 0, pitch: 0 };
/** Only a look's identity counts here (a new one is a new signature). */
const look = { n: 'a', c: 1, w: 1 } as unknown as PlayerLook;

describe('MoveKeepAlive: a MOVE when something changed, else a keep-alive', () => {
  it('the same pose, look and primary go again only after the keep-alive', () => {
    const k = new MoveKeepAlive(1000);
    expect(k.needed(here, undefined, 'p', 0)).toBe(true);
    k.sent(here, undefined, 'p', 0);
    expect(k.needed({ ...here }, undefined, 'p', 999)).toBe(false);
    expect(k.needed(here, undefined, 'p', 1000)).toBe(true);
  });

  it('a new position, look direction, look or primary goes at once', () => {
    const k = new MoveKeepAlive(1000);
    k.sent(here, undefined, 'p', 0);
    expect(k.needed({ ...here, x: 5.51 }, undefined, 'p', 50)).toBe(true);
    expect(k.needed({ ...here, pitch: 0.1 }, undefined, 'p', 50)).toBe(true);
    expect(k.needed(here, look, 'p', 50)).toBe(true);
    expect(k.needed(here, undefined, 'q', 50)).toBe(true);
    expect(k.needed(here, undefined, undefined, 50)).toBe(true);
  });

  it('compares with the pose last sent, not the last one offered: a walk\'s last step is not lost', () => {
    const k = new MoveKeepAlive(1000);
    k.sent(here, undefined, 'p', 0);
    // A frame moved on but its MOVE was not sent (MOVE's pace); the pose is offered again later.
    expect(k.needed({ ...here, x: 6 }, undefined, 'p', 16)).toBe(true);
    expect(k.needed({ ...here, x: 6 }, undefined, 'p', 50)).toBe(true);
  });
});
