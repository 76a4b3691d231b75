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
