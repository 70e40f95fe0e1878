import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { SYNTH } from '../synthetic.js';
import { chromiumLaunchOptions } from '../../e2e/support/chromium.js';
import { fmt, forkTs, medianOf, type BenchContext } from '../util.js';
import { buildScale } from './core.js';

// Browser globals used inside page.evaluate callbacks (they run in Chromium, not here); declared
// in this module only so the Node project does not take in the DOM library.
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const window: any;
declare const document: any;
declare const MutationObserver: any;
declare const PerformanceObserver: any;
declare const KeyboardEvent: any;
declare const requestAnimationFrame: (f: () => void) => number;
type HTMLElement = any;
type HTMLInputElement = any;

/**
 * The UI's figures, in a real Chromium against a service holding the synthetic dataset: at the
 * largest scale first table paint after navigation and long tasks while scrolling top to bottom
 * (issues 4 and 17); at 100k (issue 15's scale, when the run has it) arrow key → pane, Enter →
 * "Saved", a 10,000-record batch edit and its undo. Each database gets its own service process,
 * whose peak RSS is reported per scale.
 */
export async function uiBench(ctx: BenchContext): Promise<void> {
  if (!existsSync(path.join(ctx.work, '..', 'dist', 'renderer', 'index.html')))
    throw new Error('build the renderer first: npm run build:renderer');
  // Issue 15's figures are set "at 100k records": measured there whenever 100k is a scale of the
  // run; the 1M guard figures (first paint, scrolling, RSS) stay at the largest scale.
  const curation = ctx.scales.includes(CURATION_SCALE) ? CURATION_SCALE : ctx.records;
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    await onScale(ctx, browser, ctx.records, async (page) => {
      await guardFigures(ctx, page);
      if (curation === ctx.records) await curationFigures(ctx, page, curation);
    });
    if (curation !== ctx.records) await onScale(ctx, browser, curation, (page) => curationFigures(ctx, page, curation));
  } finally {
    await browser.close();
  }
}

const CURATION_SCALE = 100_000;

/** A service on the synthetic database of `n` records (built when missing) and a page on its UI. */
async function onScale(
  ctx: BenchContext,
  browser: import('@playwright/test').Browser,
  n: number,
  run: (page: import('@playwright/test').Page) => Promise<void>,
): Promise<void> {
  const name = n === ctx.records ? 'data-core' : `data-core-${n}`;
  const dataDir = path.join(ctx.work, name);
  if (!existsSync(path.join(dataDir, 'odr.sqlite'))) {
    // `--only ui`: the core section has not built the database in this work dir yet.
    console.log(`  building ${n} synthetic records (the core section's database)…`);
    const built = await buildScale(ctx, n, name);
    built.service.domain.search.catchUp();
    await built.service.close();
  }
  const server = await forkTs('server.ts', [dataDir]);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    // tsx compiles the callbacks below with esbuild's keepNames, which calls a __name helper.
    await page.addInitScript({ content: 'window.__name = (f) => f;' });
    await page.goto(`http://127.0.0.1:${server.port}/`);
    await page.getByRole('navigation', { name: 'Datasets' }).getByRole('link').first().waitFor();
    await run(page);
  } finally {
    await page.close();
    const stats = await server.stop();
    // The service process's peak while the UI browsed, scrolled and saved over all the records.
    ctx.add({
      section: 'ui',
      scale: n,
      name: 'service peak RSS (UI session)',
      value: Math.round(stats.maxRssMb ?? NaN),
      unit: 'MB',
      target: '≤ 400 MB',
      pass: (stats.maxRssMb ?? Infinity) <= 400,
    });
  }
}

