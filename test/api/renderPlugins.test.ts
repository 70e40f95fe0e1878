import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Template } from '../../shared/schemas/template.js';
import { describeFixtures, fixture } from '../support/fixtures.js';
import { startService, type TestService } from '../support/service.js';

type Raw = {
  name: string;
  render_plugin?: string;
  render_plugins?: unknown;
  fields: Raw[];
  related_databases: Raw[];
  template_uuid: string;
};
const read = (name: string) => JSON.parse(readFileSync(fixture(name), 'utf8')) as Raw;

/** "Datatype" or "Datatype/Field" → plugin names, as GET /template answers them. */
function pluginsOf(t: Template, out: Record<string, unknown> = {}): Record<string, unknown> {
  if (t.render_plugins) out[t.name] = t.render_plugins;
  for (const f of t.fields) if (f.render_plugins) out[`${t.name}/${f.name}`] = f.render_plugins;
  for (const c of t.related_databases) pluginsOf(c, out);
  return out;
}

describeFixtures('render plugins survive template import (legacy render_plugin strings and options)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startService();
  });
  afterAll(() => t.close());

  it('chemin_template.json: every plugin the export names comes back on its datatype or field', async () => {
    await t.importJson(read('chemin_template.json'));
    expect(pluginsOf(await t.admin.template('110a55b'))).toEqual({
      'XRD-RDA': [{ render_plugin: 'Graph Plugin' }],
      'Mineral Abundances': [{ render_plugin: 'Graph Plugin' }],
      'Mineral Abundances/Mineral abundance table': [{ render_plugin: 'CSV Table Plugin' }],
      'XRF-RE': [{ render_plugin: 'Graph Plugin' }],
      'CheMin Cifs/AMCSD ID': [{ render_plugin: 'URL Field' }],
      'CheMin-References': [{ render_plugin: 'References Plugin' }],
    });
  });

  it('rruff_imalist_template.json: Chemistry Field on the formula fields, References Plugin on the child', async () => {
    const raw = read('rruff_imalist_template.json');
    await t.importJson(raw);
    const got = pluginsOf(await t.admin.template(raw.template_uuid));
    expect(got).toEqual({
      'IMA List/mineral_ideal_chemistry': [{ render_plugin: 'Chemistry Field' }],
      'IMA List/ima_ideal_chemistry': [{ render_plugin: 'Chemistry Field' }],
      'IMA List/end_member_chemistry': [{ render_plugin: 'Chemistry Field' }],
      'RRUFF Reference': [{ render_plugin: 'References Plugin' }],
      'RRUFF Reference/Article Title': [{ render_plugin: 'Chemistry Field' }],
    });
  });

  it('plugin options (legacy sibling key or inside render_plugins) are kept, re-import replaces them', async () => {
    const raw = read('chemin_template.json');
    const cifs = raw.related_databases.find((d) => d.name === 'CheMin Cifs')!;
    const amcsd = cifs.fields.find((f) => f.name === 'AMCSD ID') as Raw & { render_plugin_options?: unknown };
    amcsd.render_plugin_options = { base_url: 'https://example.org/amcsd?id=', display_full_url: 'no', ignored: { nested: true } };
    const refs = raw.related_databases.find((d) => d.name === 'CheMin-References')!;
    delete refs.render_plugin;
    refs.render_plugins = [{ render_plugin: 'References Plugin', render_plugin_options: { style: 'short', n: 2 } }];
    await t.importJson(raw);
    const got = pluginsOf(await t.admin.template('110a55b'));
    expect(got['CheMin Cifs/AMCSD ID']).toEqual([
      { render_plugin: 'URL Field', render_plugin_options: { base_url: 'https://example.org/amcsd?id=', display_full_url: 'no' } },
    ]);
    expect(got['CheMin-References']).toEqual([{ render_plugin: 'References Plugin', render_plugin_options: { style: 'short', n: '2' } }]);

    delete amcsd.render_plugin_options;
    await t.importJson(raw);
    expect(pluginsOf(await t.admin.template('110a55b'))['CheMin Cifs/AMCSD ID']).toEqual([{ render_plugin: 'URL Field' }]);
  });
});
