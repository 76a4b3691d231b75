// The three.js view's defaults (world-renderer.ts), in a module of their own with no three.js
// import: the player's settings (ui/player-settings.ts) read the field of view on the start
// screen, which loads before three.js and the renderer do (app/player.ts).
export const WORLD_RENDERER_DEFAULTS = {
  /** Chunks from the player's column; which columns exist is the app's choice (play/chunk-ring.ts). */
  renderDistance: 8,
  fov: 75,
  /** Opacity of the transparent pass (water, glass, leaves) on top of their textures' alpha. */
  transparentOpacity: 1,
  /** Merging only quads of equal corner shading keeps it cheap (docs/BENCHMARKS.md). */
  ambientOcclusion: true,
} as const;
