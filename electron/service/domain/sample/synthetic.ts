import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { FIELD_TYPE_NAMES, type FieldTypeName } from '../../../../shared/fieldTypes.js';
import { seededRandom as rng } from '../../../../shared/seededRandom.js';
import { withArticle } from '../../../../shared/article.js';

// A synthetic ODR dataset in export format: a template with every field type and a child
// datatype, and record lists of any size (one record in ten has 1-3 children). Deterministic
// for a given seed, so tests and benches see the same data every run.

export const SYNTH = {
  dataset: 'a0000000000000000000000000d1',
  child: 'a0000000000000000000000000d2',
  field: (t: FieldTypeName) => `f${String(FIELD_TYPE_NAMES.indexOf(t) + 1).padStart(27, '0')}`,
  childField: (i: number) => `c${String(i).padStart(27, '0')}`,
  option: (t: FieldTypeName, i: number) => `o${String(FIELD_TYPE_NAMES.indexOf(t) + 1).padStart(2, '0')}${String(i).padStart(25, '0')}`,
  tag: (i: number) => `t${String(i).padStart(27, '0')}`,
  record: (i: number) => `e${String(i).padStart(27, '0')}`,
  childRecord: (i: number, j: number) => `e${String(i).padStart(24, '0')}c${String(j).padStart(2, '0')}`,
};

const STAMP = '2025-01-01 00:00:00';
const meta = (pub = STAMP) => ({
  _create_date: STAMP,
  _create_auth: 'Synthetic Generator',
  _public_date: pub,
  _master_published_version: '0',
  _master_revision: '0',
  _tracking_master_version: '0',
});

const OPTION_COUNTS: Partial<Record<FieldTypeName, number>> = {
  'Single Radio': 3,
  'Single Select': 4,
  'Multiple Radio': 3,
  'Multiple Select': 5,
};

// Tags: 3 roots with 3 children each (ids 1..12).
const TAG_TREE = [1, 2, 3].map((root) => ({
  uuid: SYNTH.tag(root),
  name: `Group ${root}`,
  children: [1, 2, 3].map((k) => ({ uuid: SYNTH.tag(root * 3 + k), name: `Group ${root} item ${k}` })),
}));

export function syntheticTemplate() {
  const fields = FIELD_TYPE_NAMES.map((t, i) => {
    const f: Record<string, unknown> = {
      internal_id: 9001 + i,
      name: t === 'Short Text' ? 'Sample ID' : `${t} field`,
      description: `${withArticle(t).replace(/^a/, 'A')} field`,
      fieldtype: t,
      field_uuid: SYNTH.field(t),
      template_field_uuid: null,
      updated_at: STAMP,
      _field_metadata: meta(),
    };
    const n = OPTION_COUNTS[t];
    if (n) {
      f.radio_options = Array.from({ length: n }, (_, k) => ({
        name: `${t} option ${k + 1}`,
        template_radio_option_uuid: SYNTH.option(t, k + 1),
        updated_at: STAMP,
      }));
    }
    if (t === 'Tags') {
      f.tags = TAG_TREE.map((r, ri) => ({
        name: r.name,
        id: String(100 + ri),
        display_order: String(ri),
        template_tag_uuid: r.uuid,
        updated_at: STAMP,
        tags: r.children.map((c, ci) => ({
          name: c.name,
          id: String(200 + ri * 3 + ci),
          display_order: String(ci),
          template_tag_uuid: c.uuid,
          updated_at: STAMP,
        })),
      }));
    }
    return f;
  });
  return {
    internal_id: 901,
    name: 'Synthetic Samples',
    description: 'Every ODR field type',
    template_uuid: SYNTH.dataset,
    updated_at: STAMP,
    metadata_for_uuid: '',
    _database_metadata: meta(),
    fields,
    related_databases: [
      {
        internal_id: 902,
        name: 'Subsamples',
        description: null,
        template_uuid: SYNTH.child,
        updated_at: STAMP,
        metadata_for_uuid: '',
        _database_metadata: meta(),
        fields: [
          {
            internal_id: 9101,
            name: 'Split',
            description: '',
            fieldtype: 'Short Text',
            field_uuid: SYNTH.childField(1),
            template_field_uuid: null,
            updated_at: STAMP,
            _field_metadata: meta(),
          },
          {
            internal_id: 9102,
            name: 'Mass (g)',
            description: '',
            fieldtype: 'Decimal',
            field_uuid: SYNTH.childField(2),
            template_field_uuid: null,
            updated_at: STAMP,
            _field_metadata: meta(),
          },
          {
            internal_id: 9103,
            name: 'Notes',
            description: '',
            fieldtype: 'Paragraph Text',
            field_uuid: SYNTH.childField(3),
            template_field_uuid: null,
            updated_at: STAMP,
            _field_metadata: meta(),
          },
        ],
        related_databases: [],
      },
    ],
  };
}

