// The one table of ODR field types. Service validation, record rendering, the importer and
// the renderer's editors all read it, so a new type is one row here plus its editor.

export const FIELD_TYPE_NAMES = [
  'Boolean',
  'File',
  'Image',
  'Integer',
  'Decimal',
  'Paragraph Text',
  'Long Text',
  'Medium Text',
  'Short Text',
  'Single Radio',
  'Single Select',
  'Multiple Radio',
  'Multiple Select',
  'DateTime',
  'Markdown',
  'Tags',
  'XYZ Data',
] as const;
export type FieldTypeName = (typeof FIELD_TYPE_NAMES)[number];

/** How a field's data is stored and which key carries it in record JSON. */
export type StorageKind =
  | 'text' // `value`: string
  | 'integer' // `value`: number | null
  | 'decimal' // `value`: normalised string | null
  | 'datetime' // `value`: "YYYY-MM-DD" | ""
  | 'boolean' // `selected`: 0 | 1
  | 'options' // `values`: selected radio options
  | 'tags' // `tags`: selected tags, flat
  | 'files' // `files`: file or image entries
  | 'readonly'; // `value`: "" (XYZ Data: not exported in v4)

export type EditorKind =
  | 'text'
  | 'paragraph'
  | 'markdown'
  | 'integer'
  | 'decimal'
  | 'boolean'
  | 'datetime'
  | 'single-option'
  | 'multi-option'
  | 'tags'
  | 'file'
  | 'image'
  | 'none';

export interface FieldType {
  name: FieldTypeName;
  storage: StorageKind;
  editor: EditorKind;
  /** Byte limit of the text kinds (PHP strlen in the real server, so UTF-8 bytes). */
  maxBytes?: number;
  /** Radio kinds: at most one selected option. */
  single?: boolean;
  /** Set through POST /record/{r}/{f}/value. */
  takesValue: boolean;
  /** Set through PUT /record/{r}/{f}/{option}/{selected|unselected}. */
  takesOptions: boolean;
  /**
   * The record table may order by it: the real server's "sort?" column (reference §4.1). The
   * service's sort (domain/search/recordTable.ts) and the UI's column headers both read this.
   */
  sortable: boolean;
}

const text = (name: FieldTypeName, maxBytes: number | undefined, editor: EditorKind): FieldType => ({
  name,
  storage: 'text',
  editor,
  maxBytes,
  takesValue: true,
  takesOptions: false,
  // Markdown is static text of the template: nothing per record to order by.
  sortable: editor !== 'markdown',
});
const option = (name: FieldTypeName, single: boolean): FieldType => ({
  name,
  storage: 'options',
  editor: single ? 'single-option' : 'multi-option',
  single,
  takesValue: false,
  takesOptions: true,
  sortable: single,
});

export const FIELD_TYPES: Record<FieldTypeName, FieldType> = {
  'Short Text': text('Short Text', 32, 'text'),
  'Medium Text': text('Medium Text', 64, 'text'),
  'Long Text': text('Long Text', 255, 'text'),
  'Paragraph Text': text('Paragraph Text', undefined, 'paragraph'),
  Markdown: text('Markdown', undefined, 'markdown'),
  Integer: { name: 'Integer', storage: 'integer', editor: 'integer', takesValue: true, takesOptions: false, sortable: true },
  Decimal: { name: 'Decimal', storage: 'decimal', editor: 'decimal', takesValue: true, takesOptions: false, sortable: true },
  DateTime: { name: 'DateTime', storage: 'datetime', editor: 'datetime', takesValue: true, takesOptions: false, sortable: true },
  Boolean: { name: 'Boolean', storage: 'boolean', editor: 'boolean', takesValue: true, takesOptions: false, sortable: false },
  'Single Radio': option('Single Radio', true),
  'Single Select': option('Single Select', true),
  'Multiple Radio': option('Multiple Radio', false),
  'Multiple Select': option('Multiple Select', false),
  Tags: { name: 'Tags', storage: 'tags', editor: 'tags', takesValue: false, takesOptions: true, sortable: false },
  File: { name: 'File', storage: 'files', editor: 'file', takesValue: false, takesOptions: false, sortable: false },
  Image: { name: 'Image', storage: 'files', editor: 'image', takesValue: false, takesOptions: false, sortable: false },
  'XYZ Data': { name: 'XYZ Data', storage: 'readonly', editor: 'none', takesValue: false, takesOptions: false, sortable: false },
};

