// three.js geometry from a meshed pass. Bounds are known (a section is a 16-cube), so
// they are set rather than computed: computing them walks every vertex on the main thread.
import { Box3, BufferAttribute, BufferGeometry, Sphere, Vector3 } from 'three';
import { SECTION_HEIGHT } from '../world/coords';
import type { MeshPass } from './mesh-buffers';

const BOX = new Box3(new Vector3(0, 0, 0), new Vector3(SECTION_HEIGHT, SECTION_HEIGHT, SECTION_HEIGHT));
const SPHERE = BOX.getBoundingSphere(new Sphere());

export function sectionGeometry(pass: MeshPass): BufferGeometry {
  const g = new BufferGeometry();
  g.setAttribute('position', new BufferAttribute(pass.positions, 3));
  g.setAttribute('normal', new BufferAttribute(pass.normals, 3));
  g.setAttribute('color', new BufferAttribute(pass.colors, 3));
  // Read as a float layer index by the atlas material (atlas-material.ts).
  g.setAttribute('tile', new BufferAttribute(pass.tiles, 1));
  g.setIndex(new BufferAttribute(pass.indices, 1));
  g.boundingBox = BOX.clone();
  g.boundingSphere = SPHERE.clone();
  return g;
}
