// One family for every way a block edit can fail, with a stable `code` for programs (the
// HUD, bots, tests) and a message for people. Three places raise them: the player's own
// checks before sending (play/block-editor.ts: EditRefused), a host's refusal
// (play/region-client.ts: EditRejectedError, whose code is the wire's reject reason) and
// no answer in time (EditTimeoutError). Catch `EditError` to handle them all.
import { VoxelError } from '../core/errors';

/** Refused before sending (the player's own checks). */
export type LocalEditCode = 'bad-coords' | 'bad-block' | 'not-placeable' | 'outside-world' | 'world-floor' | 'not-loaded' | 'inside-player';

export abstract class EditError extends VoxelError {}

/** Refused by the player's own checks: nothing was sent. */
export class EditRefused extends EditError {
  override readonly name = 'EditRefused';
  constructor(readonly code: LocalEditCode, message: string) {
    super(message);
  }
}

/** Refused by a host; `code` (and `reason`) is the reject reason it sent. */
export class EditRejectedError<R extends string = string> extends EditError {
  override readonly name = 'EditRejectedError';
  readonly code: R;
  constructor(readonly reason: R) {
    super(`edit rejected: ${reason}`);
    this.code = reason;
  }
}

/** No host confirmed it in time. */
export class EditTimeoutError extends EditError {
  override readonly name = 'EditTimeoutError';
  readonly code = 'timeout';
}
