// The one place the record editor and the record table ask how a template wants something
// shown: ODR render plugins (Graph, CSV Table, Chemistry, References, URL). Anything else
// keeps the plain editors and shows the plugin's name quietly.
import type { ReactNode } from 'react';
import { PLUGIN, pluginNamed, unknownPlugins } from '../../../shared/plugins/renderPlugins';
import type { OdrRecord } from '../../../shared/schemas/record';
import type { RenderPlugin, Template, TemplateField } from '../../../shared/schemas/template';
import type { FieldProps } from '../editor/types';
import { ChemistryField, CsvTableField, UrlField, UrlValue } from './fieldPlugins';
import { Formula } from './Formula';
import { GraphPlugin } from './GraphPlugin';
import { ReferenceRecord } from './References';
import './plugins.css';

const has = (plugins: RenderPlugin[] | undefined, name: string) => !!pluginNamed(plugins, name);
const TEXT_TYPES = new Set(['Short Text', 'Medium Text', 'Long Text', 'Paragraph Text', 'Integer', 'Decimal']);

/** The editor a field's render plugin asks for, or null for the plain one. */
export function pluginEditorFor(field: TemplateField): ((p: FieldProps) => ReactNode) | null {
  const p = field.render_plugins;
  if (!p?.length) return null;
  if (TEXT_TYPES.has(field.fieldtype) && has(p, PLUGIN.chemistry)) return ChemistryField;
  if (TEXT_TYPES.has(field.fieldtype) && has(p, PLUGIN.url)) return UrlField;
  if (field.fieldtype === 'File' && has(p, PLUGIN.csvTable)) return CsvTableField;
  return null;
}

/** Names of plugins odr-desktop does not draw, shown quietly beside a field or dataset name. */
export function PluginNote({ plugins }: { plugins: RenderPlugin[] | undefined }) {
  const names = unknownPlugins(plugins);
  if (!names.length) return null;
  return (
    <span className="plugin-note" title="The template names this ODR render plugin; odr-desktop shows the plain fields instead">
      {names.join(', ')}
    </span>
  );
}

/** Shown above a child dataset's records in their parent: the Graph Plugin's chart. */
export function DatasetPlugin({ tpl, records }: { tpl: Template; records: OdrRecord[] }) {
  if (has(tpl.render_plugins, PLUGIN.graph)) return <GraphPlugin tpl={tpl} records={records} />;
  return null;
}

/** One child record in its parent: a citation for the References Plugin, else its fields. */
export function ChildRecordPlugin({ tpl, rec, children }: { tpl: Template; rec: OdrRecord; children: ReactNode }) {
  if (has(tpl.render_plugins, PLUGIN.references))
    return (
      <ReferenceRecord tpl={tpl} rec={rec}>
        {children}
      </ReferenceRecord>
    );
  return <>{children}</>;
}

/** A record-table cell: formulas with sub/superscripts, URL fields as links, else the text. */
export function PluginCell({ field, text }: { field: TemplateField; text: string }) {
  if (text && has(field.render_plugins, PLUGIN.chemistry))
    return <Formula value={text} options={pluginNamed(field.render_plugins, PLUGIN.chemistry)?.render_plugin_options} />;
  if (text && has(field.render_plugins, PLUGIN.url)) return <UrlValue value={text} field={field} />;
  return <>{text}</>;
}
