import type { Database, Statement } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import type { TemplateIn, TemplateTagIn } from '../../../shared/schemas/template.js';

/** The uuids a server template lists: fields, and options and tags as `field uuid/item uuid`. */
export interface TemplateParts {
  fields: string[];
  options: string[];
  tags: string[];
}

/** What a pull remembers of the last template it applied for a dataset. */
export interface AppliedTemplate extends TemplateParts {
  hash: string;
}

/** The parts of a template tree (child templates included) and a hash of the whole template. */
export function templateParts(t: TemplateIn, json: unknown): AppliedTemplate {
  const out: AppliedTemplate = {
    hash: createHash('sha256').update(JSON.stringify(json)).digest('hex'),
    fields: [],
    options: [],
    tags: [],
  };
  const tags = (field: string, list: TemplateTagIn[] | undefined): void => {
    for (const tag of list ?? []) {
      out.tags.push(`${field}/${tag.template_tag_uuid}`);
      tags(field, tag.tags);
    }
  };
  const walk = (x: TemplateIn): void => {
    for (const f of x.fields) {
      out.fields.push(f.field_uuid);
      for (const o of f.radio_options ?? []) out.options.push(`${f.field_uuid}/${o.template_radio_option_uuid}`);
      tags(f.field_uuid, f.tags);
    }
    x.related_databases.forEach(walk);
  };
  walk(t);
  return out;
}

const split = (key: string): [string, string] => {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
};

/**
 * Marks on template parts a remote server removed (migration 006, docs/sync.md §4), and what the
 * last applied template of each synced dataset listed. Removal is a mark, never a delete: the
 * values under a removed part stay stored and hidden.
 */
export class TemplatePartsStore {
  private readonly s: Record<
    'getApplied' | 'setApplied' | 'markField' | 'restoreField' | 'markOption' | 'restoreOption' | 'markTag' | 'restoreTag',
    Statement
  >;

  constructor(db: Database) {
    const p = (sql: string) => db.prepare(sql);
    const fieldId = '(SELECT id FROM datafields WHERE uuid = ?)';
    this.s = {
      getApplied: p('SELECT value FROM meta WHERE key = ?').pluck(),
      setApplied: p('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      markField: p('UPDATE datafields SET removed_at = ? WHERE uuid = ? AND removed_at IS NULL'),
      restoreField: p('UPDATE datafields SET removed_at = NULL WHERE uuid = ? AND removed_at IS NOT NULL'),
      markOption: p(`UPDATE radio_options SET removed_at = ? WHERE datafield_id = ${fieldId} AND uuid = ? AND removed_at IS NULL`),
      restoreOption: p(
        `UPDATE radio_options SET removed_at = NULL WHERE datafield_id = ${fieldId} AND uuid = ? AND removed_at IS NOT NULL`,
      ),
      markTag: p(`UPDATE tags SET removed_at = ? WHERE datafield_id = ${fieldId} AND uuid = ? AND removed_at IS NULL`),
      restoreTag: p(`UPDATE tags SET removed_at = NULL WHERE datafield_id = ${fieldId} AND uuid = ? AND removed_at IS NOT NULL`),
    };
  }

  private key(remoteId: number, dataset: string): string {
    return `sync_template:${remoteId}:${dataset}`;
  }

  /** The template last applied for a dataset from this remote; null before the first pull. */
  applied(remoteId: number, dataset: string): AppliedTemplate | null {
    const v = this.s.getApplied.get(this.key(remoteId, dataset)) as string | undefined;
    return v ? (JSON.parse(v) as AppliedTemplate) : null;
  }

  /**
   * Marks what `before` listed and `now` does not, clears the mark on everything `now` lists,
   * and remembers `now`. Returns how many parts changed state. Call inside a transaction.
   */
  reconcile(remoteId: number, dataset: string, before: TemplateParts | null, now: AppliedTemplate, at: string): number {
    let n = 0;
    const gone = (a: string[] | undefined, b: string[]) => {
      const keep = new Set(b);
      return (a ?? []).filter((x) => !keep.has(x));
    };
    for (const f of gone(before?.fields, now.fields)) n += this.s.markField.run(at, f).changes;
    for (const o of gone(before?.options, now.options)) n += this.s.markOption.run(at, ...split(o)).changes;
    for (const t of gone(before?.tags, now.tags)) n += this.s.markTag.run(at, ...split(t)).changes;
    for (const f of now.fields) n += this.s.restoreField.run(f).changes;
    for (const o of now.options) n += this.s.restoreOption.run(...split(o)).changes;
    for (const t of now.tags) n += this.s.restoreTag.run(...split(t)).changes;
    this.s.setApplied.run(this.key(remoteId, dataset), JSON.stringify(now));
    return n;
  }
}
