// The plugin e2e's sample: the real CheMin template imported a second time under new uuids as
// "CheMin Plugin Sample" (so the CheMin dataset the other specs use stays as exported), with
// generated XRD patterns, a mineral abundance CSV, an AMCSD id and a reference, stored through
// the real HTTP API. Also two bench records: one 10,000-point pattern and ten overlaid.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OdrClient } from '../../shared/client/odrClient.js';
import type { Service } from '../../electron/service/service.js';
import { listen } from '../../electron/service/host/http.js';
import { importTemplate } from '../../electron/service/domain/import/importFile.js';

export const PLUGIN_DATASET = 'Plugin Sample - CheMin template';
export const AMCSD_BASE = 'https://rruff.geo.arizona.edu/AMS/minerals.php?id=';
export const SAMPLE_SCANS = ['Scan A (drill)', 'Scan B (scoop)', 'Scan C (calibration)'];
export const BENCH_ONE = 'Bench: one 10,000-point pattern';
export const BENCH_TEN = 'Bench: ten 10,000-point patterns';
export const FORMULA = 'Ca_2_Fe^2+^_5_Si_8_O_22_(OH)_2_';
export const IMA_MINERAL = 'Ferro-actinolite (plugin e2e)';
/** A plugin odr-desktop does not draw (a real CheMin one), put on a plain field. */
export const UNKNOWN_PLUGIN = 'Chemin ED1 Plugin';

type Json = Record<string, unknown>;
const UUID_KEYS = new Set(['template_uuid', 'field_uuid', 'template_field_uuid', 'template_radio_option_uuid', 'template_tag_uuid']);
const newUuid = (v: string) => createHash('sha1').update(`plugin-sample:${v}`).digest('hex').slice(0, 28);

/** A copy of the template with every uuid and internal id replaced, so it is a new dataset. */
function renamed(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(renamed);
  if (typeof x !== 'object' || x === null) return x;
  const out: Json = {};
  for (const [k, v] of Object.entries(x as Json)) {
    if (UUID_KEYS.has(k) && typeof v === 'string' && v) out[k] = newUuid(v);
    else if (k === 'internal_id' || k === 'id') out[k] = 0;
    else out[k] = renamed(v);
  }
  return out;
}

/** A CheMin-like XRD pattern: 2θ from 4° to 54°, Gaussian peaks on a sloping background. */
export function xrdPattern(points: number, seed: number, opts: { header?: boolean } = {}): string {
  const peaks = [
    [8.7, 300],
    [13.9, 180],
    [22, 420],
    [26.6, 900],
    [27.9, 650],
    [30.1, 380],
    [35.6, 260],
    [42.5, 200],
    [50.1, 150],
  ];
  let r = seed * 9301 + 49297;
  const rand = () => (r = (r * 9301 + 49297) % 233280) / 233280;
  const lines = opts.header === false ? [] : ['# generated CheMin-style XRD pattern', '2-theta,counts'];
  for (let i = 0; i < points; i++) {
    const x = 4 + (50 * i) / (points - 1);
    let y = 40 + 60 * Math.exp(-x / 12);
    // Each pattern has its own mix of phases: peak heights vary with the seed, some vanish.
    for (const [c, h] of peaks) y += h! * Math.max(0, Math.sin(seed * 1.7 + c!)) * Math.exp(-(((x - c!) / 0.12) ** 2));
    y += rand() * 8;
    lines.push(`${x.toFixed(4)},${y.toFixed(2)}`);
  }
  return lines.join('\n') + '\n';
}