const WORDS = ['basalt', 'olivine', 'sand', 'crater', 'ridge', 'sample', 'drill', 'scoop', 'clay', 'sulfate', 'hematite', 'quartz'];

interface FieldHead {
  id: number;
  uuid: string;
  name: string;
}

/** A field entry as exports write it; `extra` holds its value, selections or files. */
function entry(h: FieldHead, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    field_name: h.name,
    field_uuid: h.uuid,
    template_field_uuid: null,
    id: h.id,
    _field_metadata: { _public_date: STAMP, _create_date: STAMP, _update_date: STAMP, _create_auth: 'Synthetic Generator' },
    ...extra,
  };
}

// Built once: names, uuids and option uuids were a tenth of the sample generator's import time
// when derived again for every field of every record.
const HEADS = new Map<FieldTypeName, FieldHead>(
  FIELD_TYPE_NAMES.map((t, i) => [t, { id: 9001 + i, uuid: SYNTH.field(t), name: t === 'Short Text' ? 'Sample ID' : `${t} field` }]),
);
const CHILD_HEADS: FieldHead[] = [
  { id: 9101, uuid: SYNTH.childField(1), name: 'Split' },
  { id: 9102, uuid: SYNTH.childField(2), name: 'Mass (g)' },
  { id: 9103, uuid: SYNTH.childField(3), name: 'Notes' },
];
const OPTIONS = new Map<FieldTypeName, { uuid: string; name: string }[]>(
  Object.entries(OPTION_COUNTS).map(([t, n]) => [
    t as FieldTypeName,
    Array.from({ length: n + 1 }, (_, k) => ({ uuid: SYNTH.option(t as FieldTypeName, k), name: `${t} option ${k}` })),
  ]),
);
const TAG_UUIDS = Array.from({ length: 13 }, (_, k) => SYNTH.tag(k));

