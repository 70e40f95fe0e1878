import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { DatasetSummaries, LocalSession, SessionUser, TablePage } from '../../shared/schemas/local.js';
import { JobList } from '../../shared/schemas/job.js';
import { SYNTH } from '../../bench/synthetic.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// The /local answers over real HTTP match the zod schemas in shared/ that the renderer reads
// them with — strictly: a key the service adds or drops without the schema fails here.
let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(12);
});
afterAll(() => t.close());

async function get(path: string, init: RequestInit = {}) {
  const res = await fetch(`${t.host.url}/local${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${t.admin.token}`, ...init.headers },
  });
  expect(res.status, path).toBeLessThan(300);
  return res.json() as Promise<unknown>;
}

function strictly<S extends z.ZodObject>(schema: S, body: unknown): z.infer<S> {
  return schema.strict().parse(body) as z.infer<S>;
}

describe('/local answers have the shared schemas’ shape', () => {
  it('POST /local/session and GET /local/whoami', async () => {
    const s = LocalSession.parse(await get('/session', { method: 'POST' }));
    strictly(SessionUser, s.user);
    expect(strictly(SessionUser, await get('/whoami'))).toEqual(s.user);
  });

  it('GET /local/datasets', async () => {
    const { datasets } = strictly(DatasetSummaries, await get('/datasets'));
    for (const d of datasets) expect(() => strictly(DatasetSummaries.shape.datasets.element, d)).not.toThrow();
    expect(datasets.find((d) => d.uuid === SYNTH.dataset)?.records).toBe(12);
  });

  it('GET /local/datasets/{uuid}/records', async () => {
    const page = strictly(TablePage, await get(`/datasets/${SYNTH.dataset}/records?limit=5`));
    expect(page).toMatchObject({ total: 12, offset: 0 });
    expect(page.records).toHaveLength(5);
  });

  it('GET /local/jobs', async () => {
    await get('/sample?records=3', { method: 'POST' });
    const { jobs } = strictly(JobList, await get('/jobs'));
    expect(jobs.length).toBeGreaterThan(0);
  });
});
