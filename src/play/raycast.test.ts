import { describe, expect, it } from 'vitest';
import { lookVector, raycast } from './raycast';

const solidAt = (cells: [number, number, number][]) => {
  const set = new Set(cells.map((c) => c.join(',')));
  return (x: number, y: number, z: number) => (set.has(`${x},${y},${z}`) ? 3 : 0);
};
const nonAir = (id: number) => id !== 0;

describe('raycast', () => {
  it('hits the first block along +x and reports the -x face', () => {
    const hit = raycast(solidAt([[5, 0, 0], [7, 0, 0]]), nonAir, 0.5, 0.5, 0.5, 1, 0, 0, 10);
    expect(hit).toMatchObject({ x: 5, y: 0, z: 0, nx: -1, ny: 0, nz: 0 });
    expect(hit!.distance).toBeCloseTo(4.5);
  });

  it('reports the top face when looking down, and works at negative coordinates', () => {
    const hit = raycast(solidAt([[-3, -2, -7]]), nonAir, -2.5, 3.2, -6.5, 0, -1, 0, 10);
    expect(hit).toMatchObject({ x: -3, y: -2, z: -7, nx: 0, ny: 1, nz: 0 });
    expect(hit!.distance).toBeCloseTo(4.2);
  });

  it('hits the right face on a diagonal ray', () => {
    // z = 0.2 + 0.5 (x - 0.5): crosses x = 2 at z = 0.95, then z = 1 at x = 2.1,
    // so cell (2,0,1) is entered through its -z face and (3,0,1) through its -x face.
    expect(raycast(solidAt([[2, 0, 1]]), nonAir, 0.5, 0.5, 0.2, 1, 0, 0.5, 10)).toMatchObject({ x: 2, z: 1, nx: 0, nz: -1 });
    expect(raycast(solidAt([[3, 0, 1]]), nonAir, 0.5, 0.5, 0.2, 1, 0, 0.5, 10)).toMatchObject({ x: 3, z: 1, nx: -1, nz: 0 });
  });

  it('returns null past the reach and for a zero vector', () => {
    expect(raycast(solidAt([[9, 0, 0]]), nonAir, 0.5, 0.5, 0.5, 1, 0, 0, 5)).toBeNull();
    expect(raycast(solidAt([[1, 0, 0]]), nonAir, 0.5, 0.5, 0.5, 0, 0, 0, 5)).toBeNull();
  });

  it('look vector: yaw 0 looks at -z, pitch up looks at +y', () => {
    const [x, y, z] = lookVector(0, 0);
    expect([x + 0, y, z]).toEqual([0, 0, -1]);
    expect(lookVector(0, Math.PI / 2)[1]).toBeCloseTo(1);
    expect(lookVector(Math.PI / 2, 0)[0]).toBeCloseTo(-1);
  });
});
