import { describe, expect, it } from 'vitest';
import { chemistryPieces, chemistryText } from '../../../shared/plugins/chemistry.js';
import { linkFor } from '../../../shared/plugins/url.js';
import { citationOf, doiHref } from '../../../shared/plugins/citation.js';
import { pluginNamed, unknownPlugins } from '../../../shared/plugins/renderPlugins.js';

describe('Chemistry Field', () => {
  it('turns _…_ into subscripts and ^…^ into superscripts, as ODR writes formulas', () => {
    expect(chemistryPieces('Ca_2_Fe^2+^_5_Si_8_O_22_(OH)_2_')).toEqual([
      { text: 'Ca', sub: false, sup: false },
      { text: '2', sub: true, sup: false },
      { text: 'Fe', sub: false, sup: false },
      { text: '2+', sub: false, sup: true },
      { text: '5', sub: true, sup: false },
      { text: 'Si', sub: false, sup: false },
      { text: '8', sub: true, sup: false },
      { text: 'O', sub: false, sup: false },
      { text: '22', sub: true, sup: false },
      { text: '(OH)', sub: false, sup: false },
      { text: '2', sub: true, sup: false },
    ]);
  });
  it('keeps unpaired and empty delimiters as text, renders [box], honours other delimiters', () => {
    expect(chemistryText('a_b')).toBe('a_b');
    expect(chemistryText('x__y')).toBe('x__y');
    expect(chemistryText('Na[box]_2_')).toBe('Na\u25FB2');
    expect(chemistryPieces('H~2~O', { subscript_delimiter: '~' })[1]).toEqual({ text: '2', sub: true, sup: false });
    expect(chemistryPieces('<b>_2_')[0]!.text).toBe('<b>');
  });
});

describe('URL Field', () => {
  it('links values with a web scheme, never javascript:', () => {
    expect(linkFor('https://rruff.info/AMS/1')).toEqual({ href: 'https://rruff.info/AMS/1', text: 'https://rruff.info/AMS/1' });
    expect(linkFor('javascript:alert(1)')).toBeNull();
    expect(linkFor('   ')).toBeNull();
  });
  it('links a bare AMCSD id only through the plugin options, else it is text', () => {
    expect(linkFor('0012345')).toBeNull();
    expect(linkFor('0012345', { base_url: 'https://example.org/amcsd?id=', post_url: '&f=cif' })).toEqual({
      href: 'https://example.org/amcsd?id=0012345&f=cif',
      text: '0012345',
    });
    expect(linkFor('a b', { base_url: 'https://x.org/', encode_input: 'yes', display_full_url: 'yes' })).toEqual({
      href: 'https://x.org/a%20b',
      text: 'https://x.org/a%20b',
    });
    expect(linkFor('0012345', { base_url: 'auto' })).toBeNull();
    expect(linkFor('x', { base_url: 'javascript:' })).toBeNull();
  });
});

describe('References Plugin', () => {
  it('reads a CheMin reference by field names and links its DOI', () => {
    const c = citationOf([
      { name: 'Authors', value: 'Bish, D.L.; Blake, D.F.' },
      { name: 'Year', value: '2013' },
      { name: 'Article Title', value: 'X-ray diffraction results from Mars Science Laboratory' },
      { name: 'Journal', value: 'Science' },
      { name: 'Volume', value: '341' },
      { name: 'Pages', value: '1238932' },
      { name: 'Ref. DOI', value: 'doi:10.1126/science.1238932' },
      { name: 'Annotation', value: 'ignored' },
    ]);
    expect(c).toMatchObject({ authors: 'Bish, D.L.; Blake, D.F.', year: '2013', journal: 'Science', volume: '341', pages: '1238932' });
    expect(c.doiHref).toBe('https://doi.org/10.1126/science.1238932');
    expect(doiHref('https://doi.org/10.2138/am-2016-5525')).toBe('https://doi.org/10.2138/am-2016-5525');
    expect(doiHref('not a doi')).toBe('');
  });
});

describe('plugin lookup', () => {
  it('finds a named plugin and lists the ones odr-desktop does not draw', () => {
    const plugins = [{ render_plugin: 'Graph Plugin' }, { render_plugin: 'Chemin ED1 Plugin' }];
    expect(pluginNamed(plugins, 'Graph Plugin')).toEqual({ render_plugin: 'Graph Plugin' });
    expect(unknownPlugins(plugins)).toEqual(['Chemin ED1 Plugin']);
  });
});

describe('Graph Plugin file choice', () => {
  const f = (name: string, extra: object = {}) => ({ name, fieldtype: 'File', ...extra }) as never;
  it('draws the CheMin "XRD pattern" field, not the label file or the phase list', async () => {
    const { graphFileFields, graphFileOf } = await import('../../../shared/plugins/graphFiles.js');
    const fields = [f('RDA - PDS label file'), f('XRD pattern'), f('AMCSD Phase List'), { name: 'Notes', fieldtype: 'Long Text' } as never];
    expect(graphFileFields(fields).map((x: { name: string }) => x.name)).toEqual(['XRD pattern']);
    // Mineral Abundances: its only data file has its own CSV Table Plugin, the other is a label.
    expect(
      graphFileFields([
        f('MIN - PDS label file'),
        f('Mineral abundance table', { render_plugins: [{ render_plugin: 'CSV Table Plugin' }] }),
      ]),
    ).toEqual([]);
    expect(graphFileFields([f('Raw data'), f('Photo')]).map((x: { name: string }) => x.name)).toEqual(['Raw data']);
    const file = (original_name: string) => ({ original_name }) as never;
    expect(graphFileOf([file('a.lbl.txt'), file('b.csv')])).toEqual({ original_name: 'b.csv' });
    expect(graphFileOf([file('a.lbl.txt')])).toBeUndefined();
  });
  it('draws the file that is on this computer, not an imported one whose bytes are elsewhere', async () => {
    const { graphFileOf } = await import('../../../shared/plugins/graphFiles.js');
    const away = { original_name: 'imported.xy', content_local: false } as never;
    const here = { original_name: 'uploaded.csv' } as never;
    const hereLabel = { original_name: 'x.lbl' } as never;
    expect(graphFileOf([away, hereLabel, here])).toBe(here);
    expect(graphFileOf([away, { original_name: 'notes.pdf' } as never])).toBe(away);
    // None is here: the first data file still stands, so the plugin can say it is not here.
    const away2 = { original_name: 'other.csv', content_local: false } as never;
    expect(graphFileOf([away, away2])).toBe(away);
  });
});
