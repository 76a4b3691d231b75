// The heads-up display: position, chunk, FPS and load state top-left, the hotbar at the
// bottom, a banner for errors. Updated a few times a second, not every frame, so the DOM
// costs nothing noticeable.
import { BLOCKS, PLACEABLE } from '../world/blocks';

export interface HudStats {
  x: number;
  y: number;
  z: number;
  cx: number;
  cz: number;
  fps: number;
  chunks: number;
  pending: number;
  renderDistance: number;
  flying: boolean;
  drawCalls: number;
  triangles: number;
  /** One line about the peer network. */
  net: string;
  /** Edits kept tentative (no certified primary confirmed them yet). */
  tentative?: number;
}

const hex = (c: number) => `#${c.toString(16).padStart(6, '0')}`;

export class Hud {
  private readonly info: HTMLElement;
  private readonly slots: HTMLElement[] = [];
  private readonly banner: HTMLElement;
  private shown = '';

  constructor(root: HTMLElement) {
    this.info = el(root, 'div', 'hud-info');
    const bar = el(root, 'div', 'hotbar');
    for (const id of PLACEABLE.slice(0, 9)) {
      const b = BLOCKS[id]!;
      const slot = el(bar, 'div', 'slot');
      slot.title = b.name;
      slot.style.background = `linear-gradient(${hex(b.top)} 0 35%, ${hex(b.side)} 35% 100%)`;
      el(slot, 'span', 'slot-name').textContent = b.name;
      this.slots.push(slot);
    }
    this.banner = el(root, 'div', 'banner');
    this.banner.hidden = true;
    this.banner.addEventListener('click', () => { this.banner.hidden = true; });
  }

  update(s: HudStats): void {
    const text =
      `XYZ ${s.x.toFixed(1)} / ${s.y.toFixed(1)} / ${s.z.toFixed(1)}\n` +
      `Chunk ${s.cx}, ${s.cz}${s.flying ? '   flying' : ''}\n` +
      `${s.fps.toFixed(0)} fps   ${s.chunks} chunks${s.pending ? ` (+${s.pending} loading)` : ''}   view ${s.renderDistance}\n` +
      `${s.drawCalls} draws   ${(s.triangles / 1000).toFixed(0)}k tris\n` +
      s.net +
      (s.tentative ? `\n${tentativeLine(s.tentative)}` : '');
    // A write of the same text still costs the page a style and layout pass and a frame.
    if (text !== this.shown) this.info.textContent = this.shown = text;
  }

  select(index: number): void {
    this.slots.forEach((s, i) => s.classList.toggle('selected', i === index));
  }

  /** Shows an error (or notice) until clicked or replaced; errors stay, notices fade. */
  showMessage(text: string, kind: 'error' | 'notice' = 'error'): void {
    this.banner.textContent = text;
    this.banner.className = `banner ${kind}`;
    this.banner.hidden = false;
    if (kind === 'notice') setTimeout(() => { if (this.banner.textContent === text) this.banner.hidden = true; }, 3000);
  }
}

/**
 * One formatter for the tentative count: `toLocaleString('en')` builds a formatter per call
 * (~100 times the cost of a kept one's format), at every HUD update while edits wait.
 */
const COUNT = new Intl.NumberFormat('en');

/** The HUD line for edits kept tentative. */
export function tentativeLine(n: number): string {
  return `${n === 1 ? '1 edit' : `${COUNT.format(n)} edits`} not yet shared: no other player reachable; they will be merged when others come`;
}

function el(parent: HTMLElement, tag: string, cls: string): HTMLElement {
  const e = document.createElement(tag);
  e.className = cls;
  parent.appendChild(e);
  return e;
}
