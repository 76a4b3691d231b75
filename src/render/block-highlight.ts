// The outline around the block the player is aiming at. Drawn slightly larger than the
// block so its edges do not z-fight with the block's faces.
import { BoxGeometry, EdgesGeometry, LineBasicMaterial, LineSegments } from 'three';

const GROW = 1.004;

export class BlockHighlight {
  readonly object: LineSegments;

  constructor(colour = 0x111111) {
    const box = new BoxGeometry(GROW, GROW, GROW);
    this.object = new LineSegments(new EdgesGeometry(box), new LineBasicMaterial({ color: colour, transparent: true, opacity: 0.7 }));
    box.dispose();
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
    this.object.geometry.dispose();
    (this.object.material as LineBasicMaterial).dispose();
  }
}
