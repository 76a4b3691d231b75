// The terrain materials: three's Lambert lighting with the block texture array
// (block-atlas.ts) in place of a map. Greedy quads span many blocks, so a quad cannot carry
// 0..1 texture coordinates of one tile; instead the vertex shader takes the coordinates from
// the section-local position on the face's plane (one unit = one block) and the texture
// array repeats each layer, so a merged quad shows one tile per block with the hardware's
// own mipmaps and no bleeding between tiles (what a flat atlas with fract() would suffer).
// The layer comes from the per-vertex `tile` attribute the mesher writes.
import {
  DataArrayTexture, DoubleSide, LinearMipmapLinearFilter, MeshLambertMaterial, NearestFilter,
  RepeatWrapping, SRGBColorSpace, type WebGLProgramParametersWithUniforms,
} from 'three';
import { WATER } from '../world/blocks';
import { buildBlockAtlas, type BlockAtlas } from './block-atlas';
import { TILE_OF } from './block-tiles';

export interface TerrainMaterialSet {
  readonly opaque: MeshLambertMaterial;
  readonly transparent: MeshLambertMaterial;
  readonly atlas: DataArrayTexture;
  /** Layers in the atlas (for stats and tests). */
  readonly layers: number;
  /** Shader programs compiled with the atlas so far (0 until the renderer warmed up or a frame drew terrain). */
  readonly programs: number;
  /** Moves the water's ripples; seconds of any steady clock. */
  setTime(seconds: number): void;
  dispose(): void;
}

const VERTEX_PARS = /* glsl */ `
attribute float tile;
varying vec3 vAtlas;
varying float vWater;
uniform float atlasTime;
uniform float waterLayer;
`;

// Side faces take (horizontal, y) so a tile stands upright; tops and bottoms take (x, z).
const VERTEX_MAIN = /* glsl */ `
vec3 atlasN = abs(normal);
vec2 atlasUv = atlasN.x > 0.5 ? position.zy : atlasN.y > 0.5 ? position.xz : position.xy;
vWater = abs(tile - waterLayer) < 0.5 ? 1.0 : 0.0;
atlasUv += vWater * vec2(atlasTime * 0.05, atlasTime * 0.03);
vAtlas = vec3(atlasUv, tile);
`;

const FRAGMENT_PARS = /* glsl */ `
uniform highp sampler2DArray blockAtlas;
varying vec3 vAtlas;
varying float vWater;
`;

const FRAGMENT_MAP = /* glsl */ `
diffuseColor *= texture(blockAtlas, vAtlas);
`;

export function createTerrainMaterials(atlas: BlockAtlas = buildBlockAtlas(), transparentOpacity = 1): TerrainMaterialSet {
  const texture = new DataArrayTexture(atlas.data, atlas.size, atlas.size, atlas.layers);
  texture.colorSpace = SRGBColorSpace;
  texture.wrapS = texture.wrapT = RepeatWrapping;
  texture.magFilter = NearestFilter;
  texture.minFilter = LinearMipmapLinearFilter;
  texture.generateMipmaps = true;
  texture.needsUpdate = true;
  const uniforms = {
    blockAtlas: { value: texture },
    atlasTime: { value: 0 },
    waterLayer: { value: TILE_OF[WATER * 6 + 2]! },
  };
  let programs = 0;
  const inject = (shader: WebGLProgramParametersWithUniforms): void => {
    programs++;
    Object.assign(shader.uniforms, uniforms);
    shader.vertexShader = shader.vertexShader
      .replace('#include <common>', `#include <common>\n${VERTEX_PARS}`)
      .replace('#include <begin_vertex>', `#include <begin_vertex>\n${VERTEX_MAIN}`);
    shader.fragmentShader = shader.fragmentShader
      .replace('#include <common>', `#include <common>\n${FRAGMENT_PARS}`)
      .replace('#include <map_fragment>', FRAGMENT_MAP);
  };
  const opaque = new MeshLambertMaterial({ vertexColors: true });
  // Seen from below, a water surface must still show: both sides, no depth writes so what
  // lies behind water, glass and leaves is drawn too. Their see-through-ness is the
  // texture's alpha (water tinted 0.6-0.7, glass clear inside its frame).
  const transparent = new MeshLambertMaterial({
    vertexColors: true, transparent: true, opacity: transparentOpacity, depthWrite: false, side: DoubleSide,
  });
  for (const m of [opaque, transparent]) {
    m.onBeforeCompile = inject;
    m.customProgramCacheKey = () => 'block-atlas';
    m.name = 'terrain (block atlas)';
  }
  return {
    opaque,
    transparent,
    atlas: texture,
    layers: atlas.layers,
    get programs() {
      return programs;
    },
    setTime(seconds) {
      uniforms.atlasTime.value = seconds % 1000;
    },
    dispose() {
      opaque.dispose();
      transparent.dispose();
      texture.dispose();
    },
  };
}
