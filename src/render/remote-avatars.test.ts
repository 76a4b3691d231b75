import { describe, expect, it, vi } from 'vitest';
import { Mesh, Sprite, Texture, type MeshLambertMaterial } from 'three';
import { avatarColour, RemoteAvatars, type LabelTexture } from './remote-avatars';
import { PLAYER_COLOURS, playerColourCss } from '../world/player-colour';

/** Node has no canvas: labels are plain textures whose disposal is watched. */
function labels() {
  const made: { name: string; colour: number; texture: Texture; dispose: ReturnType<typeof vi.fn> }[] = [];
  const factory = (name: string, colour: number): LabelTexture => {
    const texture = new Texture();
    const dispose = vi.fn();
    texture.addEventListener('dispose', dispose);
    made.push({ name, colour, texture, dispose });
    return { texture, aspect: 3 };
  };
  return { made, factory };
}

const ann = { id: 'aa01', name: 'Ann', colour: 4, x: 10, y: 64, z: -3, yaw: 1, pitch: 0.2 };
const bob = { id: 'bb02', name: 'Bob', colour: 7, x: 0, y: 70, z: 0, yaw: 0 };

describe('remote avatars', () => {
  it('adds, moves and turns avatars', () => {
    const l = labels();
    const av = new RemoteAvatars({ labelTexture: l.factory });
    av.sync([ann, bob]);
    expect(av.size).toBe(2);
    expect(av.group.children.length).toBe(2);
    av.sync([{ ...ann, x: 11, yaw: -2, pitch: -0.5 }, bob]);
    const o = av.object('aa01')!;
    expect(o.position.toArray()).toEqual([11, 64, -3]);
    expect(o.rotation.y).toBe(-2);
    const head = o.children.filter((c) => c instanceof Mesh)[1]!;
    expect(head.rotation.x).toBe(-0.5);
    expect(head.position.y).toBeGreaterThan(1.3);
    const label = o.children.find((c) => c instanceof Sprite) as Sprite;
    expect(label.material.map).toBe(l.made[0]!.texture);
    expect(label.scale.x / label.scale.y).toBeCloseTo(3);
    expect(label.position.y).toBeGreaterThan(head.position.y);
    expect(l.made.map((m) => m.name)).toEqual(['Ann', 'Bob']);
  });

  it('removes players missing from the list and frees their materials and label', () => {
    const l = labels();
    const av = new RemoteAvatars({ labelTexture: l.factory });
    av.sync([ann, bob]);
    const o = av.object('bb02')!;
    const mats = o.children.filter((c) => c instanceof Mesh).map((m) => (m as Mesh).material as MeshLambertMaterial);
    const matDisposed = mats.map((m) => { const f = vi.fn(); m.addEventListener('dispose', f); return f; });
    const spriteMat = (o.children.find((c) => c instanceof Sprite) as Sprite).material;
    const spriteDisposed = vi.fn();
    spriteMat.addEventListener('dispose', spriteDisposed);
    av.sync([ann]);
    expect(av.has('bb02')).toBe(false);
    expect(av.group.children.length).toBe(1);
    expect(matDisposed.every((f) => f.mock.calls.length === 1)).toBe(true);
    expect(spriteDisposed).toHaveBeenCalledOnce();
    expect(l.made[1]!.dispose).toHaveBeenCalledOnce();
    expect(l.made[0]!.dispose).not.toHaveBeenCalled();
  });

  it('relabels a renamed player and frees the old label', () => {
    const l = labels();
    const av = new RemoteAvatars({ labelTexture: l.factory });
    av.sync([ann]);
    av.sync([{ ...ann, name: 'Annie' }]);
    expect(l.made.map((m) => m.name)).toEqual(['Ann', 'Annie']);
    expect(l.made[0]!.dispose).toHaveBeenCalledOnce();
    expect(av.object('aa01')!.children.filter((c) => c instanceof Sprite)).toHaveLength(1);
  });

  it('disposes everything, shared geometry included', () => {
    const l = labels();
    const av = new RemoteAvatars({ labelTexture: l.factory });
    av.sync([ann, bob]);
    const geo = (av.object('aa01')!.children[0] as Mesh).geometry;
    const geoDisposed = vi.fn();
    geo.addEventListener('dispose', geoDisposed);
    av.dispose();
    expect(av.size).toBe(0);
    expect(geoDisposed).toHaveBeenCalledOnce();
    expect(l.made.every((m) => m.dispose.mock.calls.length === 1)).toBe(true);
  });

  it('draws body and label in the colour the player chose, and repaints both when it changes', () => {
    const l = labels();
    const av = new RemoteAvatars({ labelTexture: l.factory });
    av.sync([ann, bob]);
    const body = (id: string) => ((av.object(id)!.children[0] as Mesh).material as MeshLambertMaterial).color.getHex();
    expect(body('aa01')).toBe(PLAYER_COLOURS[4]);
    expect(body('bb02')).toBe(PLAYER_COLOURS[7]);
    expect(l.made.map((m) => [m.name, m.colour])).toEqual([['Ann', 4], ['Bob', 7]]);
    av.sync([{ ...ann, colour: 9 }, bob]);
    expect(body('aa01')).toBe(PLAYER_COLOURS[9]);
    expect(l.made.map((m) => [m.name, m.colour])).toEqual([['Ann', 4], ['Bob', 7], ['Ann', 9]]);
    expect(l.made[0]!.dispose).toHaveBeenCalledOnce();
    expect(av.drawn()).toEqual([
      { id: 'aa01', name: 'Ann', body: playerColourCss(9), label: playerColourCss(9) },
      { id: 'bb02', name: 'Bob', body: playerColourCss(7), label: playerColourCss(7) },
    ]);
    expect(avatarColour(99)).toBe(PLAYER_COLOURS[0]);
  });
});
