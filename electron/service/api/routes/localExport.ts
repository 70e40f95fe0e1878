import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import contentDisposition from 'content-disposition';
import { Hono } from 'hono';
import { ExportRequest, ExportResult } from '../../../../shared/schemas/view.js';
import type { AppEnv } from '../auth.js';
import { parsedJson } from '../body.js';
import { apiBase } from './context.js';
import type { Domain } from '../../domain/domain.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { exportsDir, planExport, runExport } from '../../domain/export/exportView.js';
import type { BlobStore } from '../../domain/files/blobStore.js';
import { startJob } from '../../domain/jobRunner.js';
import { canViewDatatype } from '../../domain/permissions.js';
import { datasetHidden } from '../../domain/rights.js';

const ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TYPES = { csv: 'text/csv; charset=utf-8', json: 'application/json', zip: 'application/zip' } as const;

/** Export of the record list's view as a tracked job ("export"), and the download of its file (README "Local routes"). */
export function localExportRoutes(d: Domain, blobs: BlobStore) {
  const app = new Hono<AppEnv>();

  app.post('/datasets/:uuid/export', async (c) => {
    const req = await parsedJson(c, ExportRequest);
    const user = c.get('user');
    const dt = d.datatype(c.req.param('uuid'));
    if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
    if (!canViewDatatype(user, dt, d.now())) throw datasetHidden(dt);
    const plan = planExport(d, user, dt, req);
    const base = apiBase(c);
    const job = startJob(
      d,
      user,
      { type: 'export', target: dt.name, total: plan.rows.length, data: { dataset_uuid: dt.uuid, format: req.format, file: plan.file } },
      (r) => runExport(d, blobs, user, plan, r, base),
    );
    return c.json(job, 202);
  });

  // The file of one of the caller's finished exports, named after its dataset.
  app.get('/exports/:id', async (c) => {
    const id = c.req.param('id');
    if (!ID_RE.test(id)) throw badRequest(`"${id}" is not an export id`);
    const user = c.get('user');
    const download = `/local/exports/${id}`;
    const job = d.jobs
      .recent(user, 500)
      .find((j) => j.job_type === 'export' && ExportResult.safeParse(j.additional_data).data?.download === download);
    if (!job) throw notFound('Export');
    const file = ExportResult.parse(job.additional_data).file;
    const full = path.join(exportsDir(d), file);
    const st = await stat(full).catch(() => null);
    if (!st) throw notFound('Export file (exports are kept for a day)');
    const ext = path.extname(file).slice(1) as keyof typeof TYPES;
    const stamp = job.started.date.slice(0, 16).replace(/[-: ]/g, '');
    return c.body(Readable.toWeb(createReadStream(full)) as unknown as ReadableStream, 200, {
      'Content-Type': TYPES[ext],
      'Content-Length': String(st.size),
      'Content-Disposition': contentDisposition(`${job.target_entity}-${stamp}.${ext}`),
      'X-Content-Type-Options': 'nosniff',
    });
  });
  return app;
}
