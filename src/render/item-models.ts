// Items lying in the world as small spinning models, one shape and colour per kind (a gem
// is a cyan octahedron, an apple a red ball, a coin a gold disc on its edge, the limited
// star a glowing five-pointed star). Geometries and materials are shared by kind; a
// model exists only while its item is in view (the app passes the items to draw each
// frame). Network- and ledger-ignorant: ids, kinds and positions in, meshes out.
import {
  CylinderGeometry, ExtrudeGeometry, Group, Mesh, MeshLambertMaterial, OctahedronGeometry, Shape, SphereGeometry,
  type BufferGeometry,
} from 'three';
import { ITEM_KINDS, type ItemKind } from '../agree/item-kinds';

export interface ItemSprite {
  id: string;
  kind: ItemKind;
  x: number;
  y: number;
  z: number;
}

/** Colour of each kind (the inventory bar shows the same). */
export const ITEM_COLOURS: Record<ItemKind, number> = { gem: 0x2fd4e6, apple: 0xd9262b, coin: 0xe8b923, star: 0xfff06a };

/** Turns per second. */
const SPIN_PER_SEC = 0.5;
/** Hover above the ground and the bob's height (blocks). */
const HOVER = 0.45;
const BOB = 0.12;

export class ItemModels {
  readonly group = new Group();
  private readonly meshes = new Map<string, Mesh>();
  private readonly geometries: Record<ItemKind, BufferGeometry>;
  private readonly materials: Record<ItemKind, MeshLambertMaterial>;

  constructor() {
    this.group.name = 'items';
    const coin = new CylinderGeometry(0.28, 0.28, 0.07, 20);
    coin.rotateX(Math.PI / 2);
    const star = new ExtrudeGeometry(starShape(0.36, 0.16), { depth: 0.1, bevelEnabled: false });
    star.center();
    this.geometries = { gem: new OctahedronGeometry(0.3), apple: new SphereGeometry(0.26, 14, 10), coin, star };
    this.materials = Object.fromEntries(ITEM_KINDS.map((k) => [k, new MeshLambertMaterial({ color: ITEM_COLOURS[k], emissive: ITEM_COLOURS[k], emissiveIntensity: k === 'star' ? 0.7 : 0.3 })])) as Record<ItemKind, MeshLambertMaterial>;
  }

  /** Draws exactly these items, turned and bobbing for world time `timeMs` (the same on every peer). */
  sync(items: readonly ItemSprite[], timeMs: number): void {
    const seen = new Set<string>();
    for (const it of items) {
      seen.add(it.id);
      let m = this.meshes.get(it.id);
      if (!m || m.userData.kind !== it.kind) {
        if (m) this.group.remove(m);
        m = new Mesh(this.geometries[it.kind], this.materials[it.kind]);
        m.name = `item ${it.id}`;
        m.userData.kind = it.kind;
        this.meshes.set(it.id, m);
        this.group.add(m);
      }
      const phase = (hash(it.id) % 1000) / 1000;
      const t = timeMs / 1000;
      m.position.set(it.x, it.y + HOVER + BOB * Math.sin(2 * Math.PI * (t * 0.5 + phase)), it.z);
      m.rotation.y = 2 * Math.PI * (t * SPIN_PER_SEC + phase);
    }
    for (const [id, m] of this.meshes) {
      if (seen.has(id)) continue;
      this.group.remove(m);
      this.meshes.delete(id);
    }
  }

  get count(): number {
    return this.meshes.size;
  }

  dispose(): void {
    for (const g of Object.values(this.geometries)) g.dispose();
    for (const m of Object.values(this.materials)) m.dispose();
    this.group.clear();
    this.meshes.clear();
  }
}

function starShape(outer: number, inner: number): Shape {
  const s = new Shape();
  for (let i = 0; i < 10; i++) {
    const r = i % 2 ? inner : outer;
    const a = Math.PI / 2 + (i * Math.PI) / 5;
    if (i === 0) s.moveTo(r * Math.cos(a), r * Math.sin(a));
    else s.lineTo(r * Math.cos(a), r * Math.sin(a));
  }
  s.closePath();
  return s;
}

function hash(s: string): number {
  let h = 7;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
  return h;
}
