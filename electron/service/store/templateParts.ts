import { createHash } from 'node:crypto';
import type { TemplateIn, TemplateTagIn } from '../../../shared/schemas/template.js';
import type { Db } from './db.js';
import { metaStore } from './meta.js';
import { templateKey } from './syncMetaKeys.js';
import { perConnection } from './prepared.js';

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
 * Marks on template parts a remote server removed (migration 011, docs/sync.md §4), and what the
 * last applied template of each synced dataset listed (in `meta`). Removal is a mark, never a
 * delete: the values under a removed part stay stored and hidden.
 */
export const templatePartsStore = perConnection((db: Db) => {
  const fieldId = '(SELECT id FROM datafields WHERE uuid = ?)';
  const s = {
    markField: db.prepare<[string, string]>('UPDATE datafields SET removed_at = ? WHERE uuid = ? AND removed_at IS NULL'),
    restoreField: db.prepare<[string]>('UPDATE datafields SET removed_at = NULL WHERE uuid = ? AND removed_at IS NOT NULL'),
    markOption: db.prepare<[string, string, string]>(
      `UPDATE radio_options SET removed_at = ? WHERE datafield_id = ${fieldId} AND uuid = ? AND removed_at IS NULL`,
    ),
    restoreOption: db.prepare<[string, string]>(
      `UPDATE radio_options SET removed_at = NULL WHERE datafield_id = ${fieldId} AND uuid = ? AND removed_at IS NOT NULL`,
    ),
    markTag: db.prepare<[string, string, string]>(
      `UPDATE tags SET removed_at = ? WHERE datafield_id = ${fieldId} AND uuid = ? AND removed_at IS NULL`,
    ),
    restoreTag: db.prepare<[string, string]>(
      `UPDATE tags SET removed_at = NULL WHERE datafield_id = ${fieldId} AND uuid = ? AND removed_at IS NOT NULL`,
    ),
  };
  const meta = metaStore(db);
  const gone = (a: string[] | undefined, b: string[]) => {
    const keep = new Set(b);
    return (a ?? []).filter((x) => !keep.has(x));
  };
  return {
    /** The template last applied for a dataset from this remote; null before the first pull. */
    applied(remoteId: number, dataset: string): AppliedTemplate | null {
      const v = meta.get(templateKey(remoteId, dataset));
      return v ? (JSON.parse(v) as AppliedTemplate) : null;
    },
    /**
     * Marks what `before` listed and `now` does not, clears the mark on everything `now` lists,
     * and remembers `now`. Returns how many parts changed state. Call inside a transaction.
     */
    reconcile(remoteId: number, dataset: string, before: TemplateParts | null, now: AppliedTemplate, at: string): number {
      let n = 0;
      for (const f of gone(before?.fields, now.fields)) n += s.markField.run(at, f).changes;
      for (const o of gone(before?.options, now.options)) n += s.markOption.run(at, ...split(o)).changes;
      for (const t of gone(before?.tags, now.tags)) n += s.markTag.run(at, ...split(t)).changes;
      for (const f of now.fields) n += s.restoreField.run(f).changes;
      for (const o of now.options) n += s.restoreOption.run(...split(o)).changes;
      for (const t of now.tags) n += s.restoreTag.run(...split(t)).changes;
      meta.set(templateKey(remoteId, dataset), JSON.stringify(now));
      return n;
    },
  };
});
