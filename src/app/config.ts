// Page configuration from the URL. The fragment carries what an invite link shares (world
// and seed, the doorways, the inviter and its contacts: bootstrap/invite.ts), so it never reaches a
// server log; query parameters carry per-tab test knobs. Build-time defaults for a static
// deploy (VITE_RELAY, VITE_PEERJS, VITE_ICE_SERVERS, VITE_ICE_POLICY) come in as `defaults`.
// ICE servers come only from the deploy (and the relay's grant), never from a URL: a link
// must not be able to carry TURN credentials or point a tab's traffic at another relay.
import type { IcePolicy, IceServer } from '../net/ice-servers';
import type { DoorwaySpec } from '../bootstrap/doorways';
import { parseInvite, type InviteParse } from '../bootstrap/invite';

export interface PageConfig {
  world: string;
  seed: string;
  /** Overrides the saved render distance when set (tests, benchmarks). */
  renderDistance: number | undefined;
  /** Skip drawing (bots), keeping the world logic and the automation API. */
  headless: boolean;
  /**
   * Draw at most this many frames a second for this page load (`?fps=N`, 10-240), over the
   * player's setting: a tab beside a call or on a weak machine, bots and tests (software
   * WebGL draws a frame on a CPU core). Under 10 the movement steps (at most 0.1 s) would
   * slow the player.
   */
  maxFps?: number | undefined;
  /** Join the peer network (default on; `?net=off` plays alone). */
  net: boolean;
  /** Host regions and play in the shared world (default on; `?hosting=off`: DHT node only, local world). */
  hosting: boolean;
  /**
   * Play without hosting (`?hosting=play`, and the default on a phone or tablet): the tab plays
   * in the shared world as a read-only DHT node (dht/read-only-peers.ts) that claims and backs
   * up no region, so a battery is not spent keeping other players' regions. `?hosting=on` hosts.
   */
  playOnly: boolean;
  /** How the hosting mode was chosen: 'asked' (`?hosting=`), 'touch-device' (the phone default), 'default'. */
  hostingChosen: 'asked' | 'touch-device' | 'default';
  /** ws:// URL of the bootstrap relay (default: /relay on the page's own host); null: `relay=none`. */
  relayUrl: string | null;
  /** http(s):// URL of a PeerJS broker (`peerjs=`), if any. */
  peerjsUrl: string | undefined;
  /** The invite in the fragment: none, one (maybe signed), or a malformed one with the reason. */
  invite: InviteParse;
  /** Live-link budget override (`?links=N`, tests): small budgets force multi-hop routes. */
  maxLinks: number | undefined;
  /** Mean time between one host's item spawn proposals (`?spawnms=N`, tests: items sooner than the ledger's 30 s). */
  itemSpawnMs?: number | undefined;
  /** A drawing page holds its frames just before an item appears, so a frame falls on its time (play/item-frame-pacer.ts; `?pace=off`: not, for side-by-side figures). */
  itemPacing?: boolean;
  /**
   * A fixed time of day (`?daytime=F`, F the fraction of the day: 0.5 noon): the sky stops
   * turning. Screenshot tests compare views seconds apart, and at dawn or dusk the light
   * itself moves that much (a CI run at sunrise failed items.test's pixel check).
   */
  dayFraction?: number | undefined;
  /** The deploy's STUN/TURN servers (VITE_ICE_SERVERS; the relay may grant more). */
  iceServers: IceServer[];
  /** 'relay': TURN relays only, so peers never see this player's address (VITE_ICE_POLICY=relay, or `?ice=relay`). */
  icePolicy: IcePolicy;
}

/** Build-time choices of a deploy (vite env: VITE_RELAY, VITE_PEERJS, VITE_ICE_SERVERS, VITE_ICE_POLICY; checked at build). */
export interface DeployDefaults {
  relay?: string | undefined;
  peerjs?: string | undefined;
  iceServers?: IceServer[];
  icePolicy?: IcePolicy;
}

export const DEFAULT_WORLD = 'populi';
export const DEFAULT_RENDER_DISTANCE = 8;
export const MIN_RENDER_DISTANCE = 2;
export const MAX_RENDER_DISTANCE = 16;
/** Bounds of `?fps=`. */
export const MIN_FPS = 10;
export const MAX_FPS = 240;

