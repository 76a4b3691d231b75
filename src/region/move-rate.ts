// How often a player reports where it stands (MOVE), read from here by the region client's
// pace (play/move-pace.ts, through play/network-chunk-source.ts `moveHz`), by the host's
// walking speeds (host/player-velocities.ts: a step between two reports is one period) and
// by the budget a primary allows each player's MOVEs (host/move-budget.ts), so an honest
// player's pace never meets the refusal that is there for a flooding one.
// 20 a second, a game's usual rate (Minecraft's tick): at 10, a walking player was shown at
// 10 Hz by design, and the host's 20 Hz tick sent most subscribers a POSITIONS frame every tick
// anyway (7 walkers at 10 Hz leave few 50 ms ticks without a move), so the rate doubled
// costs the primary the MOVEs in and a few bytes a frame, not more frames: with 8 walking
// players 80 -> 160 MOVEs a second in, the same 160 POSITIONS frames out, 19 -> 28 bytes each.
// A crowd's subscribers hear their near players at most 10 times a second still
// (host/interest-lists.ts `crowdNearMs`): there the bytes, not the frames, were the bound.

/** MOVE frames a second a player sends (at most, on average). */
export const MOVE_HZ = 20;
/** A MOVE's period (ms). */
export const MOVE_MS = 1000 / MOVE_HZ;
/**
 * A player whose pose, look and primary are unchanged sends MOVE only this often
 * (play/move-keepalive.ts): it says the player is still there. Well within what forgets a
 * quiet player: a primary's presence (host/region-presence.ts `PLAYER_TTL_MS`, 3,000 ms) and a
 * watcher's list (play/network-chunk-source.ts `PLAYER_EXPIRE_MS`, 3,000 ms, kept fresh
 * meanwhile by the host's re-sends every `farMs`, host/interest-lists.ts), so two lost
 * keep-alives in a row do not make a standing player vanish.
 */
export const MOVE_KEEPALIVE_MS = 1000;
/** Sustained MOVEs a second per player a primary takes, and the burst on top: twice the pace (frames bunch on a busy link). */
export const MOVE_LIMIT = { perSec: 2 * MOVE_HZ, burst: 2 * MOVE_HZ };
