import { describe, expect, it } from 'vitest';
import { CHAT_BLIP_GAP_MS, ChatBlipGate, PickupWatch } from './sound-triggers';

describe('pick-up sound', () => {
  it('sounds when a new item is held, not for what was held at the start, nor for a drop', () => {
    const w = new PickupWatch();
    expect(w.update(['a', 'b'])).toBe(false); // the inventory the page started with
    expect(w.update(['a', 'b'])).toBe(false);
    expect(w.update(['a', 'b', 'c'])).toBe(true);
    expect(w.update(['a', 'c'])).toBe(false); // b dropped
    expect(w.update(['c', 'a'])).toBe(false); // reordered
    expect(w.update(['a', 'b', 'c'])).toBe(true); // b taken back
  });
});

describe('chat blip', () => {
  it('blips for another player\'s line, never for the player\'s own', () => {
    const g = new ChatBlipGate();
    expect(g.arrived(true, 0)).toBe(false);
    expect(g.arrived(false, 10)).toBe(true);
  });

  it('blips once for a burst of lines, again after the gap', () => {
    const g = new ChatBlipGate();
    let blips = 0;
    for (let t = 0; t < CHAT_BLIP_GAP_MS; t += 20) if (g.arrived(false, t)) blips++;
    expect(blips).toBe(1);
    expect(g.arrived(false, CHAT_BLIP_GAP_MS)).toBe(true);
  });
});
