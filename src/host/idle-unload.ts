// Idle cost: a region nobody watches or edits is unloaded by its hosts
// after HOST_DEFAULTS.unloadAfterMs: written to the host store and dropped from memory with
// its tick loop, beats, host-set lookups and timers; the links its primary pinned to its
// backups and subscribers are unpinned. The next frame that names it reads it back from the store before
// anything answers (hosting-service.ts `region`), and a subscriber's claim certifies a new
// epoch over its host set, as after a restart. docs/HOSTING.md "Idle regions unload".
//
// Who unloads: the primary, once idle that long and its backups told (its beats say
// `unload`: primary-heartbeat.ts); a backup, once its primary said so (backup-machine.ts:
// that primary's silence is then no death); any other role (a granter that is no host any
// more, a node that only redirected a player) after that long without a frame.
import { idToHex, type NodeId } from '../core/node-id';
import type { Clock } from '../core/clock';
import type { HostPins, PinWant } from './host-pins';
import type { HostOptions, HostStats } from './host-options';
import type { Role } from './role-machine';

/** What the rule reads of a region. */
export interface UnloadView {
  readonly stopped: boolean;
  readonly role: Role;
  /** Subscribers waiting for our claim. */
  readonly waiting: number;
  /** Store writes under way. */
  readonly writing: number;
  /** When the last frame but an ack or a beat came. */
  readonly lastFrameAt: number;
  /** As primary: idle for unloadAfterMs with the backups told (undefined: not primary). */
  readonly primaryReady: boolean | undefined;
  /** As a backup: our primary said it unloads. */
  readonly primaryUnloads: boolean;
}

/**
 * Whether a region may be unloaded now. Never without a store, with a claim, a waiting
 * subscriber or a store write under way, nor within idleAfterMs of a frame (an answer
 * being worked out, a grant's promise being written, is not cut short).
 */
export function unloadable(r: UnloadView, now: number, hasStore: boolean, o: Pick<HostOptions, 'idleAfterMs' | 'unloadAfterMs'>): boolean {
  if (r.stopped || !hasStore || r.role === 'claiming' || r.waiting > 0 || r.writing > 0) return false;
  if (now - r.lastFrameAt < Math.min(o.idleAfterMs, o.unloadAfterMs)) return false;
  if (r.primaryReady !== undefined) return r.primaryReady;
  if (r.role === 'backup') return r.primaryUnloads;
  return now - r.lastFrameAt >= o.unloadAfterMs;
}

/** What the unloader needs of a region (hosted-region.ts). */
export interface Unloadable {
  readonly name: string;
  readonly epoch: number;
  readonly role: Role;
  readonly hosts: readonly NodeId[];
  /** As primary: the peers it wants its links pinned to, by rank (its backups, its subscribers). */
  readonly duty: { pinWants(now: number): Iterable<PinWant> } | undefined;
  /** As a backup in a crowd: the subscribers it serves for its primary (fan-out-share.ts). */
  readonly share?: { pinWants(): Iterable<PinWant> };
  /** Nothing worth a store record (no block, promise, certificate or item). */
  readonly blank: boolean;
  /** Frames taken but acks and idle beats: an unload gives up if this moved during its write. */
  readonly touched: number;
  unloadable(now: number): boolean;
  persist(): Promise<void>;
  stop(): void;
  trace(what: string): void;
}

/** Sweeps for regions to unload and links to unpin this often. */
export const SWEEP_MS = 1000;
/** Unloaded region names remembered (an ABANDON naming one reads it back). */
const MAX_UNLOADED = 4096;

export interface IdleUnloaderDeps<R extends Unloadable> {
  clock: Clock;
  pins: Pick<HostPins, 'keepOnly'>;
  stats: Pick<HostStats, 'unloads'>;
  /** The regions in memory (name -> region). */
  known: () => Iterable<R>;
  /** Whether `r` is still the region in memory under its name (and the service runs). */
  current: (r: R) => boolean;
  /** Drops `r` from memory. */
  forget: (r: R) => void;
}

export class IdleUnloader<R extends Unloadable> {
  /** Regions unloaded this session (most recent MAX_UNLOADED). */
  private readonly unloaded = new Set<string>();
  private readonly unloading = new Set<string>();

  constructor(private readonly d: IdleUnloaderDeps<R>) {}

  wasUnloaded(name: string): boolean {
    return this.unloaded.has(name);
  }

  /** The region is in memory again. */
  loaded(name: string): void {
    this.unloaded.delete(name);
  }

  /** Unloads the regions that may be; unpins the links no region of ours needs. */
  sweep(): void {
    const now = this.d.clock.now();
    const wanted = new Map<string, PinWant>();
    for (const r of this.d.known()) {
      if (r.unloadable(now)) void this.unload(r);
      for (const w of [...(r.duty?.pinWants(now) ?? []), ...(r.share?.pinWants() ?? [])]) {
        const hex = idToHex(w.id);
        const have = wanted.get(hex);
        if (!have || w.rank < have.rank) wanted.set(hex, w);
      }
    }
    this.d.pins.keepOnly(wanted);
  }

  /** Written to the store, then forgotten; given up if a frame came while the write went on (in use again). */
  private async unload(r: R): Promise<void> {
    if (this.unloading.has(r.name)) return;
    this.unloading.add(r.name);
    const mark = r.touched;
    try {
      if (!r.blank) await r.persist();
    } catch {
      return; // counted (storeFailures); kept in memory: what reached the disk is unknown
    } finally {
      this.unloading.delete(r.name);
    }
    if (!this.d.current(r) || r.touched !== mark || !r.unloadable(this.d.clock.now())) return;
    r.trace(`unload e${r.epoch} (${r.role})`);
    r.stop();
    this.d.forget(r);
    this.d.stats.unloads++;
    if (r.blank) return;
    this.unloaded.delete(r.name);
    this.unloaded.add(r.name);
    if (this.unloaded.size > MAX_UNLOADED) this.unloaded.delete(this.unloaded.values().next().value!);
  }
}
