// What a page's join needs before the network code itself, kept light so the player page's
// entry (player.ts) runs it before the rest is even fetched: the deploy's defaults, the
// invite's check, the doorways to use, and the join's two slow first steps begun at once:
// the node identity (read from its slot, or minted in workers the first time, ~1 s:
// node-id-minter.ts) and the relay's socket (its connection made meanwhile:
// net/socket-ahead.ts). page-join.ts `joinPeer` takes them.
import type { DoorwaySpec } from '../bootstrap/doorways';
import { checkInvite } from '../bootstrap/invite';
import { mergeIceServers, parseIcePolicy, parseIceServersJson } from '../net/ice-servers';
import { openAhead, type SocketAhead } from '../net/socket-ahead';
import type { WebSocketCtor } from '../net/relay-bootstrap';
import { claimNodeIdentity, type ClaimedIdentity } from '../store/identity-store';
import { pageStorage, storedIceServers } from '../ui/ice-settings';
import { pageDoorways, parsePageConfig, type DeployDefaults, type PageConfig } from './config';
import { NODE_KEY_FLAG } from './early-mint';
import { warmNodeIdMinter } from './node-id-minter';

/** The join's first steps, begun before its code loads. */
export interface JoinStart {
  /** The node identity claimed from the pool (`vp:identity` marks when). */
  readonly claimed: Promise<ClaimedIdentity>;
  /** The relay's socket opened ahead (none without a relay doorway or a WebSocket). */
  readonly relay?: SocketAhead | undefined;
}

/**
 * Build-time doorways and ICE servers of this deploy (`VITE_RELAY=wss://... VITE_PEERJS=https://...
 * VITE_ICE_SERVERS='[...]' VITE_ICE_POLICY=relay npm run build`; vite.config.ts refuses a bad
 * ICE value at build, so these checks only repeat it).
 */
export function deployDefaults(): DeployDefaults {
  const env = import.meta.env as Record<string, string | undefined>;
  return {
    relay: env.VITE_RELAY,
    peerjs: env.VITE_PEERJS,
    // The player's own servers (the start screen's "Network" form) join the deploy's; an
    // entry of theirs naming a deploy's URL wins (their credentials for it are the newer).
    iceServers: mergeIceServers(parseIceServersJson(env.VITE_ICE_SERVERS, 'VITE_ICE_SERVERS'), storedIceServers(pageStorage())),
    icePolicy: parseIcePolicy(env.VITE_ICE_POLICY, 'VITE_ICE_POLICY'),
  };
}

/** What is wrong with the page's invite, if anything: the start screen says it. */
export type InviteProblem = { kind: 'malformed' | 'tampered'; reason: string };

/** The invite's problem, checked once (a signature check is async). */
export async function inviteProblem(cfg: PageConfig): Promise<InviteProblem | undefined> {
  if (cfg.invite.kind === 'malformed') return { kind: 'malformed', reason: cfg.invite.reason };
  if (cfg.invite.kind === 'invite' && (await checkInvite(cfg.invite.invite)) === 'tampered') {
    return { kind: 'tampered', reason: 'its signature does not match what it says (the link was changed after it was made)' };
  }
  return undefined;
}

/** The doorways a join stands at: a broken or altered invite's are not trusted (the page's own instead). */
export function joinDoorways(cfg: PageConfig, problem?: InviteProblem): DoorwaySpec[] {
  return problem ? pageDoorways(parsePageConfig(location.href.split('#')[0]!, deployDefaults())) : pageDoorways(cfg);
}

/**
 * Claims the node identity now. A slot's first claim mints its id's work in workers; they
 * start at once, and in a profile that never stored a key (`NODE_KEY_FLAG`) they
 * draw at once too, while the identity store is opened and read. A returning player's workers wait for the store (a
 * draw beside its read slowed the read on a busy machine), and its stored key ends them.
 * `vp:identity` says how many keypairs the workers drew for it (0: the key was stored).
 */
export function claimIdentityNow(): Promise<ClaimedIdentity> {
  performance.mark('vp:join-start');
  const storage = pageStorage();
  const minter = warmNodeIdMinter(undefined, undefined, !storage?.getItem(NODE_KEY_FLAG));
  const counts = { tries: 0 };
  return claimNodeIdentity({ mint: (bits) => {
    performance.mark('vp:mint-asked');
    return minter.mint(bits, counts);
  } })
    .finally(() => minter.dispose())
    .then((claimed) => {
      performance.mark('vp:identity', { detail: { tries: counts.tries } });
      if (!claimed.ephemeral) void claimed.stored.then(() => {
        try {
          storage?.setItem(NODE_KEY_FLAG, '1');
        } catch {
          // Not kept (storage full or refused): the next tab draws while the store is read, as a new profile's does.
        }
      });
      addEventListener('pagehide', () => void claimed.release());
      return claimed;
    });
}

/** The relay doorway's socket, opened now (the first doorway that is a relay). */
export function openRelayAhead(doorways: DoorwaySpec[]): SocketAhead | undefined {
  const relay = doorways.find((d) => d.kind === 'relay');
  const Ctor = (globalThis as { WebSocket?: WebSocketCtor }).WebSocket;
  return relay && Ctor ? openAhead(relay.url, Ctor) : undefined;
}

/** Both first steps of a join, begun now (a page that does not start them early: host.ts). */
export function startJoin(cfg: PageConfig, problem?: InviteProblem): JoinStart {
  return { claimed: claimIdentityNow(), relay: openRelayAhead(joinDoorways(cfg, problem)) };
}