export function syntheticRecord(i: number, seed = 1): Record<string, unknown> {
  const r = rng(seed * 1_000_003 + i);
  const word = () => WORDS[Math.floor(r() * WORDS.length)]!;
  const fields: Record<string, unknown>[] = [];
  const add = (t: FieldTypeName, extra: Record<string, unknown>) => fields.push(entry(HEADS.get(t)!, extra));
  add('Short Text', { value: `S-${String(i).padStart(6, '0')}` });
  add('Medium Text', { value: `${word()} ${word()} ${i}` });
  add('Long Text', { value: `${word()} ${word()} ${word()} near ${word()} site ${i % 97}` });
  add('Paragraph Text', { value: `${word()} ${word()} ${word()}. ${word()} ${word()} ${word()} ${word()}.` });
  add('Integer', { value: Math.floor(r() * 100000) - 5000 });
  add('Decimal', { value: (r() * 1000 - 500).toFixed(3) });
  add('Boolean', { selected: r() < 0.5 ? 1 : 0 });
  add('DateTime', { value: `20${10 + Math.floor(r() * 15)}-0${1 + Math.floor(r() * 9)}-1${Math.floor(r() * 9)}` });
  const pick = (t: FieldTypeName, k: number) => {
    const o = OPTIONS.get(t)![k]!;
    return { id: 0, template_radio_option_uuid: o.uuid, name: o.name, selected: 1 };
  };
  add('Single Radio', { values: [pick('Single Radio', 1 + Math.floor(r() * 3))] });
  add('Single Select', { values: [pick('Single Select', 1 + Math.floor(r() * 4))] });
  add('Multiple Radio', { values: [pick('Multiple Radio', 1), ...(r() < 0.5 ? [pick('Multiple Radio', 3)] : [])] });
  add('Multiple Select', {
    values: [pick('Multiple Select', 2), pick('Multiple Select', 1 + Math.floor(r() * 5))].filter(
      (v, k, a) => a.findIndex((x) => x.template_radio_option_uuid === v.template_radio_option_uuid) === k,
    ),
  });
  const root = 1 + Math.floor(r() * 3);
  add('Tags', {
    tags: [
      { id: 0, template_tag_uuid: TAG_UUIDS[root], name: `Group ${root}`, selected: 1 },
      {
        id: 0,
        template_tag_uuid: TAG_UUIDS[root * 3 + 1],
        parent_template_tag_uuid: TAG_UUIDS[root],
        name: `Group ${root} item 1`,
        selected: 1,
      },
    ],
  });
  add('Markdown', { value: `**${word()}** _${word()}_` });
  if (i % 5 === 0) {
    add('File', {
      files: [
        {
          id: 0,
          file_uuid: `b${String(i).padStart(27, '0')}`,
          file_size: String(1000 + i),
          href: `https://odr.example.org/view/downloadfile/${i}`,
          _file_metadata: {
            _external_id: '',
            _create_date: STAMP,
            _create_auth: 'Synthetic Generator',
            _public_date: STAMP,
            _quality: '0',
          },
          original_name: `spectrum-${i}.csv`,
        },
      ],
    });
  }
  const children = i % 10 === 0 ? 1 + Math.floor(r() * 3) : 0;
  return {
    database_uuid: SYNTH.dataset,
    internal_id: 500_000 + i,
    record_name: `S-${String(i).padStart(6, '0')}`,
    record_uuid: SYNTH.record(i),
    template_uuid: '',
    metadata_for_uuid: '',
    _record_metadata: {
      _create_date: STAMP,
      _update_date: STAMP,
      _create_auth: 'Synthetic Generator',
      _public_date: i % 3 === 0 ? '2200-01-01 00:00:00' : STAMP,
    },
    fields,
    records: Array.from({ length: children }, (_, j) => ({
      database_uuid: SYNTH.child,
      internal_id: 1_500_000 + i * 4 + j,
      record_name: `split ${j + 1}`,
      record_uuid: SYNTH.childRecord(i, j),
      template_uuid: '',
      metadata_for_uuid: '',
      _record_metadata: { _create_date: STAMP, _update_date: STAMP, _create_auth: 'Synthetic Generator', _public_date: STAMP },
      fields: [
        entry(CHILD_HEADS[0]!, { value: `split ${j + 1}` }),
        entry(CHILD_HEADS[1]!, { value: (r() * 10).toFixed(4) }),
        entry(CHILD_HEADS[2]!, { value: `${word()} ${word()}` }),
      ],
      records: [],
    })),
  };
}

/** Writes a `{count, records}` export of `n` records; returns its size in bytes. */
export async function writeSyntheticExport(file: string, n: number, seed = 1): Promise<number> {
  const out = createWriteStream(file);
  let bytes = 0;
  const write = async (s: string) => {
    bytes += Buffer.byteLength(s);
    if (!out.write(s)) await once(out, 'drain');
  };
  await write(`{"count":${n},"records":[`);
  for (let i = 0; i < n; i++) await write((i ? ',' : '') + JSON.stringify(syntheticRecord(i, seed)));
  await write(']}');
  out.end();
  await once(out, 'finish');
  return bytes;
}
