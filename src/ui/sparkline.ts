// A small live line chart on a canvas: one or two series over the last minutes, with the
// latest value and the peak written beside it. Drawn by hand (a few dozen lines) rather
// than with a charting library: three tiny charts need no axes, legends or animation.

export interface SparklineSeries {
  values: readonly number[];
  colour: string;
  label: string;
}

export class Sparkline {
  readonly canvas: HTMLCanvasElement;
  private readonly caption: HTMLElement;

  constructor(container: HTMLElement, readonly title: string, private readonly unit: string, width = 220, height = 56) {
    const box = document.createElement('figure');
    box.className = 'sparkline';
    box.innerHTML = '<figcaption></figcaption>';
    this.caption = box.querySelector('figcaption')!;
    this.canvas = document.createElement('canvas');
    this.canvas.width = width;
    this.canvas.height = height;
    box.prepend(this.canvas);
    container.append(box);
  }

  draw(series: readonly SparklineSeries[]): void {
    const g = this.canvas.getContext('2d');
    const { width: w, height: h } = this.canvas;
    const peak = Math.max(1e-9, ...series.flatMap((s) => s.values));
    if (g) {
      g.clearRect(0, 0, w, h);
      g.fillStyle = 'rgba(0,0,0,.25)';
      g.fillRect(0, 0, w, h);
      for (const s of series) {
        const n = s.values.length;
        if (n < 2) continue;
        g.strokeStyle = s.colour;
        g.lineWidth = 1.5;
        g.beginPath();
        s.values.forEach((v, i) => {
          const x = (i / (n - 1)) * (w - 2) + 1;
          const y = h - 2 - (v / peak) * (h - 6);
          if (i === 0) g.moveTo(x, y);
          else g.lineTo(x, y);
        });
        g.stroke();
      }
    }
    const fmt = (v: number) => (Number.isInteger(v) || v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
    const now = series.map((s) => `${s.label} ${fmt(s.values.at(-1) ?? 0)}`).join(' · ');
    this.caption.textContent = `${this.title}: ${now} ${this.unit} (peak ${fmt(peak < 1e-6 ? 0 : peak)})`;
  }
}
