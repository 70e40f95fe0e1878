// Which file of a child record the Graph Plugin draws. ODR maps it in the plugin's settings,
// which exports do not carry; so: the File field named like a pattern or spectrum, else any
// File field that is not a label, CIF or phase list and has no plugin of its own.
import type { TemplateField } from '../schemas/template.js';
import type { FileEntry } from '../schemas/record.js';

const PREFERRED = /pattern|spectr|graph|\bxy\b|plot/i;
const NOT_DATA = /label|\blbl\b|\bcif\b|phase list|image|photo|scan/i;
const DATA_FILE = /\.(csv|txt|xy|dat|asc|tsv|prn|chi|uxd|xye)$/i;
const LABEL_FILE = /\.lbl(\.txt)?$/i;

export function graphFileFields(fields: TemplateField[]): TemplateField[] {
  const files = fields.filter((f) => f.fieldtype === 'File' && !(f.render_plugins ?? []).length);
  const preferred = files.filter((f) => PREFERRED.test(f.name));
  return preferred.length ? preferred : files.filter((f) => !NOT_DATA.test(f.name));
}

/**
 * The file to draw: the first data-text file whose bytes are on this computer, so an imported
 * file not downloaded yet does not hide a local one. Only when none is here, the first such file
 * anyway (the plugin then says it is not on this computer). A label file is never one.
 */
export function graphFileOf(files: FileEntry[] | undefined): FileEntry | undefined {
  const list = (files ?? []).filter((f) => !LABEL_FILE.test(f.original_name));
  const here = list.filter((f) => f.content_local !== false);
  const data = (l: FileEntry[]) => l.find((f) => DATA_FILE.test(f.original_name));
  return data(here) ?? data(list) ?? here[0] ?? list[0];
}
