// A host's two channels: to players (subscription-messages.ts) and to the other hosts of
// its regions (replication-messages.ts), with their counters summed for the dashboard.
import type { Clock } from '../core/clock';
import type { AppChannels } from '../dht/app-channels';
import { FrameWire, type WireDrops } from '../region/frame-wire';
import { openPlayerWire, type PlayerWire } from '../region/region-wire';
import { mayWaitOnLink, replicationCodec, replicationSpec, type ReplicationMessage } from './replication-messages';

export type ReplicaWire = FrameWire<typeof replicationSpec>;
/** A replication frame about a region (every one but PART). */
export type ReplicaFrame = Exclude<ReplicationMessage, { t: 'PART' }>;

export class HostWires {
  readonly players: PlayerWire;
  readonly replicas: ReplicaWire;

  constructor(channels: Pick<AppChannels, 'open'>, clock: Clock) {
    this.players = openPlayerWire(channels, clock);
    this.replicas = new FrameWire(replicationCodec, channels.open('replica'), clock, mayWaitOnLink);
  }

  close(): void {
    this.players.close();
    this.replicas.close();
  }

  /** Frames dropped on arrival, by reason, over both channels. */
  get drops(): WireDrops {
    const a = this.players.drops, b = this.replicas.drops;
    return { oversized: a.oversized + b.oversized, malformed: a.malformed + b.malformed, invalid: a.invalid + b.invalid, unknownType: a.unknownType + b.unknownType, parts: a.parts + b.parts };
  }

  get framesIn(): number {
    return this.players.framesIn + this.replicas.framesIn;
  }

  get framesOut(): number {
    return this.players.framesOut + this.replicas.framesOut;
  }

  get bytesOut(): number {
    return this.players.bytesOut + this.replicas.bytesOut;
  }

  /** Frames and bytes sent so far by channel and frame type ('player DELTA', 'replica FEED', ...). */
  outByType(): Map<string, { frames: number; bytes: number }> {
    const out = new Map<string, { frames: number; bytes: number }>();
    for (const [t, c] of this.players.outByType) out.set(`player ${t}`, { ...c });
    for (const [t, c] of this.replicas.outByType) out.set(`replica ${t}`, { ...c });
    return out;
  }

  /** Unfinished PART reassemblies dropped to make room or timed out (frame-wire.ts). */
  get partsEvicted(): number {
    return this.players.partsEvicted + this.replicas.partsEvicted;
  }

  get unsendable(): number {
    return this.players.unsendable + this.replicas.unsendable;
  }
}
