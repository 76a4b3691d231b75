import { Mesh, type MeshLambertMaterial, Scene } from 'three';
import { describe, expect, it } from 'vitest';
import { ItemModels } from './item-models';
import { Sky } from './sky';
import { skyAt, TIME_OF_DAY } from './time-of-day';

describe('ItemModels', () => {
  it('draws exactly the items given, a distinct shape and colour per kind, turned by world time alone', () => {
    const m = new ItemModels();
    m.sync([{ id: 'a', kind: 'gem', x: 1, y: 2, z: 3 }, { id: 'b', kind: 'star', x: 4, y: 5, z: 6 }, { id: 'c', kind: 'coin', x: 0, y: 0, z: 0 }, { id: 'd', kind: 'apple', x: 0, y: 0, z: 0 }], 1000);
    expect(m.count).toBe(4);
    const meshes = m.group.children as Mesh[];
    expect(new Set(meshes.map((x) => x.geometry)).size).toBe(4);
    expect(new Set(meshes.map((x) => (x.material as MeshLambertMaterial).color.getHex())).size).toBe(4);
    const a = meshes.find((x) => x.name === 'item a')!;
    expect(a.position.x).toBe(1);
    expect(a.position.y).toBeGreaterThan(2);
    const turn = a.rotation.y;
    m.sync([{ id: 'a', kind: 'gem', x: 1, y: 2, z: 3 }], 1500);
    expect(m.count).toBe(1);
    expect(a.rotation.y).not.toBeCloseTo(turn, 3); // it spins
    // Another peer at the same world time draws it at the same angle.
    const other = new ItemModels();
    other.sync([{ id: 'a', kind: 'gem', x: 1, y: 2, z: 3 }], 1500);
    expect((other.group.children[0] as Mesh).rotation.y).toBe(a.rotation.y);
    m.sync([], 2000);
    expect(m.group.children.length).toBe(0);
    m.dispose();
  });
});

describe('time of day', () => {
  const day = TIME_OF_DAY.dayMs;
  it('noon is bright with the sun high; midnight dark blue, never black; sunset glows', () => {
    const noon = skyAt(day / 2), midnight = skyAt(0), sunset = skyAt(day * 0.75);
    expect(noon.daylight).toBe(1);
    expect(noon.sun[1]).toBeCloseTo(1, 5);
    expect(midnight.daylight).toBe(0);
    expect(midnight.zenith.getHex()).toBe(TIME_OF_DAY.night.zenith);
    expect(sunset.horizon.r).toBeGreaterThan(sunset.horizon.b);
    expect(skyAt(day * 3.5 + 0).fraction).toBeCloseTo(0.5, 9); // a function of world time alone
  });

  it('the sky follows the world time it is given', () => {
    const scene = new Scene();
    const sky = new Sky(scene, 4);
    sky.setTime(day / 2);
    const bright = sky.hemisphere.intensity;
    const noonFog = sky.fog.color.getHex();
    sky.setTime(0);
    expect(sky.hemisphere.intensity).toBeLessThan(bright);
    expect(sky.hemisphere.intensity).toBeGreaterThanOrEqual(bright * TIME_OF_DAY.nightLight - 1e-9);
    expect(sky.fog.color.getHex()).not.toBe(noonFog);
    sky.dispose();
  });
});
