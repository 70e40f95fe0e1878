import { linkFor } from '../../../shared/plugins/url';
import { optionsOf, pluginNamed, PLUGIN } from '../../../shared/plugins/renderPlugins';
import type { TemplateField } from '../../../shared/schemas/template';
import { FilesField } from '../editor/FilesField';
import type { FieldProps } from '../editor/types';
import { CsvTable } from './CsvTable';
import { Formula } from './Formula';
import { ViewThenEdit } from './ViewThenEdit';

const text = (p: FieldProps) => (p.entry?.value === undefined || p.entry.value === null ? '' : String(p.entry.value));
const opts = (field: TemplateField, name: string) => optionsOf(pluginNamed(field.render_plugins, name));

export function ChemistryField(p: FieldProps) {
  return (
    <ViewThenEdit props={p}>
      <Formula value={text(p)} options={opts(p.field, PLUGIN.chemistry)} />
    </ViewThenEdit>
  );
}

/** The value as a link; target=_blank so the desktop shell hands it to the system browser. */
export function UrlValue({ value, field }: { value: string; field: TemplateField }) {
  const link = linkFor(value, opts(field, PLUGIN.url));
  if (!link) return <span>{value}</span>;
  return (
    <a href={link.href} target="_blank" rel="noopener noreferrer" onClick={(e) => e.stopPropagation()}>
      {link.text}
    </a>
  );
}

export function UrlField(p: FieldProps) {
  return (
    <ViewThenEdit props={p}>
      <UrlValue value={text(p)} field={p.field} />
    </ViewThenEdit>
  );
}

/** The usual file list (upload, download, delete) with each CSV file shown as a table under it. */
export function CsvTableField(p: FieldProps) {
  const files = (p.entry?.files ?? []).filter((f) => f.parent_image_id === undefined);
  return (
    <>
      <FilesField {...p} />
      {files.map((f) => (
        <CsvTable key={f.file_uuid} file={f} />
      ))}
    </>
  );
}
