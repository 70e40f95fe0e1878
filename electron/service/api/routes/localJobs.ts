import { rm } from 'node:fs/promises';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { LiveStatus } from '../../../../shared/schemas/sync.js';
import type { TrackedJob } from '../../../../shared/schemas/job.js';
import type { AppEnv } from '../auth.js';
import { readMultipartUpload } from '../upload.js';
import { csvImportJob, csvPreview } from './csvImport.js';
import type { Domain } from '../../domain/domain.js';
import { badRequest } from '../../domain/errors.js';
import { EventQueue } from '../../domain/events.js';
import type { BlobStore } from '../../domain/files/blobStore.js';
import { originalImages, rebuildDatasetThumbnails } from '../../domain/files/thumbnails.js';
import { importFile } from '../../domain/import/importFile.js';
import { startJob, startOrCleanUp } from '../../domain/jobRunner.js';
import { isAdmin } from '../../domain/permissions.js';
import { recordsEventFor, type RecordsEvent } from '../../domain/recordEvents.js';
import { createSampleDataset, MAX_SAMPLE_RECORDS } from '../../domain/sample/createSample.js';
import type { JobList } from '../../../../shared/schemas/job.js';
import { adminsOnly } from '../../domain/rights.js';

const IMPORT_LIMIT = 4 * 1024 * 1024 * 1024;

/**
 * Our own routes for the UI (under /local, documented in the README): the event stream, the
 * jobs panel, and the long operations the service runs as tracked jobs.
 */
export function localJobRoutes(d: Domain, blobs: BlobStore) {
  const app = new Hono<AppEnv>();

  // Server-Sent Events: `job` (a TrackedJob, in the order the changes happened) and `records`
  // ({datasetUuid, recordUuids}) — the UI needs no polling; `resync` ({dropped}) when the client
  // read too slowly and missed events: it refetches what it shows.
  app.get('/events', (c) => {
    const user = c.get('user');
    return streamSSE(c, async (stream) => {
      // Bounded: a client that stops reading gets one `resync` in place of what it missed (EventQueue).
      const queue = new EventQueue(d.ctx.config.eventQueueEvents, d.ctx.config.eventQueueChars);
      let wake: (() => void) | null = null;
      const push = (event: string, data: unknown) => {
        queue.push(event, data);
        wake?.();
      };
      const onJob = (e: { userId: number; job: TrackedJob }) => {
        if (e.userId === user.id) push('job', e.job);
      };
      // Only what this user may read, with their rights as of now (the stream outlives the request).
      const onRecords = (e: RecordsEvent) => {
        const now = d.users.get(user.id);
        const visible = now && recordsEventFor(d, now, e);
        if (visible) push('records', visible);
      };
      // `sync`: live sync status of a remote, for the header (super-users, as GET /local/sync).
      // The stream outlives the request: ask who the user is now, not who they were at opening.
      const onSync = (e: LiveStatus) => {
        if (d.users.get(user.id)?.isSuper) push('sync', e);
      };
      d.ctx.events.on('job', onJob);
      d.ctx.events.on('records', onRecords);
      d.ctx.events.on('sync', onSync);
      let open = true;
      stream.onAbort(() => {
        open = false;
        wake?.();
      });
      try {
        await stream.writeSSE({ event: 'ready', data: JSON.stringify({ user: user.email }) });
        while (open) {
          for (let m = queue.shift(); m && open; m = queue.shift()) await stream.writeSSE(m);
          if (!open) break;
          await new Promise<void>((resolve) => {
            wake = resolve;
            // A comment line now and then keeps proxies and idle timers from closing the stream.
            setTimeout(resolve, 15_000).unref();
          });
          wake = null;
          if (queue.empty && open) await stream.write(': keep-alive\n\n');
        }
      } finally {
        d.ctx.events.off('job', onJob);
        d.ctx.events.off('records', onRecords);
        d.ctx.events.off('sync', onSync);
      }
    });
  });

  app.get('/jobs', (c) => {
    const limit = Math.min(Number(c.req.query('limit') ?? 50) || 50, 500);
    return c.json({ jobs: d.jobs.recent(c.get('user'), limit) } satisfies JobList);
  });

  // An ODR export uploaded from the UI, imported as a tracked job ("import"); with format=csv,
  // CSV rows into a dataset ("import_csv", routes/csvImport.ts).
  app.post('/import', async (c) => {
    const upload = await readMultipartUpload(c, blobs, IMPORT_LIMIT);
    const format = upload.fields.format ?? 'odr';
    if (format === 'csv') return csvImportJob(c, d, upload);
    if (format !== 'odr') {
      await upload.discard();
      throw badRequest(`format must be "csv" or "odr" (an ODR export, the default), not "${format}"`);
    }
    const part = upload.files[0];
    if (!part) {
      await upload.discard();
      throw badRequest('Attach the ODR export (template or record list JSON) as a file part');
    }
    const user = c.get('user');
    const replace = upload.fields.replace === '1' || upload.fields.replace === 'true';
    // Refused (the service is closing) before any work: the staged upload goes with the answer.
    const job = await startOrCleanUp(upload.discard, () =>
      startJob(d, user, { type: 'import', target: part.filename || 'export.json', total: 1000 }, async (r) => {
        try {
          const summary = await importFile(d, user, part.staged.tmp, {
            replace,
            onProgress: (fraction) => {
              if (!r.progress(Math.floor(fraction * 1000))) throw new Error('cancelled');
            },
          });
          return summary;
        } finally {
          await rm(part.staged.tmp, { force: true });
          for (const other of upload.files.slice(1)) await rm(other.staged.tmp, { force: true });
        }
      }),
    );
    return c.json(job, 202);
  });

  // What a CSV import would do, without doing it: the column mapping, the first rows, every failing row.
  app.post('/import/preview', async (c) => {
    const upload = await readMultipartUpload(c, blobs, IMPORT_LIMIT);
    const format = upload.fields.format ?? 'csv';
    if (format !== 'csv') {
      await upload.discard();
      throw badRequest(`format must be "csv" here, not "${format}"`);
    }
    return csvPreview(c, d, upload);
  });

  // Bulk thumbnailing of a dataset's images ("rebuild_thumbnails", as the real server names it).
  app.post('/thumbnails/:dataset', (c) => {
    const user = c.get('user');
    const dt = d.datatype(c.req.param('dataset'));
    if (!isAdmin(user, dt)) throw adminsOnly('rebuild its thumbnails');
    const images = originalImages(d, d.schema().subtreeIds(dt));
    const job = startJob(d, user, { type: 'rebuild_thumbnails', target: dt.uuid, total: images.length }, (r) =>
      rebuildDatasetThumbnails(d, blobs, user, dt, images, r),
    );
    return c.json(job, 202);
  });
  // The first-run screen's "generate a sample dataset" (every field type, `records` records).
  app.post('/sample', (c) => {
    const raw = c.req.query('records') ?? '500';
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_SAMPLE_RECORDS)
      throw badRequest(`records must be an integer from 1 to ${MAX_SAMPLE_RECORDS}`);
    const user = c.get('user');
    const job = startJob(d, user, { type: 'sample', target: 'Synthetic Samples', total: 1000 }, (r) =>
      createSampleDataset(d, user, Number(raw), r),
    );
    return c.json(job, 202);
  });
  return app;
}
