// What the HUD says when something a player did fails, chosen by the error's stable code
// (core/errors.ts), not by its message: messages are written for logs and may change, and a
// host's refusal arrives as a bare reason ('out-of-reach'), which is no sentence for a
// player. An error without words here shows its own message (those raised for players,
// such as a full store or a refused identity file, are written for them already).
import { errorCode } from '../core/errors';

/** Words for a failed edit or other action, by code. */
export const ERROR_WORDS: Readonly<Record<string, string>> = {
  // A host's refusal of an edit (its wire reason) and an edit nobody answered.
  'out-of-reach': 'Too far away to change that block.',
  rate: 'Building too fast: slow down a little.',
  'bad-block': 'That block cannot be placed.',
  'outside-region': 'That block is outside the region its host keeps: try again.',
  'world-floor': 'The bottom of the world cannot be changed.',
  occupied: 'Someone is standing there.',
  'unknown-player': 'The host has not checked your player key yet: try again.',
  uncertified: 'No host can confirm edits here just now: yours is kept and shared later.',
  busy: "This region's host is changing: try again in a moment.",
  'not-primary': "This region's host is changing: try again in a moment.",
  timeout: 'No host answered in time: try again.',
  'tentative-full': 'Too many edits are waiting to be shared: this one cannot be kept until other players come.',
};

/** The sentence the HUD shows a player for `err`. */
export function errorWords(err: unknown): string {
  const code = errorCode(err);
  if (code !== undefined && Object.hasOwn(ERROR_WORDS, code)) return ERROR_WORDS[code]!;
  return err instanceof Error ? err.message : String(err);
}
