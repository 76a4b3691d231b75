// Other players in the scene: a blocky body and head per player, the body in the colour the
// player chose (world/player-colour.ts; one its id gives when it chose none, the same in
// every tab), with the name on a label that always faces the camera, written in that colour.
// `drawn` says what the scene holds (window.voxel.avatars: tests read colours from the scene,
// not from pixels). Positions come already smoothed (play/remote-player-smoother.ts); `sync` is
// called once per frame with everyone to draw and adds, moves and removes avatars.
// Box geometries are shared by all avatars (freed by dispose()); each avatar's materials
// and label texture are its own and are freed the moment it leaves.
import {
  BoxGeometry, CanvasTexture, Group, LinearFilter, Mesh, MeshLambertMaterial, Sprite, SpriteMaterial, type Texture,
} from 'three';
import type { RemotePlayerSample } from '../play/remote-player-smoother';
import { PLAYER_COLOURS, playerColourCss } from '../world/player-colour';

/** A remote player as drawn: the smoother's sample (feet position, yaw 0 facing -z); pitch optional. */
export type AvatarState = Omit<RemotePlayerSample, 'pitch'> & { pitch?: number };

export interface LabelTexture {
  texture: Texture;
  /** width / height of the label image. */
  aspect: number;
}

export interface RemoteAvatarsOptions {
  /** Draws a name label in a colour (palette index) (default: a canvas; tests pass a stand-in, Node has no canvas). */
  labelTexture?: (name: string, colour: number) => LabelTexture;
}

export const AVATAR_SIZE = {
  bodyWidth: 0.6,
  bodyHeight: 1.3,
  bodyDepth: 0.35,
  head: 0.5,
  /** World height of the name label. */
  labelHeight: 0.32,
  labelGap: 0.25,
} as const;

/** Names longer than this are cut (a label is not a place for an essay). */
const MAX_LABEL_CHARS = 24;

/** An avatar as the scene holds it: player id (hex), name on its label, body and label colours ('#rrggbb'). */
export interface DrawnAvatar {
  id: string;
  name: string;
  body: string;
  label: string;
}

/** The body colour of a palette index (0xRRGGBB); one out of the palette (never from a host: schemas check it) draws as the first. */
export function avatarColour(colour: number): number {
  return PLAYER_COLOURS[colour] ?? PLAYER_COLOURS[0]!;
}

/** The name drawn on a canvas (DOM canvas or OffscreenCanvas): the player's colour on a dark backing, a bar of it below. */
export function canvasLabel(name: string, colour: number): LabelTexture {
  const text = name.length > MAX_LABEL_CHARS ? `${name.slice(0, MAX_LABEL_CHARS - 1)}…` : name;
  const font = '28px system-ui, sans-serif';
  const h = 40;
  const make = (w: number): HTMLCanvasElement | OffscreenCanvas => {
    if (typeof OffscreenCanvas !== 'undefined') return new OffscreenCanvas(w, h);
    const c = document.createElement('canvas');
    c.width = w;
    c.height = h;
    return c;
  };
  const probe = make(1).getContext('2d') as CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D | null;
  if (!probe) throw new Error('no 2D canvas for name labels');
  probe.font = font;
  const w = Math.max(h, Math.ceil(probe.measureText(text).width) + 16);
  const canvas = make(w);
  const g = canvas.getContext('2d') as CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;
  g.fillStyle = 'rgba(0,0,0,0.55)';
  g.fillRect(0, 0, w, h);
  g.fillStyle = playerColourCss(colour);
  g.fillRect(0, h - 4, w, 4);
  g.font = font;
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillText(text, w / 2, h / 2 + 1);
  const texture = new CanvasTexture(canvas);
  texture.minFilter = LinearFilter;
  texture.generateMipmaps = false;
  return { texture, aspect: w / h };
}

interface Avatar {
  root: Group;
  head: Mesh;
  label: Sprite;
  name: string;
  colour: number;
  body: MeshLambertMaterial;
  materials: MeshLambertMaterial[];
}

