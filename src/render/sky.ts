// Sky, fog and light. The fog colour is the horizon colour of the sky dome, and fog ends
// at the render distance, so columns appear and vanish inside the haze instead of
// popping in against a hard edge.
import {
  BackSide, BufferAttribute, Color, DirectionalLight, Fog, HemisphereLight, Mesh, MeshBasicMaterial, SphereGeometry,
  type Object3D, type Scene,
} from 'three';
import { CHUNK_SIZE } from '../world/coords';
import { skyAt, TIME_OF_DAY } from './time-of-day';

/** The hemisphere light's colour from below: the ground's. The sky's colours are time-of-day.ts's. */
const GROUND_COLOUR = 0x6b6256;
/** Fog starts at this fraction of the view distance. */
const FOG_START = 0.55;
/** Light intensities at noon (setTime scales them down by night). */
const HEMISPHERE_INTENSITY = 0.75;
const SUN_INTENSITY = 0.55;
/** Direction towards the sun until setTime places it (normalised by three). */
const FIRST_SUN = [0.45, 1, 0.3] as const;

/** Metres (blocks) seen at a render distance in chunks: the ring's inner edge. */
export function viewDistance(renderDistance: number): number {
  return renderDistance * CHUNK_SIZE;
}

export class Sky {
  readonly dome: Mesh;
  readonly hemisphere: HemisphereLight;
  readonly sun: DirectionalLight;
  readonly fog: Fog;
  private lastFraction = NaN;

  constructor(private readonly scene: Scene, renderDistance: number) {
    const horizon = new Color(TIME_OF_DAY.day.horizon);
    this.fog = new Fog(horizon, 1, 2);
    scene.fog = this.fog;
    scene.background = horizon.clone();
    this.dome = new Mesh(gradientDome(), new MeshBasicMaterial({ vertexColors: true, side: BackSide, fog: false, depthWrite: false }));
    this.dome.name = 'sky';
    this.dome.renderOrder = -1;
    this.dome.frustumCulled = false;
    this.hemisphere = new HemisphereLight(0xffffff, GROUND_COLOUR, HEMISPHERE_INTENSITY);
    this.sun = new DirectionalLight(0xffffff, SUN_INTENSITY);
    this.sun.position.set(...FIRST_SUN);
    scene.add(this.dome, this.hemisphere, this.sun);
    this.setRenderDistance(renderDistance);
  }

  setRenderDistance(renderDistance: number): void {
    const far = viewDistance(renderDistance);
    this.fog.near = far * FOG_START;
    this.fog.far = far;
    // The dome sits just inside the fog's end and inside the camera's far plane.
    this.dome.scale.setScalar(far * 1.2);
  }

  /**
   * Sun, sky, fog and light for world time `worldMs` (the synchronised clock: every player
   * sees the same sky). The dome is recoloured only when the day moved on by a few seconds.
   */
  setTime(worldMs: number): void {
    const s = skyAt(worldMs);
    if (Math.abs(s.fraction - this.lastFraction) < 1 / 4000) return;
    this.lastFraction = s.fraction;
    paintDome(this.dome.geometry as SphereGeometry, s.zenith, s.horizon);
    this.fog.color.copy(s.horizon);
    (this.scene.background as Color).copy(s.horizon);
    this.sun.position.set(...s.sun);
    const light = TIME_OF_DAY.nightLight + (1 - TIME_OF_DAY.nightLight) * s.daylight;
    this.hemisphere.intensity = HEMISPHERE_INTENSITY * light;
    this.sun.intensity = SUN_INTENSITY * (0.3 + 0.7 * s.daylight);
  }

  /** The dome travels with the camera so its horizon never comes closer. */
  follow(camera: Object3D): void {
    this.dome.position.copy(camera.position);
  }

  dispose(): void {
    this.dome.geometry.dispose();
    (this.dome.material as MeshBasicMaterial).dispose();
    this.hemisphere.dispose();
    this.sun.dispose();
  }
}

/** A unit sphere coloured from zenith down to the horizon (and a bit below it). */
function gradientDome(): SphereGeometry {
  const g = new SphereGeometry(1, 24, 12);
  g.setAttribute('color', new BufferAttribute(new Float32Array(g.getAttribute('position').count * 3), 3));
  paintDome(g, new Color(TIME_OF_DAY.day.zenith), new Color(TIME_OF_DAY.day.horizon));
  return g;
}

function paintDome(g: SphereGeometry, zenith: Color, horizon: Color): void {
  const pos = g.getAttribute('position');
  const colours = g.getAttribute('color') as BufferAttribute;
  const c = new Color();
  for (let i = 0; i < pos.count; i++) {
    const t = Math.max(0, pos.getY(i)); // 0 at the horizon and below, 1 straight up
    c.copy(horizon).lerp(zenith, Math.pow(t, 0.6));
    colours.setXYZ(i, c.r, c.g, c.b);
  }
  colours.needsUpdate = true;
}