export function isFieldTypeName(s: string): s is FieldTypeName {
  return Object.hasOwn(FIELD_TYPES, s);
}

export function fieldType(name: string): FieldType {
  return isFieldTypeName(name) ? FIELD_TYPES[name] : FIELD_TYPES['Long Text'];
}

/** A value as stored: text/decimal/datetime as string, integer and boolean as number, cleared as null. */
export type StoredValue = string | number | null;
export type ValueCheck = { ok: true; stored: StoredValue } | { ok: false; message: string };

const INT_RE = /^(0|-?[1-9][0-9]*)$/;
const DEC_RE = /^([+-]?)(\d+\.?\d*|\.\d+)((?:[eE]|x10|×10|⋅10|\*10)\^?[+-]?\d+)?$/;
const DEC_TOL_RE = /^([+-]?)(\d+\.?\d*|\.\d+)(\(\d+\))$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const CLEARED_DATES = new Set(['', '0000-00-00', '0000-00-00 00:00:00']);

/** UTF-8 length without Buffer, so this file stays platform-free. */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } // surrogate pair
    else n += 3;
  }
  return n;
}

function normaliseDecimal(sign: string, mantissa: string, rest: string): string {
  let m = mantissa.startsWith('.') ? `0${mantissa}` : mantissa;
  m = m.replace(/^0+(?=\d)/, '');
  const zero = /^[0.]+$/.test(m);
  return `${sign === '-' && !zero ? '-' : ''}${m}${rest}`;
}

/**
 * Validates a value sent to the value or save endpoint and returns what is stored. Numbers and
 * booleans are accepted as JSON types where they make sense; `""` clears.
 */
export function checkValue(type: FieldType, input: unknown): ValueCheck {
  const bad = (why: string): ValueCheck => ({ ok: false, message: `Invalid ${type.name} value: ${why}` });
  switch (type.storage) {
    case 'text': {
      if (typeof input !== 'string' && typeof input !== 'number') return bad('expected a string');
      const s = String(input).toWellFormed();
      if (type.maxBytes !== undefined && utf8Bytes(s) > type.maxBytes) {
        return bad(`longer than ${type.maxBytes} bytes (${utf8Bytes(s)} given)`);
      }
      return { ok: true, stored: s };
    }
    case 'integer': {
      if (input === '') return { ok: true, stored: null };
      const s = typeof input === 'number' ? String(input) : input;
      if (typeof s !== 'string' || !INT_RE.test(s)) return bad(`"${String(input)}" is not an integer`);
      const n = Number(s);
      if (n < -2147483648 || n > 2147483647) return bad(`${s} is outside the 32-bit range`);
      return { ok: true, stored: n };
    }
    case 'decimal': {
      if (input === '') return { ok: true, stored: null };
      if (typeof input === 'number') {
        return Number.isFinite(input) ? { ok: true, stored: String(input) } : bad('not a finite number');
      }
      if (typeof input !== 'string') return bad('expected a numeric string');
      const m = DEC_RE.exec(input) ?? DEC_TOL_RE.exec(input);
      if (!m) return bad(`"${input}" is not a decimal number`);
      return { ok: true, stored: normaliseDecimal(m[1]!, m[2]!, m[3] ?? '') };
    }
    case 'datetime': {
      if (typeof input !== 'string') return bad('expected "YYYY-MM-DD"');
      if (CLEARED_DATES.has(input)) return { ok: true, stored: '' };
      const m = DATE_RE.exec(input);
      if (!m) return bad(`"${input}" is not a YYYY-MM-DD date`);
      const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
      const t = new Date(Date.UTC(y, mo - 1, d));
      if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) {
        return bad(`"${input}" is not a calendar date`);
      }
      return { ok: true, stored: input };
    }
    case 'boolean': {
      if (input === 1 || input === '1' || input === true) return { ok: true, stored: 1 };
      if (input === 0 || input === '0' || input === false || input === '') return { ok: true, stored: 0 };
      return bad('expected 1, 0, true, false, "1", "0" or ""');
    }
    default:
      return { ok: false, message: `Field type "${type.name}" does not support a "value" update` };
  }
}

/** The value key of a scalar field as it appears in record JSON. */
export function renderValue(type: FieldType, stored: StoredValue): string | number | null {
  switch (type.storage) {
    case 'integer':
      return stored === null || stored === '' ? null : Number(stored);
    case 'decimal':
      return stored === null || stored === '' ? null : String(stored);
    case 'readonly':
      return '';
    default:
      return stored === null ? '' : String(stored);
  }
}