export async function seedPlugins(service: Service, fixtures: string): Promise<void> {
  const raw = JSON.parse(readFileSync(path.join(fixtures, 'chemin_template.json'), 'utf8')) as Json;
  const tpl = renamed(raw) as Json & { related_databases: (Json & { name: string; fields: Json[] })[] };
  tpl.name = PLUGIN_DATASET;
  const amcsd = tpl.related_databases.find((d) => d.name === 'CheMin Cifs')!.fields.find((f) => f.name === 'AMCSD ID')!;
  amcsd.render_plugin_options = { base_url: AMCSD_BASE };
  tpl.related_databases.find((d) => d.name === 'CheMin Cifs')!.fields.find((f) => f.name === 'Notes')!.render_plugin = UNKNOWN_PLUGIN;
  const user = service.domain.users.firstSuperUser()!;
  importTemplate(service.domain, user, tpl, {});
  const ima = JSON.parse(readFileSync(path.join(fixtures, 'rruff_imalist_template.json'), 'utf8')) as { template_uuid: string };
  importTemplate(service.domain, user, ima, {});

  const host = await listen(service, 0);
  try {
    const c = new OdrClient({ baseUrl: `${host.url}/api/v4` });
    await c.login('admin@e2e.local', 'e2e-password');
    const t = await c.template(tpl.template_uuid as string);
    const child = (name: string) => t.related_databases.find((d) => d.name === name)!;
    const fieldOf = (d: { fields: { name: string; field_uuid: string }[] }, name: string) =>
      d.fields.find((f) => f.name === name)!.field_uuid;
    const top = (name: string) => ({ field_uuid: fieldOf(t, 'Mars Area Location'), value: name });
    const xrd = child('XRD-RDA');
    const min = child('Mineral Abundances');
    const cifs = child('CheMin Cifs');
    const refs = child('CheMin-References');

    const make = async (name: string, children: unknown[]) => {
      const r = await c.createRecord(t.template_uuid);
      return c.save({
        record_uuid: r.record_uuid,
        database_uuid: t.template_uuid,
        fields: [top(name), { field_uuid: fieldOf(t, 'Analysis ID'), value: name }],
        records: children as never,
      });
    };
    const xrdChild = (name: string) => ({
      record_uuid: '',
      database_uuid: xrd.template_uuid,
      fields: [{ field_uuid: fieldOf(xrd, 'XRD Analysis name'), value: name }],
    });
    const upload = async (datatype: string, field: string, record: string, name: string, text: string) =>
      c.uploadFile(
        { dataset_uuid: datatype, record_uuid: record, field_uuid: field },
        { blob: new Blob([text], { type: 'text/csv' }), name },
      );

    const sample = await make('Plugin Sample', [
      ...SAMPLE_SCANS.map(xrdChild),
      {
        record_uuid: '',
        database_uuid: min.template_uuid,
        fields: [{ field_uuid: fieldOf(min, 'MIN Analysis Name'), value: 'Abundances' }],
      },
      {
        record_uuid: '',
        database_uuid: cifs.template_uuid,
        fields: [
          { field_uuid: fieldOf(cifs, 'Mineral'), value: 'Forsterite Mg_2_SiO_4_' },
          { field_uuid: fieldOf(cifs, 'AMCSD ID'), value: '0012345' },
        ],
      },
      {
        record_uuid: '',
        database_uuid: refs.template_uuid,
        fields: [
          { field_uuid: fieldOf(refs, 'Authors'), value: 'Bish, D.L., Blake, D.F., Vaniman, D.T.' },
          { field_uuid: fieldOf(refs, 'Year'), value: '2013' },
          {
            field_uuid: fieldOf(refs, 'Article Title'),
            value: 'X-ray diffraction results from Mars Science Laboratory: Mineralogy of Rocknest at Gale crater',
          },
          { field_uuid: fieldOf(refs, 'Journal'), value: 'Science' },
          { field_uuid: fieldOf(refs, 'Volume'), value: '341' },
          { field_uuid: fieldOf(refs, 'Pages'), value: '1238932' },
          { field_uuid: fieldOf(refs, 'Ref. DOI'), value: '10.1126/science.1238932' },
        ],
      },
    ]);
    const kids = sample.records ?? [];
    const scans = kids.filter((k) => k.database_uuid === xrd.template_uuid);
    for (const [i, k] of scans.entries())
      await upload(xrd.template_uuid, fieldOf(xrd, 'XRD pattern'), k.record_uuid, `scan-${i + 1}.csv`, xrdPattern(2000, i + 1));
    const abund = kids.find((k) => k.database_uuid === min.template_uuid)!;
    await upload(
      min.template_uuid,
      fieldOf(min, 'Mineral abundance table'),
      abund.record_uuid,
      'abundances.csv',
      'Mineral,Abundance (wt%),Error (wt%)\nPlagioclase,40.8,2.4\nOlivine,16.4,1.4\nAugite,10.7,3.0\nPigeonite,10.1,2.7\nMagnetite,9.3,1.3\nAnhydrite,1.0,0.3\nQuartz,1.1,0.3\nIlmenite,1.4,0.3\n',
    );

    const imaTpl = await c.template(ima.template_uuid);
    const imaField = (name: string) => imaTpl.fields.find((f) => f.name === name)!.field_uuid;
    const mineral = await c.createRecord(imaTpl.template_uuid);
    await c.save({
      record_uuid: mineral.record_uuid,
      database_uuid: imaTpl.template_uuid,
      fields: [
        { field_uuid: imaField('mineral_name'), value: IMA_MINERAL },
        { field_uuid: imaField('mineral_ideal_chemistry'), value: FORMULA },
      ],
    });

    const bench = async (name: string, n: number) => {
      const r = await make(
        name,
        Array.from({ length: n }, (_, i) => xrdChild(`${name} #${i + 1}`)),
      );
      for (const [i, k] of (r.records ?? []).entries())
        await upload(xrd.template_uuid, fieldOf(xrd, 'XRD pattern'), k.record_uuid, `bench-${i + 1}.csv`, xrdPattern(10_000, i + 11));
    };
    await bench(BENCH_ONE, 1);
    await bench(BENCH_TEN, 10);
  } finally {
    await host.close();
  }
}
