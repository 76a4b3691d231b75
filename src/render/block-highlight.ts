// The outline around the block the player is aiming at: near-black edges (1 px lines are
// all WebGL draws, so they are made opaque to read against any texture) and a faint light
// film over the block's faces, which shows the target even where an edge hides behind
// terrain. Drawn slightly larger than the block so neither z-fights with its faces.
import { BoxGeometry, EdgesGeometry, Group, LineBasicMaterial, LineSegments, Mesh, MeshBasicMaterial } from 'three';

const GROW = 1.004;
/** The film over the faces: light enough to keep the texture readable. */
const FILM_OPACITY = 0.16;

export class BlockHighlight {
  readonly object = new Group();
  private readonly edges: LineSegments;
  private readonly film: Mesh;

  constructor(colour = 0x050505) {
    const box = new BoxGeometry(GROW, GROW, GROW);
    this.edges = new LineSegments(new EdgesGeometry(box), new LineBasicMaterial({ color: colour }));
    this.film = new Mesh(box, new MeshBasicMaterial({ color: 0xffffff, transparent: true, opacity: FILM_OPACITY, depthWrite: false }));
    this.object.add(this.film, this.edges);
    this.object.name = 'block highlight';
    this.object.visible = false;
  }

  /** Outlines the block whose minimum corner is at world (x, y, z). */
  show(x: number, y: number, z: number): void {
    this.object.position.set(x + 0.5, y + 0.5, z + 0.5);
    this.object.visible = true;
  }

  hide(): void {
    this.object.visible = false;
  }

  get visible(): boolean {
    return this.object.visible;
  }

  dispose(): void {
    this.edges.geometry.dispose();
    (this.edges.material as LineBasicMaterial).dispose();
    this.film.geometry.dispose();
    (this.film.material as MeshBasicMaterial).dispose();
  }
}
