// Where a player stands and looks: the one shape every layer passes around (the saved
// player, the signed player record, MOVE frames, remote players as drawn). Feet position in
// world blocks; yaw and pitch in radians (yaw 0 looks at -z, pitch up positive).

export interface Pose {
  x: number;
  y: number;
  z: number;
  yaw: number;
  pitch: number;
}

/** Whether two poses are the same to the last bit (a quantised pose too: same fields). */
export function samePose(a: Pose, b: Pose): boolean {
  return a.x === b.x && a.y === b.y && a.z === b.z && a.yaw === b.yaw && a.pitch === b.pitch;
}
