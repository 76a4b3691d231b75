// Checks run on what a page shows: is a screenshot a real picture (not blank, not one
// colour)? Decoded inside the page itself, so no image library is needed.
import type { Page } from 'playwright-core';

export interface ImageStats {
  distinctColours: number;
  /** Share of pixels in the most common colour (1 = uniform). */
  dominantShare: number;
  lumaStdDev: number;
}

export async function screenshotStats(page: Page): Promise<ImageStats> {
  const png = (await page.screenshot({ type: 'png' })).toString('base64');
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d')!;
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const counts = new Map<number, number>();
    let sum = 0, sum2 = 0;
    const n = d.length / 4;
    for (let i = 0; i < d.length; i += 4) {
      const key = (d[i]! << 16) | (d[i + 1]! << 8) | d[i + 2]!;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      const l = 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;
      sum += l;
      sum2 += l * l;
    }
    const mean = sum / n;
    return { distinctColours: counts.size, dominantShare: Math.max(...counts.values()) / n, lumaStdDev: Math.sqrt(sum2 / n - mean * mean) };
  }, png);
}
