// The ICE servers a peer dials with: its own (the deploy's build-time list, the headless
// peer's flags) merged with the latest its doorways granted (our relay hands out TURN
// servers with short-lived credentials and renews them). The transport gets the merged list
// before the first dial: a doorway's grant arrives with its registration, and the join
// dials only after its doorways answered. Credentials live here and in the transport only;
// nothing of them goes into an invite or the DHT.
import type { Bootstrap } from '../net/bootstrap';
import { mergeIceServers, type IceServer } from '../net/ice-servers';
import type { DoorwayConnector } from './doorways';

export class DoorwayIce {
  private granted: IceServer[] = [];

  constructor(
    private readonly own: readonly IceServer[],
    private readonly apply: (servers: IceServer[]) => void,
  ) {}

  /** The servers to dial with now. */
  get servers(): IceServer[] {
    return mergeIceServers(this.own, this.granted);
  }

  /** Wraps a connector: each doorway it opens (first time or again) is heard for grants. */
  watch(connect: DoorwayConnector): DoorwayConnector {
    return (spec, selfId) => connect(spec, selfId).then((b) => (this.hear(b), b));
  }

  private hear(b: Bootstrap): void {
    if (b.ice) this.take(b.ice.iceServers);
    b.events.on('ice', (g) => this.take(g.iceServers));
  }

  /** The latest grant of any doorway wins (one relay per page; a re-opened one grants anew). */
  private take(servers: IceServer[]): void {
    this.granted = servers;
    this.apply(this.servers);
  }
}
