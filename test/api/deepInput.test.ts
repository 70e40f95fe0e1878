import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH, syntheticTemplate } from '../../bench/synthetic.js';
import type { TrackedJob } from '../../shared/schemas/job.js';
import { importFile } from '../../electron/service/domain/import/importFile.js';
import { digestAll } from '../support/digest.js';
import { jobEnded } from '../support/jobs.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// Input nested far deeper than any template (issue 11 item 4): every recursive walk over it
// (saves, every JSON body, template and record imports, tag trees) is refused with a 400 (or a
// failed import naming the cause) before it starts, and nothing changes.

let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(3);
});
afterAll(() => t.close());

/** A save whose child records nest `n` deep: about 32 bytes a level, 1,000 levels ≈ 32 KB. */
function deepSave(n: number): unknown {
  let node: Record<string, unknown> = { record_uuid: '', database_uuid: SYNTH.child };
  for (let i = 0; i < n; i++) node = { record_uuid: '', database_uuid: SYNTH.child, records: [node] };
  return { record_uuid: SYNTH.record(1), records: [node] };
}
const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

async function send(method: string, route: string, body: string) {
  const res = await fetch(`${t.api}${route}`, {
    method,
    headers: { Authorization: `Bearer ${t.admin.token}`, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, text: await res.text() };
}

describe('deeply nested request bodies', () => {
  it('a save with child records 1,000 deep answers 400 before walking it', async () => {
    const body = JSON.stringify(deepSave(1000));
    expect(body.length).toBeLessThan(100_000);
    const before = digestAll(t.service);
    for (const [method, route] of [
      ['POST', '/dataset/record'],
      ['PUT', '/dataset'],
    ] as const) {
      const r = await send(method, route, body);
      expect(r.status, r.text).toBe(400);
      expect(r.text).toContain('nested more than');
    }
    expect(digestAll(t.service)).toBe(before);
  });

  it('every JSON route refuses 10,000 levels of arrays with 400', async () => {
    const before = digestAll(t.service);
    const routes: [string, string][] = [
      ['POST', '/dataset/record'],
      ['PUT', '/dataset'],
      ['POST', `/record/${SYNTH.record(1)}/${SYNTH.field('Long Text')}/value`],
      ['DELETE', '/record'],
      ['POST', '/token'],
      ['POST', '/job'],
      ['PUT', '/job'],
      ['POST', '/worker/job'],
    ];
    for (const [method, route] of routes) {
      for (const body of [nested(10_000), `{"value":${nested(5000)}}`, `{"record_uuid":"${SYNTH.record(1)}","fields":${nested(3000)}}`]) {
        const r = await send(method, route, body);
        expect(r.status, `${method} ${route}: ${r.text}`).toBeGreaterThanOrEqual(400);
        expect(r.status, `${method} ${route}: ${r.text}`).toBeLessThan(500);
      }
    }
    expect(digestAll(t.service)).toBe(before);
  });

  it('a search key nested 5,000 deep answers 400 on every search route', async () => {
    const deepKey = Buffer.from(`{"template_uuid":"${SYNTH.dataset}","x":${nested(5000)}}`).toString('base64url');
    const routes: [string, string, string?][] = [
      ['GET', `/search/${deepKey}`],
      ['GET', `/dataset/search/${deepKey}`],
      ['POST', '/search', JSON.stringify({ search_key: deepKey })],
      ['POST', '/legacysearch', JSON.stringify({ search_key: deepKey })],
    ];
    for (const [method, route, body] of routes) {
      const res = await fetch(`${t.api}${route}`, {
        method,
        body,
        headers: { Authorization: `Bearer ${t.admin.token}`, 'content-type': 'application/json' },
      });
      const text = await res.text();
      expect(res.status, `${method} ${route}: ${text}`).toBe(400);
    }
  });

  it('a save nested as deep as the template allows still works', async () => {
    const r = await send('POST', '/dataset/record', JSON.stringify(deepSave(0)));
    expect(r.status, r.text).toBe(200);
  });
});

describe('deeply nested imports', () => {
  const admin = () => t.service.domain.users.firstSuperUser()!;
  const write = (name: string, json: string) => {
    const file = path.join(t.dataDir, name);
    writeFileSync(file, json);
    return file;
  };
  const deepTemplate = () => {
    const tpl = syntheticTemplate() as Record<string, unknown>;
    let db: Record<string, unknown> = { internal_id: 1, name: 'leaf', template_uuid: 'deep0', fields: [], related_databases: [] };
    for (let i = 1; i < 400; i++)
      db = { internal_id: i + 1, name: `level ${i}`, template_uuid: `deep${i}`, fields: [], related_databases: [db] };
    tpl.template_uuid = 'deeptemplate';
    tpl.related_databases = [db];
    return tpl;
  };
  const deepTags = () => {
    const tpl = syntheticTemplate() as { template_uuid: string; fields: Record<string, unknown>[] };
    let tag: Record<string, unknown> = { name: 'leaf', template_tag_uuid: 'tag0' };
    for (let i = 1; i < 2000; i++) tag = { name: `t${i}`, template_tag_uuid: `tag${i}`, tags: [tag] };
    tpl.template_uuid = 'deeptags';
    tpl.fields.find((f) => f.fieldtype === 'Tags')!.tags = [tag];
    return tpl;
  };
  const deepRecord = (n: number) => {
    const rec = JSON.parse(JSON.stringify(deepSave(n))) as Record<string, unknown>;
    rec.record_uuid = 'deeprecord';
    rec.database_uuid = SYNTH.dataset;
    return rec;
  };

  for (const [name, make] of [
    ['a template with related databases 400 deep', () => JSON.stringify(deepTemplate())],
    ['a template with a tag tree 2,000 deep', () => JSON.stringify(deepTags())],
    ['a record list with a record 1,000 deep', () => JSON.stringify({ count: 1, records: [deepRecord(1000)] })],
    [
      'a large record list with a record 1,000 deep (streamed)',
      () => JSON.stringify({ count: 1, records: [deepRecord(1000)], pad: 'x'.repeat(70 * 1024 * 1024) }),
    ],
  ] as const) {
    it(`refuses ${name}, naming the nesting, and keeps nothing`, async () => {
      const before = digestAll(t.service);
      const file = write(`deep-${Date.now()}.json`, make());
      await expect(importFile(t.service.domain, admin(), file)).rejects.toThrow(/nested more than/);
      expect(digestAll(t.service)).toBe(before);
    });
  }

  it('POST /local/import of a deep template ends as a failed job naming the nesting', async () => {
    const fd = new FormData();
    fd.append('file', new Blob([JSON.stringify(deepTags())]), 'deep.json');
    const r = await fetch(`${t.host.url}/local/import`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.admin.token}` },
      body: fd,
    });
    expect(r.status).toBe(202);
    const id = ((await r.json()) as TrackedJob).id;
    const job = await jobEnded(t.host.url, t.admin.token!, id);
    expect(job.state).toBe('failed');
    expect(JSON.stringify(job)).toContain('nested more than');
  });
});
