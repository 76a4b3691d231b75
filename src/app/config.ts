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
  };
}

export function clampRenderDistance(n: number): number {
  return Math.max(MIN_RENDER_DISTANCE, Math.min(MAX_RENDER_DISTANCE, Math.round(n)));
}