export class RemoteAvatars {
  /** Add this to the scene. */
  readonly group = new Group();
  private readonly avatars = new Map<string, Avatar>();
  private readonly bodyGeometry: BoxGeometry;
  private readonly headGeometry: BoxGeometry;
  private readonly labelTexture: (name: string, colour: number) => LabelTexture;

  constructor(opts: RemoteAvatarsOptions = {}) {
    const size = AVATAR_SIZE;
    this.bodyGeometry = new BoxGeometry(size.bodyWidth, size.bodyHeight, size.bodyDepth);
    this.bodyGeometry.translate(0, size.bodyHeight / 2, 0);
    this.headGeometry = new BoxGeometry(size.head, size.head, size.head);
    this.labelTexture = opts.labelTexture ?? canvasLabel;
    this.group.name = 'remote players';
  }

  /** Draws exactly these players: new ones appear, known ones move, missing ones go. */
  sync(players: readonly AvatarState[]): void {
    const seen = new Set<string>();
    for (const player of players) {
      seen.add(player.id);
      let avatar = this.avatars.get(player.id);
      if (!avatar) this.avatars.set(player.id, (avatar = this.create(player)));
      else if (avatar.name !== player.name || avatar.colour !== player.colour) this.relabel(avatar, player.name, player.colour);
      avatar.root.position.set(player.x, player.y, player.z);
      avatar.root.rotation.y = player.yaw;
      avatar.head.rotation.x = player.pitch ?? 0;
    }
    for (const id of [...this.avatars.keys()]) if (!seen.has(id)) this.remove(id);
  }

  remove(id: string): boolean {
    const avatar = this.avatars.get(id);
    if (!avatar) return false;
    this.group.remove(avatar.root);
    for (const m of avatar.materials) m.dispose();
    this.disposeLabel(avatar.label);
    this.avatars.delete(id);
    return true;
  }

  has(id: string): boolean {
    return this.avatars.has(id);
  }

  get size(): number {
    return this.avatars.size;
  }

  /** What the scene holds now, one entry per avatar. */
  drawn(): DrawnAvatar[] {
    return [...this.avatars].map(([id, a]) => ({ id, name: a.name, body: `#${a.body.color.getHexString()}`, label: playerColourCss(a.colour) }));
  }

  /** The avatar's scene object (tests, picking). */
  object(id: string): Group | undefined {
    return this.avatars.get(id)?.root;
  }

  dispose(): void {
    for (const id of [...this.avatars.keys()]) this.remove(id);
    this.bodyGeometry.dispose();
    this.headGeometry.dispose();
  }

  private create(player: AvatarState): Avatar {
    const size = AVATAR_SIZE;
    const bodyMat = new MeshLambertMaterial({ color: avatarColour(player.colour) });
    const headMat = new MeshLambertMaterial({ color: 0xf0c8a0 });
    const root = new Group();
    root.name = `player ${player.id}`;
    const body = new Mesh(this.bodyGeometry, bodyMat);
    const head = new Mesh(this.headGeometry, headMat);
    head.position.y = size.bodyHeight + size.head / 2;
    root.add(body, head);
    const label = this.makeLabel(player.name, player.colour);
    root.add(label);
    this.group.add(root);
    return { root, head, label, name: player.name, colour: player.colour, body: bodyMat, materials: [bodyMat, headMat] };
  }

  private makeLabel(name: string, colour: number): Sprite {
    const size = AVATAR_SIZE;
    const { texture, aspect } = this.labelTexture(name, colour);
    const label = new Sprite(new SpriteMaterial({ map: texture, depthWrite: false, transparent: true }));
    label.scale.set(size.labelHeight * aspect, size.labelHeight, 1);
    label.position.y = size.bodyHeight + size.head + size.labelGap + size.labelHeight / 2;
    label.name = 'name label';
    return label;
  }

  private relabel(a: Avatar, name: string, colour: number): void {
    a.root.remove(a.label);
    this.disposeLabel(a.label);
    a.label = this.makeLabel(name, colour);
    a.root.add(a.label);
    a.name = name;
    a.colour = colour;
    a.body.color.setHex(avatarColour(colour));
  }

  private disposeLabel(label: Sprite): void {
    label.material.map?.dispose();
    label.material.dispose();
  }
}
