// The player's signed record in the DHT, kept under the player's id (player-record.ts): the
// page saves the player's pose and held items every few seconds, and each save would be a
// DHT put to the record's closest nodes; the record is refreshed at most every
// PLAYER_RECORD_EVERY_MS unless the save is forced (leaving the page, a held item changed).
import type { Clock } from '../core/clock';
import type { Identity } from '../core/identity';
import type { Dht } from '../dht/dht';
import { makePlayerRecord, newestPlayerRecord, type PlayerState } from './player-record';

/** The player record in the DHT is refreshed at most this often (and on leaving). */
export const PLAYER_RECORD_EVERY_MS = 10_000;

export class PlayerRecordPublisher {
  private lastPublished = -Infinity;

  constructor(
    private readonly player: Identity,
    private readonly dht: Pick<Dht, 'put' | 'get'>,
    private readonly clock: Clock,
  ) {}

  /** Stores the signed record (at most every PLAYER_RECORD_EVERY_MS unless `force`; a failed put waits its turn as a done one). */
  async publish(state: PlayerState, force = false): Promise<void> {
    const now = this.clock.now();
    if (!force && now - this.lastPublished < PLAYER_RECORD_EVERY_MS) return;
    this.lastPublished = now;
    await this.dht.put('player', this.player.id, await makePlayerRecord(this.player, state));
  }

  /** The newest valid record of this player in the DHT, if any. */
  async fetch(): Promise<PlayerState | undefined> {
    const got = await this.dht.get('player', this.player.id).catch(() => undefined);
    if (!got) return undefined;
    const rec = await newestPlayerRecord([got.value], this.player.id);
    return rec ? { ...rec.pos, yaw: rec.yaw, pitch: rec.pitch, items: rec.items } : undefined;
  }
}
