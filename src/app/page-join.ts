// A page's join of the peer network as its own node: `Peer.start` (bootstrap/peer.ts) with
// the page's doorways, invite, ICE and record rules, over the identity and relay socket
// begun before this code loaded (join-start.ts). The player page loads it by dynamic import,
// beside the rest of the page (player.ts), so the join waits for the network code only.
import type { Clock } from '../core/clock';
import { hexToId } from '../core/node-id';
import { Peer, type PeerConfig } from '../bootstrap/peer';
import { recordRules } from '../play/dht-record-rules';
import { probeIceGathering } from '../net/ice-probe';
import { WEBRTC_DEFAULTS } from '../net/webrtc-transport';
import { PATH_DEAD_MS } from '../net/path-watch';
import { networkId } from '../net/network-id';
import type { PageConfig } from './config';
import { joinDoorways, startJoin, type InviteProblem, type JoinStart } from './join-start';

/**
 * Joins the peer network as this tab's own node (a node identity claimed from the pool, as
 * `start` began it, or begun now). A broken or altered invite is not followed: its peers
 * are not dialed and its doorways not trusted (the page's own are used).
 */
export async function joinPeer(cfg: PageConfig, clock: Clock, onStage?: PeerConfig['onStage'], problem?: InviteProblem, start?: JoinStart): Promise<Peer> {
  const begun = start ?? startJoin(cfg, problem);
  // Whether WebRTC can gather a candidate here is asked while the id is minted: a blocked
  // browser is told so at its first dial, not a gather timeout later. The probe listens as
  // long as a dial would: a loaded machine's late candidate still clears the browser.
  const iceProbe = probeIceGathering(cfg.iceServers, WEBRTC_DEFAULTS.dialTimeoutMs);
  const claimed = await begun.claimed;
  const invite = !problem && cfg.invite.kind === 'invite' ? cfg.invite.invite : undefined;
  const peer = await Peer.start({
    identity: claimed.identity,
    // The world is its own network: its relay room, and the only peers it links to.
    network: networkId(cfg.world, cfg.seed),
    records: recordRules(),
    iceProbe,
    // A link whose path died (a NAT forgot its mapping, the address moved) is closed and
    // dialled anew within ~2 s, not at the DHT's probe (4 s) or heartbeat timeout (15 s).
    pathDeadMs: PATH_DEAD_MS,
    iceServers: cfg.iceServers,
    ...(cfg.icePolicy === 'relay' ? { rtcConfig: { iceTransportPolicy: 'relay' } } : {}),
    doorways: joinDoorways(cfg, problem),
    invitePeers: invite ? [invite.inviter, ...invite.contacts].map(hexToId) : [],
    clock,
    ...(begun.relay ? { WebSocket: begun.relay.WebSocket } : {}),
    ...(onStage ? { onStage } : {}),
    dht: { ...(cfg.maxLinks ? { maxLinks: cfg.maxLinks, softLinks: Math.max(1, cfg.maxLinks - 1), linksPerBucket: 1 } : {}), ...(cfg.playOnly ? { readOnly: true } : {}), ...(!cfg.hosting ? { noHost: true } : {}) },
  }).finally(() => begun.relay?.dispose());
  // The browser says when the network is back (a laptop on another Wi-Fi): the relay is
  // re-opened then, not after its grown backoff.
  addEventListener('online', () => peer.networkBack());
  return peer;
}
