// Sections waiting to be (re)meshed. A section marked many times before it is meshed is
// meshed once: loading a column dirties its neighbours' borders, and nearest-first
// loading would otherwise mesh most sections up to five times. Edits jump the queue (the
// player is looking at them); otherwise the section nearest the focus goes first.
import { CHUNK_SIZE, SECTION_HEIGHT } from '../world/coords';

export interface SectionRef {
  readonly cx: number;
  readonly cz: number;
  readonly sy: number;
}

export interface Focus {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

export function sectionKey(cx: number, cz: number, sy: number): string {
  return `${cx},${cz},${sy}`;
}

interface Entry extends SectionRef {
  urgent: boolean;
}

export class RemeshQueue {
  private readonly dirty = new Map<string, Entry>();

  get size(): number {
    return this.dirty.size;
  }

  has(cx: number, cz: number, sy: number): boolean {
    return this.dirty.has(sectionKey(cx, cz, sy));
  }

  mark(cx: number, cz: number, sy: number, urgent = false): void {
    const key = sectionKey(cx, cz, sy);
    const e = this.dirty.get(key);
    if (e) e.urgent ||= urgent;
    else this.dirty.set(key, { cx, cz, sy, urgent });
  }

  /** Forgets a column's sections (it was unloaded). */
  dropChunk(cx: number, cz: number): void {
    for (const [key, e] of this.dirty) if (e.cx === cx && e.cz === cz) this.dirty.delete(key);
  }

  /**
   * Removes and returns up to n sections, urgent first, then nearest to the focus.
   * `busy` sections (already being meshed) stay queued: one job per section at a time
   * keeps results in order.
   */
  take(n: number, focus: Focus, busy: (key: string) => boolean = () => false): SectionRef[] {
    const out: SectionRef[] = [];
    // n is the number of free workers (1..4): n linear scans beat sorting the whole set.
    while (out.length < n) {
      let best: [string, Entry] | undefined;
      let bestScore = Infinity;
      for (const kv of this.dirty) {
        if (busy(kv[0])) continue;
        const score = priority(kv[1], focus);
        if (score < bestScore) {
          bestScore = score;
          best = kv;
        }
      }
      if (!best) break;
      this.dirty.delete(best[0]);
      out.push({ cx: best[1].cx, cz: best[1].cz, sy: best[1].sy });
    }
    return out;
  }
}

/** Squared distance from the focus to the section's centre; urgent ones rank below 0. */
function priority(e: Entry, f: Focus): number {
  const dx = (e.cx + 0.5) * CHUNK_SIZE - f.x;
  const dy = (e.sy + 0.5) * SECTION_HEIGHT - f.y;
  const dz = (e.cz + 0.5) * CHUNK_SIZE - f.z;
  const d2 = dx * dx + dy * dy + dz * dz;
  return e.urgent ? d2 - 1e12 : d2;
}
