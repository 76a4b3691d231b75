// The looks a host lists are checked on the host's derivation budget (core/derivation-budget.ts),
// not on the budget of frames checked with no carrier named: an attacker spending that one (or
// its own) cannot keep an honest host's looks unproven. And a look refused for want of budget is
// not remembered as forged: the same look again is checked anew, and shown once there is budget.
import { describe, expect, it, vi } from 'vitest';
import { DerivationBudget } from '../core/derivation-budget';
import { idToHex } from '../core/node-id';
import { cachingWebCryptoVerifier, ProvenKeys } from '../core/signer';
import { VirtualClock } from '../core/virtual-clock';
import { makePlayerLook } from '../region/player-look';
import { strangerIdentity } from '../testing/stranger-identity';
import { PlayerLooks } from './player-looks';

describe("looks checked on their carrier's derivation budget", () => {
  it("a host's listing is proven while the unattributed and an attacker's budgets are spent; a refusal for want of budget is not remembered", async () => {
    let t = 0;
    const budget = new DerivationBudget({ perSourcePerSec: 1, perSourceBurst: 2, totalPerSec: 100, totalBurst: 100 }, () => t);
    while (budget.take()); // the unattributed source spent
    while (budget.take('evil')); // and the attacker's own
    const shown: string[] = [];
    const looks = new PlayerLooks({ world: 'w', verify: cachingWebCryptoVerifier(new ProvenKeys(64, 0, budget)), clock: new VirtualClock(), onShown: (_hex, l) => shown.push(l.n) });
    const [ann, bob] = [await strangerIdentity(), await strangerIdentity()];
    const now = Date.now();
    looks.take(ann.id, idToHex(ann.id), await makePlayerLook(ann, 'w', 'Ann', 1, now), 'honest-host');
    await vi.waitFor(() => expect(shown).toEqual(['Ann']));

    // Bob's look through the attacker's spent source: refused for now, not remembered.
    const bobs = await makePlayerLook(bob, 'w', 'Bob', 2, now);
    looks.take(bob.id, idToHex(bob.id), bobs, 'evil');
    await vi.waitFor(() => expect(looks.stats.dropped.signature).toBe(1));
    t = 10_000;
    looks.take(bob.id, idToHex(bob.id), bobs, 'evil');
    await vi.waitFor(() => expect(shown).toEqual(['Ann', 'Bob']));
    expect(looks.stats.refusedAgain).toBe(0);
  });
});
