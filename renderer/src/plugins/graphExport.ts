// Exports of what the Graph Plugin shows: PNG from uPlot's own canvas (with the legend written
// under it), SVG drawn by Observable Plot from the same data, view and colours.
import type uPlot from 'uplot';
import type { ChartTheme } from './chartTheme';

export interface ExportSeries {
  name: string;
  color: string;
  x: ArrayLike<number>;
  y: ArrayLike<number>;
}

export interface ExportView {
  title: string;
  xLabel: string;
  yLabel: string;
  x: [number, number];
  y: [number, number];
  logY: boolean;
  width: number;
  height: number;
}

export function download(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const fileSafe = (s: string) => s.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '') || 'chart';

const LEGEND_ROW = 18;

/** The chart canvas on the panel colour, with one legend line per visible series below it. */
export async function chartPng(u: uPlot, series: { name: string; color: string; show: boolean }[], theme: ChartTheme): Promise<Blob> {
  const src = u.ctx.canvas;
  const ratio = src.width / Math.max(1, u.width);
  const shown = series.filter((s) => s.show);
  const out = document.createElement('canvas');
  out.width = src.width;
  out.height = src.height + Math.ceil((shown.length * LEGEND_ROW + 8) * ratio);
  const ctx = out.getContext('2d')!;
  ctx.fillStyle = theme.background;
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.drawImage(src, 0, 0);
  ctx.scale(ratio, ratio);
  ctx.font = '12px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  shown.forEach((s, i) => {
    const y = src.height / ratio + 4 + LEGEND_ROW * i + LEGEND_ROW / 2;
    ctx.fillStyle = s.color;
    ctx.fillRect(12, y - 2, 18, 4);
    ctx.fillStyle = theme.text;
    ctx.fillText(s.name, 38, y);
  });
  return new Promise((resolve, reject) =>
    out.toBlob((b) => (b ? resolve(b) : reject(new Error('The browser could not encode the PNG'))), 'image/png'),
  );
}

/** An SVG document of the visible series in the current view, drawn by Observable Plot. */
export async function chartSvg(series: ExportSeries[], view: ExportView, theme: ChartTheme): Promise<Blob> {
  const Plot = await import('@observablehq/plot');
  const X: number[] = [];
  const Y: number[] = [];
  const Z: string[] = [];
  for (const s of series) {
    for (let i = 0; i < s.x.length; i++) {
      const x = s.x[i]!;
      const y = s.y[i]!;
      if (x < view.x[0] || x > view.x[1] || (view.logY && y <= 0)) continue;
      X.push(x);
      Y.push(y);
      Z.push(s.name);
    }
  }
  const index = Uint32Array.from({ length: X.length }, (_, i) => i);
  const svg = Plot.plot({
    width: view.width,
    height: view.height,
    marginLeft: 60,
    style: { background: theme.background, color: theme.text, fontSize: '11px' },
    x: { domain: view.x, label: view.xLabel },
    y: { domain: view.y, type: view.logY ? 'log' : 'linear', label: view.yLabel, grid: true },
    color: { domain: series.map((s) => s.name), range: series.map((s) => s.color) },
    marks: [
      Plot.line(index, { x: X, y: Y, z: Z, stroke: Z, strokeWidth: 1, clip: true }),
      ...series.map((s, i) => Plot.text([s.name], { frameAnchor: 'top-right', dx: -6, dy: 6 + i * 14, fill: s.color, textAnchor: 'end' })),
      Plot.text([view.title], { frameAnchor: 'top-left', dx: 6, dy: 6, fontWeight: 'bold', fill: theme.text }),
    ],
  });
  const root = svg instanceof SVGSVGElement ? svg : svg.querySelector('svg')!;
  root.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(root)}`;
  return new Blob([text], { type: 'image/svg+xml' });
}
