import { afterAll, beforeAll, expect, it } from 'vitest';
import { SYNTH, syntheticTemplate } from '../../bench/synthetic.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// Saved searches and column layouts are kept by dataset uuid so a dataset restored from the trash
// finds them again; when its trash entry expires they go with it, so a dataset later imported
// under the same uuid starts clean. Over real HTTP, with the service's clock moved forward.

let t: TestService;
let now = new Date('2026-05-01T10:00:00Z');
beforeAll(async () => {
  t = await startSyntheticService(5, { clock: () => now, config: { tokenTtlSeconds: 10 * 365 * 86400 } });
});
afterAll(() => t.close());

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${t.host.url}/local${path}`, {
    method,
    headers: { Authorization: `Bearer ${t.admin.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const searches = `/datasets/${SYNTH.dataset}/saved-searches`;
const columns = `/datasets/${SYNTH.dataset}/columns`;
const trashIds = async () => ((await call('GET', '/trash')).body.datasets as { id: string }[]).map((e) => e.id);

it('saved searches and column layouts survive a restore and go when the trash entry expires', async () => {
  expect((await call('POST', searches, { name: 'Basalt', view: { q: 'basalt' } })).status).toBe(200);
  const layout = { columns: [{ key: '_id' }, { key: SYNTH.field('Integer'), width: 120 }] };
  expect((await call('PUT', columns, layout)).status).toBe(200);

  expect((await t.admin.send('DELETE', `/dataset/${SYNTH.dataset}`)).status).toBe(200);
  // While the dataset is in the trash its views answer 404 like any unknown dataset.
  expect((await call('GET', searches)).status).toBe(404);
  const [first] = await trashIds();
  expect((await call('POST', `/trash/${first}/restore`)).status).toBe(200);
  expect(((await call('GET', searches)).body.searches as { name: string }[]).map((s) => s.name)).toEqual(['Basalt']);
  expect((await call('GET', columns)).body).toEqual({ layout });

  expect((await t.admin.send('DELETE', `/dataset/${SYNTH.dataset}`)).status).toBe(200);
  now = new Date('2026-06-01T10:00:01Z');
  expect(await trashIds()).toEqual([]);
  // The same uuid imported again starts with no saved search and the default columns.
  await t.importJson(syntheticTemplate());
  expect((await call('GET', searches)).body).toEqual({ searches: [] });
  expect((await call('GET', columns)).body).toEqual({ layout: null });
});
