import { readFileSync, existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cellText } from '../../renderer/src/lib/cellText.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { TemplateField } from '../../shared/schemas/template.js';

const CHEMIN = new URL('../../../shared/fixtures/odr-real/chemin_data.json', import.meta.url);

const field = (fieldtype: string) => ({ field_uuid: 'f1', name: fieldtype, fieldtype }) as TemplateField;
const file = (id: number, original_name: string, parent_image_id?: number) => ({
  id,
  file_uuid: `u${id}`,
  href: '',
  original_name,
  ...(parent_image_id === undefined ? {} : { parent_image_id }),
});
const record = (files: ReturnType<typeof file>[]) =>
  ({
    database_uuid: 'd',
    internal_id: 1,
    record_name: '1',
    record_uuid: 'r',
    template_uuid: 't',
    fields: [{ field_name: 'x', field_uuid: 'f1', template_field_uuid: null, id: 1, files }],
  }) as unknown as OdrRecord;

describe('a files or images field as table cell text', () => {
  it('counts the originals of an image field, not their thumbnails', () => {
    const rec = record([file(1, 'a.png'), file(2, 'a.png', 1), file(3, 'b.jpg'), file(4, 'b.jpg', 3)]);
    expect(cellText(rec, field('Image'))).toBe('2 images');
    expect(cellText(record([file(1, 'a.png'), file(2, 'a.png', 1)]), field('Image'))).toBe('1 image');
    expect(cellText(record([]), field('Image'))).toBe('');
  });

  it('counts files as before', () => {
    expect(cellText(record([file(1, 'a.csv')]), field('File'))).toBe('1 file');
    expect(cellText(record([file(1, 'a.csv'), file(2, 'b.csv')]), field('File'))).toBe('2 files');
  });

  it('names the images of a real CheMin record', (ctx) => {
    if (!existsSync(CHEMIN)) return ctx.skip('no ../shared/fixtures/odr-real/chemin_data.json here');
    const data = JSON.parse(readFileSync(CHEMIN, 'utf8')) as { records: OdrRecord[] };
    const rec = data.records.find((r) => r.fields.some((f) => f.field_name === 'Images' && f.files?.length));
    expect(rec).toBeDefined();
    const images = rec!.fields.find((f) => f.field_name === 'Images')!;
    const n = images.files!.filter((f) => f.parent_image_id === undefined).length;
    expect(n).toBeGreaterThan(1);
    expect(cellText(rec!, { field_uuid: images.field_uuid, name: 'Images', fieldtype: 'Image' } as TemplateField)).toBe(`${n} images`);
  });
});
