// How much of the screen changed between two screenshots: the share of pixels whose colour
// moved by more than `threshold` in some channel (PNG decoded in Node with pngjs).
import { PNG } from 'pngjs';

export function changedShare(before: Buffer, after: Buffer, threshold = 24): number {
  const [p, q] = [PNG.sync.read(before).data, PNG.sync.read(after).data];
  if (p.length !== q.length) throw new Error('screenshots of different sizes');
  let changed = 0;
  for (let i = 0; i < p.length; i += 4) {
    if (Math.abs(p[i]! - q[i]!) > threshold || Math.abs(p[i + 1]! - q[i + 1]!) > threshold || Math.abs(p[i + 2]! - q[i + 2]!) > threshold) changed++;
  }
  return changed / (p.length / 4);
}
