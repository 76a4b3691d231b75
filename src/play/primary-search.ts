// Finding a subscription's primary and attaching to it: a takeover notice or redirect
// first, then the backups we knew (a lookup may wait seconds on a dead primary while a
// backup answers at once), then the region's location record, then a lookup of the hosts
// closest to its key. Each SUBSCRIBE waits ATTACH_TIMEOUT_MS for its snapshot; the snapshot
// itself (region-client.ts onSnapshot) completes the attach.
import type { Emitter } from '../core/emitter';
import { idEquals, idToHex, sortByDistance } from '../core/node-id';
import { getLocation } from '../region/region-records';
import type { SubmittedEdits } from './submitted-edits';
import type { ClientEvents, ClientStats, ReattachCause, RegionClientArgs, Subscription } from './region-client-types';
import { HOST_SET_SIZE } from '../region/host-set-rules';

/** A lookup during attach is given up after this long (the DHT's own timeouts should end it sooner). */
const LOOKUP_GIVE_UP_MS = 8000;
/** Wait this long for a SNAPSHOT after a SUBSCRIBE before trying elsewhere. */
export const ATTACH_TIMEOUT_MS = 1000;
/** Nodes one attach remembers having asked (Subscription.asked): a snapshot from any counts. */
export const ASKED_KEPT = 8;

export interface PrimarySearchDeps {
  args: RegionClientArgs;
  stats: ClientStats;
  edits: SubmittedEdits;
  events: Emitter<ClientEvents>;
}

export class PrimarySearch {
  constructor(private readonly deps: PrimarySearchDeps) {}