/** Issue 4 and 17's guards at the largest scale: first table paint, long tasks while scrolling. */
async function guardFigures(ctx: BenchContext, page: import('@playwright/test').Page): Promise<void> {
  const { median: paint } = await medianOf(5, async () => {
    await page.evaluate(() => {
      window.location.hash = '#/';
    });
    await page.getByRole('heading', { name: /Choose a dataset|Welcome/ }).waitFor();
    return page.evaluate(
      (uuid) =>
        new Promise<number>((resolve) => {
          const t0 = performance.now();
          const obs = new MutationObserver(() => {
            if (document.querySelector('[role=grid] [data-record]')) {
              obs.disconnect();
              requestAnimationFrame(() => resolve(performance.now() - t0));
            }
          });
          obs.observe(document.body, { subtree: true, childList: true });
          window.location.hash = `#/d/${uuid}`;
        }),
      SYNTH.dataset,
    );
  });
  ctx.add({
    section: 'ui',
    scale: ctx.records,
    name: 'first table paint after navigation',
    value: +fmt(paint, 0),
    unit: 'ms',
    target: '≤ 300 ms',
    pass: paint <= 300,
    note: 'median of 5',
  });

  // Two ways down the list: dragging the thumb top to bottom (rows fly by as placeholders),
  // and reading speed (10 rows a frame) through 3,000 rows, where every page is fetched and drawn.
  const scrollRun = (mode: 'drag' | 'read') =>
    page.evaluate(
      (m) =>
        new Promise<{ longest: number; count: number; steps: number; ms: number }>((resolve) => {
          const tasks: number[] = [];
          const po = new PerformanceObserver((l: any) => {
            for (const e of l.getEntries()) tasks.push(e.duration);
          });
          po.observe({ type: 'longtask', buffered: false });
          const el = document.querySelector('[data-testid=table-scroller]') as HTMLElement;
          el.scrollTop = 0;
          const steps = 300;
          const stride = m === 'drag' ? (el.scrollHeight - el.clientHeight) / steps : 360;
          let i = 0;
          const t0 = performance.now();
          const step = () => {
            el.scrollTop = Math.round(++i * stride);
            if (i < steps) requestAnimationFrame(step);
            else
              setTimeout(() => {
                po.disconnect();
                resolve({ longest: Math.max(0, ...tasks), count: tasks.length, steps, ms: performance.now() - t0 });
              }, 800);
          };
          setTimeout(() => requestAnimationFrame(step), 300);
        }),
      mode,
    );
  const drag = await scrollRun('drag');
  ctx.add({
    section: 'ui',
    scale: ctx.records,
    name: 'scroll top→bottom (thumb drag): longest task',
    value: +fmt(drag.longest, 0),
    unit: 'ms',
    target: 'no task > 50 ms',
    pass: drag.count === 0,
    note: `${drag.count} long task(s) in ${drag.steps} frames over ${fmt(drag.ms / 1000, 1)} s`,
  });
  const read = await scrollRun('read');
  ctx.add({
    section: 'ui',
    scale: ctx.records,
    name: 'scroll 3,000 rows at 10 rows/frame: longest task',
    value: +fmt(read.longest, 0),
    unit: 'ms',
    target: 'no task > 50 ms',
    pass: read.count === 0,
    note: `${read.count} long task(s); every page fetched and drawn`,
  });
}

/** Issue 15's figures at `scale` records: arrow key → pane, Enter → "Saved", batch edit and its undo. */
async function curationFigures(ctx: BenchContext, page: import('@playwright/test').Page, scale: number): Promise<void> {
  // Selection drives the pane: from the keypress in the list to the next record drawn beside it.
  await page.evaluate((ds) => {
    window.location.hash = `#/d/${ds}`;
  }, SYNTH.dataset);
  await page.locator('[role=grid] [data-record]').first().click();
  await page.locator('aside.editor[aria-label^="Record "]').waitFor();
  const arrow = await medianOf(21, () =>
    page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const grid = document.querySelector('[role=grid]') as HTMLElement;
          grid.focus();
          const before = document.querySelector('aside.editor')?.getAttribute('aria-label');
          const shown = () => {
            const pane = document.querySelector('aside.editor');
            const label = pane?.getAttribute('aria-label') ?? '';
            return label.startsWith('Record ') && label !== before && pane.querySelector('.fields');
          };
          const t0 = performance.now();
          const obs = new MutationObserver(() => {
            if (shown()) {
              obs.disconnect();
              requestAnimationFrame(() => resolve(performance.now() - t0));
            }
          });
          obs.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
          grid.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
        }),
    ),
  );
  ctx.add({
    section: 'ui',
    scale,
    name: 'arrow key → next record shown in the pane',
    value: +fmt(arrow.median, 0),
    unit: 'ms',
    target: '≤ 50 ms',
    pass: arrow.median <= 50,
    note: `median of 21, worst ${fmt(arrow.worst, 0)} ms`,
  });

  await page.evaluate(
    ([ds, rec]) => {
      window.location.hash = `#/d/${ds}/r/${rec}`;
    },
    [SYNTH.dataset, SYNTH.record(1)],
  );
  const editor = page.locator('aside.editor');
  await editor.waitFor();
  const box = editor.locator('.field', { has: page.locator('.field-name', { hasText: /^Medium Text field$/ }) }).getByRole('textbox');
  const save = await medianOf(7, async (i) => {
    await box.fill(`bench edit ${Date.now()} ${i}`);
    return box.evaluate(
      (input: HTMLInputElement) =>
        new Promise<number>((resolve) => {
          const field = input.closest('.field')!;
          const t0 = performance.now();
          let sawSaving = false;
          const obs = new MutationObserver(() => {
            if (field.querySelector('[data-state=saving]')) sawSaving = true;
            else if (sawSaving && field.querySelector('[data-state=saved]')) {
              obs.disconnect();
              requestAnimationFrame(() => resolve(performance.now() - t0));
            }
          });
          obs.observe(field, { subtree: true, childList: true, attributes: true });
          input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
        }),
    );
  });
  ctx.add({
    section: 'ui',
    scale,
    name: 'edit: Enter → "Saved" on screen (loopback)',
    value: +fmt(save.median, 0),
    unit: 'ms',
    target: '≤ 100 ms',
    pass: save.median <= 100,
    note: `median of 7, worst ${fmt(save.worst, 0)} ms`,
  });

  await batchEditBench(ctx, page, BATCH_RECORDS, scale);
}

