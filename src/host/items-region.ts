// What the items of a region (agree/region-items.ts, agree/host-items.ts) read of that region
// as this host holds it: the outcome of the role machine (role-machine.ts), the certificate,
// the primary's subscribers and players, and the two things items write: their ledger's
// place in the region's stored record, and a store write. Narrow on purpose: items follow
// the hosting protocol's state and never move it, so they see nothing that could.
import type { NodeId } from '../core/node-id';
import type { EpochCert } from '../region/epoch-cert';
import type { RegionCoord } from '../region/region-key';
import type { Election } from './election';
import type { PrimaryDuty } from './primary-duty';
import type { RegionContext } from './region-context';
import type { RoleView } from './role-machine';

export interface ItemsRegion extends Pick<RoleView, 'role' | 'epoch' | 'primaryHex' | 'hosts'> {
  readonly name: string;
  readonly coord: RegionCoord;
  readonly stopped: boolean;
  /** The newest certificate this host holds of the region. */
  readonly cert: EpochCert | undefined;
  /**
   * How we hold `cert`: `learnt` is set while it was taken on its signatures alone
   * (cert-anchor.ts `Hold`, docs/TRUST.md rule 3), and then it names no voters; nor does a
   * set we ever held so (`heldLearnt`).
   */
  readonly el: Pick<Election, 'learnt' | 'heldLearnt'>;
  readonly ctx: Pick<RegionContext, 'selfHex' | 'clock'>;
  /** While we are primary: who our backups are, who subscribes, where the players stand. */
  readonly duty: Pick<PrimaryDuty, 'backups' | 'subscribers' | 'presence'> | undefined;
  /** As a backup: the subscribers our primary last named. */
  readonly knownSubs: readonly NodeId[];
  /** The items as stored (read back on restart), opaque to the host; replaced by `itemState` once items run. */
  storedItems: Uint8Array | undefined;
  /** What a store write takes of the items (set while they run). */
  itemState: (() => Uint8Array | undefined) | undefined;
  /** Writes the region's record, items included. */
  persist(): Promise<void>;
}
