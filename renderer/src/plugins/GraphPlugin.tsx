import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { graphFileFields, graphFileOf } from '../../../shared/plugins/graphFiles';
import { parseXY, type XYPattern } from '../../../shared/plugins/xyPattern';
import type { FileEntry, OdrRecord } from '../../../shared/schemas/record';
import type { Template } from '../../../shared/schemas/template';
import { recordName } from '../../../shared/recordName';
import { toast } from '../ui/toasts';
import { colorOf, useChartTheme, type ChartTheme } from './chartTheme';
import { FileProblem } from './FileProblem';
import { useFileTexts } from './fileText';
import { chartPng, chartSvg, download, fileSafe } from './graphExport';

const HEIGHT = 320;
const ZOOM_STEP = 1.25;

interface Source {
  record: OdrRecord;
  name: string;
  file: FileEntry;
}

interface Series {
  name: string;
  color: string;
  pattern: XYPattern;
}

/** The data file of each child record, in record order. */
function sourcesOf(tpl: Template, records: OdrRecord[]): Source[] {
  const fields = new Set(graphFileFields(tpl.fields).map((f) => f.field_uuid));
  const out: Source[] = [];
  for (const r of records) {
    const files = r.fields.filter((f) => fields.has(f.field_uuid)).flatMap((f) => f.files ?? []);
    const file = graphFileOf(files);
    if (file) out.push({ record: r, name: recordName(r, tpl), file });
  }
  return out;
}

const sameX = (a: Float64Array, b: Float64Array) => a.length === b.length && a.every((v, i) => v === b[i]);

/** uPlot's aligned table: one shared x when every pattern has the same grid, else a join. */
function aligned(series: Series[], logY: boolean): uPlot.AlignedData {
  const first = series[0]!.pattern.x;
  let data: uPlot.AlignedData;
  if (series.every((s) => sameX(s.pattern.x, first))) data = [first, ...series.map((s) => s.pattern.y)];
  else data = uPlot.join(series.map((s) => [s.pattern.x, s.pattern.y] as uPlot.AlignedData));
  if (!logY) return data;
  // A log axis has no place for zero or negative counts: they become gaps.
  return [
    data[0],
    ...data.slice(1).map((ys) => Array.from(ys as ArrayLike<number | null>, (y) => (y !== null && y > 0 ? y : null))),
  ] as uPlot.AlignedData;
}

/** aria-pressed on each legend row: whether its series is shown. */
function legendState(u: uPlot) {
  const rows = u.root.querySelectorAll<HTMLElement>('.u-legend tr.u-series');
  rows.forEach((row, i) => {
    if (i > 0) row.setAttribute('aria-pressed', String(u.series[i]?.show !== false));
  });
}

function fullX(series: Series[]): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (const s of series) {
    min = Math.min(min, s.pattern.x[0]!);
    max = Math.max(max, s.pattern.x[s.pattern.x.length - 1]!);
  }
  return [min, max];
}

