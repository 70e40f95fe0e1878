import { describe, expect, it } from 'vitest';
import { PRIVATE_DATE, isPublicAt, parseDateInput } from '../../shared/dates.js';
import { FIELD_TYPES, FIELD_TYPE_NAMES, checkValue, utf8Bytes } from '../../shared/fieldTypes.js';
import { unescapeHtml, unescapeHtmlTwice } from '../../shared/html.js';
import { normalizeRecord, normalizeTemplate } from '../../shared/legacy.js';

const NOW = new Date('2026-03-04T05:06:07Z');

describe('parseDateInput', () => {
  it.each([
    ['now', '2026-03-04 05:06:07'],
    ['2024-05-01', '2024-05-01 00:00:00'],
    ['2024-05-01 12:30', '2024-05-01 12:30:00'],
    ['2024-05-01 12:30:45', '2024-05-01 12:30:45'],
    ['2024-05-01T12:30:45.123', '2024-05-01 12:30:45'],
    ['2024-05-01T12:30:45Z', '2024-05-01 12:30:45'],
    ['2024-05-01T12:30:45+02:00', '2024-05-01 10:30:45'],
    ['+1 day', '2026-03-05 05:06:07'],
    ['-2 hours', '2026-03-04 03:06:07'],
    [PRIVATE_DATE, PRIVATE_DATE],
  ])('%s → %s', (input, out) => expect(parseDateInput(input, NOW)).toBe(out));

  it.each(['', 'tomorrowish', '2024-02-30', '2024-13-01', '2024-05-01 25:00:00', '01/02/2024'])('%j is not a date', (s) => {
    expect(parseDateInput(s, NOW)).toBeNull();
  });

  it('public means not the private date and not in the future', () => {
    expect(isPublicAt(PRIVATE_DATE, '2300-01-01 00:00:00')).toBe(false);
    expect(isPublicAt('2026-01-01 00:00:00', '2026-01-01 00:00:00')).toBe(true);
    expect(isPublicAt('2026-01-02 00:00:00', '2026-01-01 00:00:00')).toBe(false);
  });
});

describe('field types', () => {
  it('has all 17 ODR type names, each with a storage kind and editor', () => {
    expect(FIELD_TYPE_NAMES.length).toBe(17);
    for (const n of FIELD_TYPE_NAMES) expect(FIELD_TYPES[n].name).toBe(n);
  });

  it('counts UTF-8 bytes like PHP strlen', () => {
    expect(utf8Bytes('abc')).toBe(3);
    expect(utf8Bytes('é')).toBe(2);
    expect(utf8Bytes('€')).toBe(3);
    expect(utf8Bytes('😀')).toBe(4);
  });

  it('replaces lone surrogates in text (the real server scrubs invalid UTF-8)', () => {
    expect(checkValue(FIELD_TYPES['Long Text'], 'a\ud800b')).toEqual({ ok: true, stored: 'a\ufffdb' });
  });

  it('decimal exponent forms', () => {
    for (const s of ['1e5', '1E-5', '2x10^3', '2×10-3', '5*10^2']) expect(checkValue(FIELD_TYPES.Decimal, s).ok).toBe(true);
  });
});

describe('html unescaping', () => {
  it('undoes Twig HTML escaping, and the double escape of _create_auth', () => {
    expect(unescapeHtml('Antigua &amp; Barbuda')).toBe('Antigua & Barbuda');
    expect(unescapeHtml('&lt;b&gt; &quot;q&quot; &#039;s&#039;')).toBe('<b> "q" \'s\'');
    expect(unescapeHtmlTwice('Internal R&amp;amp;D')).toBe('Internal R&D');
  });
});

describe('legacy normaliser', () => {
  it('turns a legacy template (template_field_uuid only, render_plugin string, tags under value/children) into the current shape', () => {
    const t = normalizeTemplate({
      internal_id: 1,
      name: 'T',
      template_uuid: 'abc1234',
      render_plugin: 'Graph Plugin',
      fields: [
        {
          internal_id: 2,
          name: 'Kw',
          fieldtype: 'Tags',
          template_field_uuid: 'f000001',
          value: [
            {
              name: 'A &amp; B',
              template_tag_uuid: 't1',
              updated_at: 'x',
              children: [{ name: 'C', template_tag_uuid: 't2', updated_at: 'y' }],
            },
          ],
        },
      ],
    });
    expect(t.render_plugins).toEqual([{ render_plugin: 'Graph Plugin' }]);
    expect(t.description).toBeNull();
    expect(t.fields[0]).toMatchObject({ field_uuid: 'f000001', template_field_uuid: null });
    expect(t.fields[0]!.tags).toEqual([
      { name: 'A & B', template_tag_uuid: 't1', updated_at: 'x', tags: [{ name: 'C', template_tag_uuid: 't2', updated_at: 'y' }] },
    ]);
  });

  it('turns legacy record shapes into the current ones', () => {
    const r = normalizeRecord(
      {
        record_uuid: 'r1',
        record_name: 'Rock &amp; soil',
        _record_metadata: { _updated_date: 'u', _create_auth: 'Jane &amp;amp; Co' },
        fields: {
          0: { field_uuid: 'a', value: [{ name: 'Opt', template_radio_option_uuid: 'o1', id: 5, selected: '1' }] },
          2: { field_uuid: 'b', value: [{ name: 'Tag', template_tag_uuid: 't1', id: 6 }] },
          3: { field_uuid: 'c', value: '' },
          4: { field_uuid: 'd', value: 1.5 },
          5: { field_uuid: 'e', selected: '1' },
        },
      },
      new Map([
        ['c', 'Integer'],
        ['d', 'Decimal'],
      ]),
    );
    expect(r.record_name).toBe('Rock & soil');
    expect(r._record_metadata).toMatchObject({ _update_date: 'u', _create_auth: 'Jane & Co' });
    expect(r.fields.map((f) => [f.values, f.tags?.map((x) => x.id), f.value, f.selected])).toEqual([
      [[{ id: 5, template_radio_option_uuid: 'o1', name: 'Opt', selected: 1 }], undefined, undefined, undefined],
      [undefined, [6], undefined, undefined],
      [undefined, undefined, null, undefined],
      [undefined, undefined, '1.5', undefined],
      [undefined, undefined, undefined, 1],
    ]);
  });
});
