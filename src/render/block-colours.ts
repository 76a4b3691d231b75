// The light baked into vertex colours (grey; the block texture gives the colour): a
// directional shade per face, so the greedy mesher can merge faces without caring about
// light and terrain reads well where the sun does not reach, times the corner's ambient
// occlusion.

/** Face order used across render/: +x, -x, +y, -y, +z, -z (axis * 2 + (negative ? 1 : 0)). */
export const FACE_SHADE = [0.8, 0.8, 1.0, 0.55, 0.68, 0.68] as const;

/** Brightness of a vertex by its ambient-occlusion level (0 = corner boxed in, 3 = open). */
export const AO_LEVEL = [0.5, 0.68, 0.84, 1.0] as const;