function Chart({
  title,
  series,
  theme,
  onDrawn,
}: {
  title: string;
  series: Series[];
  theme: ChartTheme;
  onDrawn: (ms: number, points: number) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const [logY, setLogY] = useState(false);
  const xLabel = series[0]!.pattern.names?.[0] || 'x';
  const yLabel = series[0]!.pattern.names?.[1] || 'y';

  useEffect(() => {
    const el = host.current!;
    const t0 = performance.now();
    const data = aligned(series, logY);
    const points = series.reduce((n, s) => n + s.pattern.x.length, 0);
    let first = true;
    const axis = { stroke: theme.muted, grid: { stroke: theme.grid, width: 1 }, ticks: { stroke: theme.grid, width: 1 } };
    const u = new uPlot(
      {
        width: Math.max(320, el.clientWidth),
        height: HEIGHT,
        pxAlign: false,
        scales: { x: { time: false }, y: logY ? { distr: 3 } : {} },
        axes: [
          { ...axis, label: xLabel, labelSize: 20 },
          { ...axis, label: yLabel, labelSize: 20, size: 60 },
        ],
        series: [
          { label: xLabel, value: (_u, v) => (v === null ? '–' : v.toFixed(3)) },
          ...series.map((s) => ({ label: s.name, stroke: s.color, width: 1, spanGaps: true, points: { show: false } })),
        ],
        cursor: { drag: { x: true, y: false, setScale: true }, points: { size: 6 } },
        legend: { live: true, markers: { fill: (_self, i) => (i > 0 ? series[i - 1]!.color : 'transparent') } },
        hooks: {
          // The visible x range, for people reading the DOM (tests, assistive tools).
          setScale: [
            (self, key) => {
              if (key !== 'x') return;
              el.dataset.xmin = String(self.scales.x!.min);
              el.dataset.xmax = String(self.scales.x!.max);
            },
          ],
          setSeries: [(self) => legendState(self)],
          draw: [
            () => {
              if (!first) return;
              first = false;
              onDrawn(performance.now() - t0, points);
            },
          ],
        },
      },
      data,
      el,
    );
    plot.current = u;
    // uPlot's legend toggles series on click; make its rows keyboard buttons too.
    const rows = Array.from(u.root.querySelectorAll<HTMLElement>('.u-legend tr.u-series')).slice(1);
    rows.forEach((row) => {
      row.tabIndex = 0;
      row.setAttribute('role', 'button');
      row.addEventListener('keydown', (e) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        e.stopPropagation();
        (row.querySelector<HTMLElement>('.u-label') ?? (row.firstElementChild as HTMLElement | null))?.click();
      });
    });
    legendState(u);
    const resize = new ResizeObserver(() => u.setSize({ width: Math.max(320, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    // Wheel zooms x around the pointer; shift+wheel pans.
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const { min, max } = u.scales.x as { min: number; max: number };
      const span = max - min;
      if (e.shiftKey) {
        const d = span * 0.1 * Math.sign(e.deltaY || e.deltaX);
        u.setScale('x', { min: min + d, max: max + d });
        return;
      }
      const at = u.posToVal(e.offsetX, 'x');
      const k = e.deltaY < 0 ? 1 / ZOOM_STEP : ZOOM_STEP;
      u.setScale('x', { min: at - (at - min) * k, max: at + (max - at) * k });
    };
    u.over.addEventListener('wheel', onWheel, { passive: false });
    return () => {
      resize.disconnect();
      u.over.removeEventListener('wheel', onWheel);
      u.destroy();
      plot.current = null;
    };
    // onDrawn is a report, not an input of the chart.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [series, logY, theme, xLabel, yLabel]);

  const pan = (dir: -1 | 1) => {
    const u = plot.current;
    if (!u) return;
    const { min, max } = u.scales.x as { min: number; max: number };
    const d = (max - min) * 0.25 * dir;
    u.setScale('x', { min: min + d, max: max + d });
  };
  const zoom = (k: number) => {
    const u = plot.current;
    if (!u) return;
    const { min, max } = u.scales.x as { min: number; max: number };
    const mid = (min + max) / 2;
    u.setScale('x', { min: mid - (mid - min) * k, max: mid + (max - mid) * k });
  };
  const reset = () => {
    const [min, max] = fullX(series);
    plot.current?.setScale('x', { min, max });
  };
  const visible = () => series.map((s, i) => ({ ...s, show: plot.current?.series[i + 1]?.show !== false }));

  const exportPng = async () => {
    const u = plot.current;
    if (!u) return;
    try {
      download(await chartPng(u, visible(), theme), `${fileSafe(title)}.png`);
    } catch (e) {
      toast({ kind: 'error', text: `PNG export failed: ${e instanceof Error ? e.message : String(e)}` });
    }
  };
  const exportSvg = async () => {
    const u = plot.current;
    if (!u) return;
    try {
      const x = u.scales.x as { min: number; max: number };
      const y = u.scales.y as { min: number; max: number };
      const shown = visible()
        .filter((s) => s.show)
        .map((s) => ({ name: s.name, color: s.color, x: s.pattern.x, y: s.pattern.y }));
      const blob = await chartSvg(
        shown,
        { title, xLabel, yLabel, x: [x.min, x.max], y: [y.min, y.max], logY, width: u.width, height: HEIGHT },
        theme,
      );
      download(blob, `${fileSafe(title)}.svg`);
    } catch (e) {
      toast({ kind: 'error', text: `SVG export failed: ${e instanceof Error ? e.message : String(e)}` });
    }
  };

  return (
    <div
      className="graph"
      tabIndex={0}
      aria-label={`${title} chart: drag to zoom, wheel to zoom, shift+wheel or arrow keys to pan, click a legend entry to hide or show it`}
      onKeyDown={(e) => {
        if (e.key === 'ArrowLeft') pan(-1);
        else if (e.key === 'ArrowRight') pan(1);
        else if (e.key === '+' || e.key === '=') zoom(1 / ZOOM_STEP);
        else if (e.key === '-') zoom(ZOOM_STEP);
        else if (e.key === '0') reset();
        else return;
        e.preventDefault();
      }}
    >
      <div className="graph-tools" role="toolbar" aria-label={`${title} chart tools`}>
        <button type="button" onClick={() => pan(-1)} aria-label="Pan left">
          ◀
        </button>
        <button type="button" onClick={() => pan(1)} aria-label="Pan right">
          ▶
        </button>
        <button type="button" onClick={() => zoom(1 / ZOOM_STEP)} aria-label="Zoom in">
          +
        </button>
        <button type="button" onClick={() => zoom(ZOOM_STEP)} aria-label="Zoom out">
          −
        </button>
        <button type="button" onClick={reset}>
          Reset zoom
        </button>
        <label className="inline">
          <input type="checkbox" checked={logY} onChange={(e) => setLogY(e.target.checked)} /> Log y
        </label>
        <span className="spacer" />
        <button type="button" onClick={() => void exportPng()}>
          Export PNG
        </button>
        <button type="button" onClick={() => void exportSvg()}>
          Export SVG
        </button>
      </div>
      <div ref={host} className="graph-canvas" data-testid="graph-canvas" />
    </div>
  );
}

/**
 * Graph Plugin: one chart of the x/y files of a datatype's child records, overlaid, in the
 * parent record (as ODR's web UI shows CheMin's XRD and XRF patterns).
 */
export function GraphPlugin({ tpl, records }: { tpl: Template; records: OdrRecord[] }) {
  const sources = useMemo(() => sourcesOf(tpl, records), [tpl, records]);
  const texts = useFileTexts(sources.map((s) => s.file));
  const theme = useChartTheme();
  const [drawn, setDrawn] = useState<{ ms: number; points: number } | null>(null);
  const loading = texts.some((q) => q.isPending);
  // useQueries answers a new array every render; this key says when its contents changed.
  const dataKey = texts.map((q) => `${q.status}:${q.dataUpdatedAt}:${q.errorUpdatedAt}`).join(',');
  const { series, problems, parseMs } = useMemo(() => {
    const t0 = performance.now();
    const ok: Series[] = [];
    const bad: { source: Source; error: unknown }[] = [];
    sources.forEach((s, i) => {
      const q = texts[i]!;
      if (q.error) bad.push({ source: s, error: q.error });
      else if (q.data !== undefined) {
        try {
          ok.push({ name: s.name, color: colorOf(ok.length), pattern: parseXY(q.data) });
        } catch (e) {
          bad.push({ source: s, error: e });
        }
      }
    });
    return { series: ok, problems: bad, parseMs: performance.now() - t0 };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sources, dataKey]);

  if (sources.length === 0) return null;
  const retry = () => texts.forEach((q) => void q.refetch());
  const notHere = problems.filter((p) => (p.error as { notHere?: boolean }).notHere);
  const points = series.reduce((n, s) => n + s.pattern.x.length, 0);
  return (
    <figure
      className="plugin-graph"
      aria-label={`${tpl.name} graph`}
      data-testid="graph-plugin"
      data-series={series.length}
      data-draw-ms={drawn?.ms.toFixed(1)}
      data-parse-ms={parseMs.toFixed(1)}
      data-points={points}
    >
      {loading && (
        <p className="muted" aria-busy="true">
          Loading {sources.length} pattern{sources.length > 1 ? 's' : ''}…
        </p>
      )}
      {!loading && series.length > 0 && (
        <Chart title={tpl.name} series={series} theme={theme} onDrawn={(ms, pts) => setDrawn({ ms, points: pts })} />
      )}
      {notHere.length > 0 && (
        <FileProblem error={notHere[0]!.error} names={notHere.map((p) => p.source.file.original_name)} retry={retry} />
      )}
      {problems
        .filter((p) => !notHere.includes(p))
        .map((p) => (
          <p key={p.source.file.file_uuid} className="plugin-problem" role="status">
            {p.source.name} ({p.source.file.original_name}): {p.error instanceof Error ? p.error.message : String(p.error)}
          </p>
        ))}
      {drawn && (
        <figcaption className="muted small">
          {series.length} series · {points.toLocaleString()} points · read in {parseMs.toFixed(0)} ms · drawn in {drawn.ms.toFixed(0)} ms
        </figcaption>
      )}
    </figure>
  );
}