const NAME = /^[\w.-]{1,64}$/;
const WS = /^wss?:\/\/[^\s]+$/;
const HTTP = /^https?:\/\/[^\s/]+(\/\S*)?$/;

/** What the page knows of its device that changes a default. */
export interface PageDevice {
  /** A phone or tablet: touch only, no mouse or trackpad (`touchOnlyDevice`). */
  touchOnly: boolean;
}

/**
 * A phone or tablet, from CSS media queries (`matches`: `q => matchMedia(q).matches`): its
 * primary pointer is coarse (a finger) and no pointer is fine. A touch laptop has a fine
 * pointer too (its trackpad), so it still hosts by default.
 */
export function touchOnlyDevice(matches: (query: string) => boolean): boolean {
  return matches('(pointer: coarse)') && !matches('(any-pointer: fine)');
}

const HOSTING_ASKED = new Set(['on', 'off', 'play']);

export function parsePageConfig(href: string, defaults: DeployDefaults = {}, device: PageDevice = { touchOnly: false }): PageConfig {
  const url = new URL(href);
  const frag = new URLSearchParams(url.hash.replace(/^#/, ''));
  const q = url.searchParams;
  const world = frag.get('world') ?? q.get('world') ?? DEFAULT_WORLD;
  const seed = frag.get('seed') ?? q.get('seed') ?? world;
  const rd = Number(q.get('rd') ?? NaN);
  const asked = q.get('hosting') ?? '';
  const hostingMode = HOSTING_ASKED.has(asked) ? asked : device.touchOnly ? 'play' : 'on';
  const peerjs = [frag.get('peerjs'), q.get('peerjs'), defaults.peerjs].find((x) => x && HTTP.test(x)) ?? undefined;
  return {
    world: NAME.test(world) ? world : DEFAULT_WORLD,
    seed: seed.slice(0, 128),
    renderDistance: Number.isFinite(rd) ? clampRenderDistance(rd) : undefined,
    headless: q.get('render') === 'off',
    maxFps: /^\d{2,3}$/.test(q.get('fps') ?? '') ? Math.min(MAX_FPS, Math.max(MIN_FPS, Number(q.get('fps')))) : undefined,
    net: q.get('net') !== 'off',
    hosting: hostingMode !== 'off',
    playOnly: hostingMode === 'play',
    hostingChosen: HOSTING_ASKED.has(asked) ? 'asked' : device.touchOnly ? 'touch-device' : 'default',
    relayUrl: relayUrl([frag.get('relay'), q.get('relay'), defaults.relay], url),
    peerjsUrl: peerjs,
    invite: parseInvite(url.hash),
    maxLinks: /^\d{1,3}$/.test(q.get('links') ?? '') ? Math.max(1, Number(q.get('links'))) : undefined,
    itemSpawnMs: /^\d{3,7}$/.test(q.get('spawnms') ?? '') ? Number(q.get('spawnms')) : undefined,
    itemPacing: q.get('pace') !== 'off',
    dayFraction: /^(0(\.\d{1,6})?|1)$/.test(q.get('daytime') ?? '') ? Number(q.get('daytime')) : undefined,
    iceServers: defaults.iceServers ?? [],
    // A page may ask for more privacy than its deploy, never less.
    icePolicy: q.get('ice') === 'relay' ? 'relay' : (defaults.icePolicy ?? 'all'),
  };
}

/** The first valid relay named (`none`: no relay), else /relay on the page's own host. */
function relayUrl(given: (string | null | undefined)[], page: URL): string | null {
  for (const g of given) {
    if (g === 'none') return null;
    if (g && WS.test(g)) return g;
  }
  return `${page.protocol === 'https:' ? 'wss' : 'ws'}://${page.host}/relay`;
}

/** The doorways a page stands at: its relay and its PeerJS broker, whichever are set. */
export function pageDoorways(c: Pick<PageConfig, 'relayUrl' | 'peerjsUrl'>): DoorwaySpec[] {
  const doorways: DoorwaySpec[] = [];
  if (c.relayUrl) doorways.push({ kind: 'relay', url: c.relayUrl });
  if (c.peerjsUrl) doorways.push({ kind: 'peerjs', url: c.peerjsUrl });
  return doorways;
}

export function clampRenderDistance(n: number): number {
  return Math.max(MIN_RENDER_DISTANCE, Math.min(MAX_RENDER_DISTANCE, Math.round(n)));
}