const BATCH_RECORDS = 10_000;
const BATCH_LIMIT_S = 5;

/**
 * Issue 15's batch edit, end to end as a person does it: click the first row, scroll down and
 * Shift-click row 10,000, Batch edit…, a value for a text field, Apply; timed from the Apply click
 * until the dialog has closed (every chunk answered, the list refreshed), then undone with Ctrl+Z
 * (timed until the first row shows its old value again).
 */
async function batchEditBench(ctx: BenchContext, page: import('@playwright/test').Page, n: number, scale: number) {
  if (scale < n) return;
  const datasetHash = `#/d/${SYNTH.dataset}`;
  await page.evaluate((h) => {
    window.location.hash = h;
  }, datasetHash);
  const row = (i: number) => page.locator(`[role=grid] [role=row][aria-rowindex="${i + 2}"][data-record]`);
  await row(0).click();
  const rowHeight = await row(0).evaluate((el: HTMLElement) => el.getBoundingClientRect().height);
  await page.locator('[data-testid=table-scroller]').evaluate(
    (el: HTMLElement, top: number) => {
      el.scrollTop = top;
    },
    (n - 5) * rowHeight,
  );
  await row(n - 1).click({ modifiers: ['Shift'] });
  const count = n.toLocaleString('en-US');
  await page.getByRole('button', { name: `Delete selected (${count})` }).waitFor();
  await page.getByRole('button', { name: 'Batch edit…' }).click();
  const dialog = page.getByRole('dialog', { name: `Batch edit ${count} records` });
  await dialog.getByLabel('Field').selectOption({ label: 'Medium Text field' });
  const value = `batch ${Date.now()}`;
  await dialog.getByLabel('New value (empty clears)').fill(value);
  const t0 = performance.now();
  await dialog.getByRole('button', { name: `Apply to ${count}` }).click();
  await dialog.waitFor({ state: 'detached', timeout: 120_000 });
  const secs = (performance.now() - t0) / 1000;
  ctx.add({
    section: 'ui',
    scale,
    name: `batch edit of ${count} records: Apply → done`,
    value: +fmt(secs, 2),
    unit: 's',
    target: `≤ ${BATCH_LIMIT_S} s`,
    pass: secs <= BATCH_LIMIT_S,
    note: 'one text field, sent in chunks of 5,000, with progress; undoable as one step',
  });

  // Undo as one step: Ctrl+Z in the list, until the app says it is done (every chunk restored).
  const t1 = performance.now();
  await page.locator('[role=grid]').focus();
  await page.keyboard.press('Control+z');
  await page
    .getByText(/^Undid: /)
    .first()
    .waitFor({ timeout: 120_000 });
  const undoSecs = (performance.now() - t1) / 1000;
  ctx.add({
    section: 'ui',
    scale,
    name: 'undo of that batch edit (Ctrl+Z, one step)',
    value: +fmt(undoSecs, 2),
    unit: 's',
    note: 'Ctrl+Z → every record restored (the \u201cUndid\u201d notice)',
  });
}
