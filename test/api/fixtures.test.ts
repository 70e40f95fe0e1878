import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fieldTypesOf, normalizeRecord, normalizeTemplate } from '../../shared/legacy.js';
import { OdrRecord } from '../../shared/schemas/record.js';
import { Template } from '../../shared/schemas/template.js';
import { importFile } from '../../electron/service/domain/import/importFile.js';
import { describeFixtures, fixture } from '../support/fixtures.js';
import { startService, type TestService } from '../support/service.js';
import { subsetDiff } from '../support/subset.js';

const read = (name: string) => JSON.parse(readFileSync(fixture(name), 'utf8')) as unknown;

describeFixtures('real ODR exports import and read back with the same shapes and values', () => {
  let t: TestService;
  const imported: Record<string, Awaited<ReturnType<typeof importFile>>> = {};

  beforeAll(async () => {
    t = await startService();
    const user = t.service.domain.users.firstSuperUser()!;
    for (const f of ['chemin_template.json', 'chemin_data.json', 'rruff_imalist_template.json', 'ahed_metadata_template.json']) {
      imported[f] = await importFile(t.service.domain, user, fixture(f));
    }
  });
  afterAll(() => t.close());

  for (const [file, uuid] of [
    ['chemin_template.json', '110a55b'],
    ['rruff_imalist_template.json', 'f6a700e9d45f0884c1514ec6c538'],
    ['ahed_metadata_template.json', '2ea627b'],
  ] as const) {
    it(`${file}: GET /template/${uuid} matches the export`, async () => {
      const got = await t.admin.template(uuid);
      Template.parse(got);
      expect(subsetDiff(got, normalizeTemplate(read(file)))).toEqual([]);
    });
  }

  it('chemin_data.json: all 24 records and their 105 children, values, options and file metadata read back', async () => {
    expect(imported['chemin_data.json']!.records).toEqual({ imported: 24, skipped: 0, children: 105 });
    const types = fieldTypesOf(normalizeTemplate(read('chemin_template.json')));
    const data = read('chemin_data.json') as { records: unknown[] };
    const diffs: string[] = [];
    for (const raw of data.records) {
      const expected = normalizeRecord(raw, types);
      const got = await t.admin.record(expected.record_uuid);
      OdrRecord.parse(got);
      diffs.push(...subsetDiff(got, expected, expected.record_uuid));
    }
    expect(diffs).toEqual([]);
  });

  it('the paged list returns the same records in export order', async () => {
    const data = read('chemin_data.json') as { records: { record_uuid: string }[] };
    const page1 = await t.admin.list('110a55b', 10, 0);
    const page3 = await t.admin.list('110a55b', 10, 20);
    expect(page1.count).toBe(10);
    expect(page3.count).toBe(4);
    expect([...page1.records, ...page3.records].map((r) => r.record_uuid)).toEqual(
      [...data.records.slice(0, 10), ...data.records.slice(20)].map((r) => r.record_uuid),
    );
  });

  it('imported files keep their metadata and href and are marked as not local', async () => {
    const rec = await t.admin.record('39dded5');
    const images = rec.fields.find((f) => f.field_name === 'Images')!.files!;
    expect(images.map((f) => f.id)).toEqual([5009, 5013, 5015, 5029, 14046, 14045]);
    expect(images.every((f) => f.content_local === false && f.href.startsWith('https://omicron.odr.io/'))).toBe(true);
  });

  it('importing the same export again adds nothing', async () => {
    const before = t.digest();
    const again = await importFile(t.service.domain, t.service.domain.users.firstSuperUser()!, fixture('chemin_data.json'));
    expect(again.records).toEqual({ imported: 0, skipped: 24, children: 0 });
    // only the schema revision counter may move; records and values stay
    const after = t.digest();
    expect(after).toBe(before);
  });
});
