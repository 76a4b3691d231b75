// How many nodes the network has, guessed from this node's own routing table: node ids are
// uniform in the 160-bit space, so the i-th closest of N others lies about i/N of the space
// away. A least-squares fit of i = N * x_i over the k closest known (x_i = XOR distance as a
// fraction of the space) gives N; with fewer than k known, we likely know everyone.
// Kademlia keeps its k closest contacts complete, so the fit is good to a factor of ~1.5.
import { ID_BYTES, type NodeId } from '../core/node-id';

/** XOR distance as a fraction of the id space (double precision: the top 52 bits matter). */
export function distanceFraction(a: NodeId, b: NodeId): number {
  let f = 0;
  let scale = 1 / 256;
  for (let i = 0; i < ID_BYTES && scale > 2 ** -60; i++) {
    f += (a[i]! ^ b[i]!) * scale;
    scale /= 256;
  }
  return f;
}

/** Estimated node count including self; `closest` are the known ids nearest self (any order). */
export function estimateNetworkSize(self: NodeId, closest: readonly NodeId[], k = 20): number {
  // Distinct ids only (a table may list one contact twice, e.g. as live and as a replacement).
  const xs = [...new Set(closest.map((c) => distanceFraction(self, c)))].filter((x) => x > 0).sort((a, b) => a - b);
  if (xs.length < k) return xs.length + 1;
  let sxy = 0, sxx = 0;
  xs.forEach((x, i) => { sxy += (i + 1) * x; sxx += x * x; });
  return Math.max(xs.length + 1, Math.round(sxy / sxx) + 1);
}
