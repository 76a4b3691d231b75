// Page configuration from the URL. The fragment carries what an invite link shares
// (world name and seed; later the relay and the inviter's node id) so it never reaches a
// server log; query parameters carry per-tab test knobs.

export interface PageConfig {
  world: string;
  seed: string;
  /** Overrides the saved render distance when set (tests, benchmarks). */
  renderDistance: number | undefined;
  /** Skip drawing (bots), keeping the world logic and the automation API. */
  headless: boolean;
  /** Join the peer network (default on; `?net=off` plays alone). */
  net: boolean;
  /** Host regions and play in the shared world (default on; `?hosting=off`: DHT node only, local world). */
  hosting: boolean;
  /** ws:// URL of the bootstrap relay (default: /relay on the page's own host). */
  relayUrl: string;
  /** Inviter's node id (hex) from an invite link. */
  invitePeer: string | undefined;
  /** Live-link budget override (`?links=N`, tests): small budgets force multi-hop routes. */
  maxLinks: number | undefined;
}

export const DEFAULT_WORLD = 'populi';
export const DEFAULT_RENDER_DISTANCE = 8;
export const MIN_RENDER_DISTANCE = 2;
export const MAX_RENDER_DISTANCE = 16;

const NAME = /^[\w.-]{1,64}$/;

export function parsePageConfig(href: string): PageConfig {
  const url = new URL(href);
  const frag = new URLSearchParams(url.hash.replace(/^#/, ''));
  const q = url.searchParams;
  const world = frag.get('world') ?? q.get('world') ?? DEFAULT_WORLD;
  const seed = frag.get('seed') ?? q.get('seed') ?? world;
  const rd = Number(q.get('rd') ?? NaN);
  return {
    world: NAME.test(world) ? world : DEFAULT_WORLD,
    seed: seed.slice(0, 128),
    renderDistance: Number.isFinite(rd) ? clampRenderDistance(rd) : undefined,
    headless: q.get('render') === 'off',
    net: q.get('net') !== 'off',
    hosting: q.get('hosting') !== 'off',
    relayUrl: relayUrl(frag.get('relay') ?? q.get('relay'), url),
    invitePeer: /^[0-9a-f]{40}$/.test(frag.get('peer') ?? '') ? frag.get('peer')! : undefined,
    maxLinks: /^\d{1,3}$/.test(q.get('links') ?? '') ? Math.max(1, Number(q.get('links'))) : undefined,
  };
}

function relayUrl(given: string | null, page: URL): string {
  if (given && /^wss?:\/\/[^\s]+$/.test(given)) return given;
  return `${page.protocol === 'https:' ? 'wss' : 'ws'}://${page.host}/relay`;
}

/** An invite: the world, its seed, the relay and the inviter's node id, all in the fragment. */
export function inviteLink(pageUrl: string, c: Pick<PageConfig, 'world' | 'seed' | 'relayUrl'>, inviter: string): string {
  const u = new URL(pageUrl);
  u.hash = new URLSearchParams({ world: c.world, seed: c.seed, relay: c.relayUrl, peer: inviter }).toString();
  return u.toString();
}

export function clampRenderDistance(n: number): number {
  return Math.max(MIN_RENDER_DISTANCE, Math.min(MAX_RENDER_DISTANCE, Math.round(n)));
}
