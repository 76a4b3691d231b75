// The node's heartbeat round: a count its hosting service advances once a beat period, on the
// ticker, ahead of every region's beat. A tab's ticker runs the beats of every region it is
// primary of in one task (app/worker-ticker.ts), so they read one round: a quiet region's
// thinned beats to its subscribers (primary-heartbeat.ts `SUBSCRIBER_BEAT_EVERY`) fall on the
// same rounds for all of them, and a subscriber of several of its regions gets their beats in
// one data-channel write (net/webrtc-link.ts batches per task) instead of one for each region
// whose own beat count happened to be due: two regions of one primary beat to a common
// subscriber on 2 of 3 beats, not 1, when each counted its own.
import type { Ticker } from '../core/ticker';

export class BeatRound {
  /** Rounds begun. */
  n = 0;

  /** Advances the round `1000 / beatMs` times a second; start it before any region's beat. */
  start(ticker: Ticker, beatMs: number): () => void {
    return ticker.start(1000 / beatMs, () => this.n++);
  }
}