  /** `why`: what made an attached subscription look again (counted; a new one needs none). */
  async attach(sub: Subscription, why: ReattachCause = 'silence'): Promise<void> {
    if (sub.attaching || sub.closed) return;
    sub.attaching = true;
    const asked = new Set<string>();
    sub.asked = asked;
    if (sub.attached) this.deps.args.trace?.(sub.name, `client: looks for a primary (${why})`);
    sub.attachStarted = this.deps.args.clock.now();
    if (sub.attached) {
      sub.attached = false;
      this.deps.stats.reattaches++;
      this.deps.stats.reattachWhy[why]++;
      // The primary we leave went quiet or was replaced: if it died, our routes through it
      // (it is close to the region's key, so often the first hop toward the next primary)
      // lose every frame until our link to it is found dead.
      if (sub.primary) this.deps.args.dht.suspect?.(sub.primary);
      // Unconfirmed edits go to whoever we attach to next, at once (a primary that already
      // ordered one answers with its first stamp: it dedupes by our request id).
      this.deps.edits.unsend(sub.name);
      this.deps.events.emit('detached', { region: sub.coord, why });
    }
    let attempt = 0;
    // The primary went quiet: its backups know first who takes over. Each is asked in turn
    // before any lookup, since a lookup may wait seconds on the dead primary (the DHT's RPC
    // timeout) while a backup answers at once.
    const backups = sub.primary ? sub.hosts.filter((h) => idToHex(h) !== sub.primaryHex) : [];
    let tries = 0, since = this.deps.args.clock.now();
    try {
      while (!sub.closed && !sub.attached) {
        // Answers that come back at once (our own host, or two hosts naming each other) must
        // not spin: past a few tries in one instant, pause before the next.
        if (this.deps.args.clock.now() !== since) {
          tries = 0;
          since = this.deps.args.clock.now();
        }
        if (++tries > 4) await new Promise<void>((resolve) => this.deps.args.clock.setTimeout(resolve, 100));
        const key = await sub.key;
        let target = sub.hint;
        const hinted = !!target;
        let host = false;
        sub.hint = undefined;
        if (!target && attempt < backups.length) {
          target = backups[attempt];
          host = true;
        }
        if (!target && attempt <= Math.max(1, backups.length)) {
          // Only a record under a certificate we would attach under (following the one we hold,
          // or anchored near the key in our own view): a forged one, however high its version,
          // neither sends us to its primary nor hides the region's real record.
          const rec = await this.orHint(sub, getLocation(this.deps.args.dht, key, { certs: this.deps.args.certs, verify: this.deps.args.verify }, { fresh: 'near', known: sub.cert }));
          if (sub.hint) continue;
          if (rec && rec.epoch >= sub.epoch && idToHex(rec.primary) !== sub.primaryHex) target = rec.primary;
        }
        if (!target) {
          const res = await this.orHint(sub, this.deps.args.dht.findNode(key));
          if (sub.hint) continue;
          // A read-only node hosts nothing (dht/read-only-peers.ts): never its own candidate.
          const self = this.deps.args.dht.readOnly ? [] : [this.deps.args.dht.selfId];
          // A lookup that failed or gave up (a starved tab's RPCs time out) falls back on our
          // own view of the nodes near the key (routing table, recent answers): without it we
          // were our own only candidate, claimed alone, heard 'cannot certify' and waited,
          // again and again, while the region had a live primary (failover_crash under load).
          const found = res?.closest.map((c) => c.id) ?? [];
          const others = found.length > 0 ? found : (this.deps.args.dht.nearView?.near(key, HOST_SET_SIZE + 1) ?? []).filter((id) => !idEquals(id, this.deps.args.dht.selfId));
          const hosts = sortByDistance([...self, ...others], (x) => x, key);
          if (hosts.length === 0) {
            // A read-only node that found nobody: ask again in a while.
            await new Promise<void>((resolve) => this.deps.args.clock.setTimeout(resolve, ATTACH_TIMEOUT_MS));
            continue;
          }
          target = hosts[attempt % Math.min(HOST_SET_SIZE, hosts.length)] ?? hosts[0]!;
          host = true;
        }
        if (sub.closed) return;
        sub.target = idToHex(target);
        if (asked.size < ASKED_KEPT) asked.add(sub.target);
        // (`missed`: we were attached and heard nothing; a primary that relayed to us through a
        // backup serves us itself a while: host/fan-out-plan.ts.)
        this.deps.args.trace?.(sub.name, `client: subscribes to ${sub.target.slice(0, 6)}${hinted ? ' (named itself primary)' : host ? ' (a host)' : ''}`);
        this.deps.args.wire.send(target, { t: 'SUBSCRIBE', rx: sub.coord.rx, rz: sub.coord.rz, host, ...(sub.epoch > 0 ? { since: sub.since, missed: true } : {}) });
        // A node that named itself primary (a takeover notice or a redirect) gets our waiting
        // edits right behind the SUBSCRIBE, not after its snapshot: a round trip less in every
        // failover. Its answers count once its snapshot's certificate is checked (submitted-edits.ts).
        if (hinted) {
          this.deps.edits.sendTo(sub.name, target, idToHex(target));
          sub.named = target;
        }
        const answered = await new Promise<boolean>((resolve) => {
          const t = this.deps.args.clock.setTimeout(() => resolve(false), ATTACH_TIMEOUT_MS + Math.min(attempt, 4) * 250);
          sub.wake = () => {
            this.deps.args.clock.clearTimeout(t);
            resolve(true);
          };
        });
        // No answer: our overlay route to it may pass through a node that died silently (it
        // loses what it carries until the DHT drops that node, up to 15 s), while the target's
        // frames reach us by another route. The relay dials it for a direct link (when we
        // hold none), so the next SUBSCRIBE does not take that way. (Probing our first hop as
        // the hosts do made things worse here: a node that just came back, and is slow to
        // answer, lost its few links.)
        if (!answered && !sub.closed && !idEquals(target, this.deps.args.dht.selfId)) this.deps.args.dht.reach?.(target);
        sub.wake = () => {};
        sub.named = undefined;
        if (!sub.hint) attempt++;
        // Alone: wait before asking again (edits meanwhile fail as 'uncertified' at once).
        const wait = sub.aloneUntil - this.deps.args.clock.now();
        if (wait > 0 && !sub.closed && !sub.attached) {
          await new Promise<void>((resolve) => {
            const t = this.deps.args.clock.setTimeout(resolve, wait);
            sub.wake = () => {
              this.deps.args.clock.clearTimeout(t);
              resolve();
            };
          });
          sub.wake = () => {};
          attempt = 0;
        }
      }
    } finally {
      sub.attaching = false;
      sub.named = undefined;
      sub.asked = undefined;
    }
  }

  /**
   * `p`'s value (undefined if it fails), or undefined at once when a hint wakes the
   * subscription (a takeover notice or a redirect naming the primary): a lookup stalled on
   * a dead node must not hold up attaching to a primary that already named itself.
   */
  private orHint<T>(sub: Subscription, p: Promise<T>): Promise<T | undefined> {
    let timer: unknown;
    return new Promise<T | undefined>((resolve) => {
      sub.wake = () => resolve(undefined);
      p.then(resolve, () => resolve(undefined));
      // Nor a lookup that never ends (seen in the safety simulation: a subscription stuck
      // attaching for 90 s): the loop goes on to the next way of finding the primary.
      timer = this.deps.args.clock.setTimeout(() => resolve(undefined), LOOKUP_GIVE_UP_MS);
    }).finally(() => {
      this.deps.args.clock.clearTimeout(timer);
      sub.wake = () => {};
    });
  }
}
